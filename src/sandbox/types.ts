/** The sandbox's vocabulary: what callers ask for and what they get back. Types only. */
import type { Readable, Writable } from 'node:stream';
import type { ProcessBounds } from './bounds.js';

/** `required`: no sandbox, no process. `auto`: the sandbox when it works, else unconfined with a warning. */
export type SandboxMode = 'required' | 'auto' | 'off';

/** One process to start: what the shell tool, a hook or an MCP stdio server asks for. */
export interface SpawnRequest {
  /** argv[0] is looked up on env.PATH inside the sandbox: `['bash', '-c', command]`. */
  argv: readonly string[];
  /** Real path of the workspace: read-write inside, except its protected folders. */
  workspace: string;
  /** Where the process starts; inside the workspace. */
  cwd: string;
  /** Built by the caller from the allow-list (command-env.ts) and trusted additions; the sandbox also drops the runner's path variables. */
  env: Readonly<Record<string, string>>;
  /** Extra folders the process may write (a cache a hook needs, say). Absolute paths. */
  writable?: readonly string[];
  /**
   * Files and folders outside the workspace that trusted configuration names (an MCP server's
   * script, the PATH folders its command is found on), shown read-only. Looser than the
   * toolchain rule (a folder under /home or /tmp may be named), never: $HOME or above, a folder
   * holding the workspace, a runner path, /proc, /sys, /dev. Refused ones are left out, and the
   * process's `notVisible` says which and why.
   */
  visible?: readonly string[];
  /**
   * A folder of the caller's to be $HOME inside, read-write, instead of an empty one: a package
   * cache that lasts for the job (an MCP server's `npx`). It may sit in a hidden runner folder (the
   * caller made it there so it goes with the job); it may not hold one, the workspace, or be a
   * system folder.
   */
  homeDir?: string;
  /**
   * Run this one process outside the sandbox (with the runner's variables still dropped): a Docker
   * client that trusted configuration chose to run unconfined, whose container is the isolation.
   */
  unconfined?: boolean;
  /** Overrides the sandbox's network setting for this process. */
  network?: boolean;
  /** `pipe` for a process that is talked to (an MCP stdio server); commands get none. */
  stdin?: 'ignore' | 'pipe';
  /**
   * A trusted copy of the workspace's `.gemini/` folder (read from a commit), bound read-only in
   * its place: a hook or an MCP server configured there runs the committed scripts, never the work
   * tree's (a pull request's head). Only inside the sandbox; an unconfined process sees the work tree.
   */
  configDir?: string;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process (or the sandbox around it) never started: the reason, for the caller to show. */
  startError?: string;
  /** The sandbox stopped the call: its processes and threads reached the bound (bounds.ts). */
  exceeded?: 'processes';
}

/** A started process and everything it starts, as one unit to talk to, wait for and kill. */
export interface ConfinedProcess {
  readonly sandboxed: boolean;
  /** What bounds the call (sandboxed only; absent: nothing does). */
  readonly bounds?: ProcessBounds;
  /** Paths of `SpawnRequest.visible` that were left out, and why (for an error that names the cause). */
  readonly notVisible?: ReadonlyArray<{ path: string; why: string }>;
  /** Host pid of what was spawned (bwrap, or the command itself when unconfined). */
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The main process ended (background processes may still hold the output open when unconfined). */
  readonly exited: Promise<ExitStatus>;
  /** Everything ended and all output was read. */
  readonly closed: Promise<ExitStatus>;
  /** SIGTERM to the command's process group: a chance to clean up. */
  terminate(): void;
  /** SIGKILL to every process of the call, including those that left the group with setsid. */
  kill(): void;
  /** Whether processes the command started are still alive after it exited (never, when sandboxed). */
  hasStragglers(): boolean;
}

/** Why bubblewrap cannot be used here, as found by running it once. */
export type ProbeFailureKind = 'missing' | 'userns_denied' | 'failed';

export type ProbeResult =
  { ok: true; bwrap: string; version: string } | { ok: false; kind: ProbeFailureKind; bwrap: string; message: string };

/** What the sandbox will do for every spawn of this run. */
export type SandboxStatus =
  | {
      kind: 'sandboxed';
      bwrap: string;
      version: string;
      network: boolean;
      remedy?: string;
      /** What bounds each call (bounds.ts); always set by createSandbox. */
      bounds?: ProcessBounds;
      /** Why the resource limits are not set (no prlimit): only the sandbox's process count holds. */
      rlimitsMissing?: string;
    }
  /** `off`, or `auto` without a usable sandbox: processes run unconfined; `warning` says why. */
  | { kind: 'unconfined'; warning: string }
  /** `required` without a usable sandbox: every spawn is refused with this reason and fix. */
  | { kind: 'refused'; reason: string; fix: string };

export interface Sandbox {
  readonly mode: SandboxMode;
  /** Probes once (applying the remedy where allowed); later calls return the same answer. */
  status(): Promise<SandboxStatus>;
  /** Throws AgentError('config') when the mode is `required` and there is no sandbox. */
  spawn(req: SpawnRequest): Promise<ConfinedProcess>;
}
