import type { Static, TSchema } from 'typebox';
import type { Sandbox } from '../sandbox/types.js';
import type { StartTimer } from './process-group.js';

/** An edit runs alone, in order; calls of other kinds run together unless the model sets `wait_for_previous`. */
export type ToolKind = 'read' | 'search' | 'edit' | 'execute' | 'other';

/** Each code changes a decision somewhere; only `fatal` ends the run. */
export type ToolErrorCode =
  'invalid_args' | 'not_found' | 'outside_workspace' | 'denied' | 'timeout' | 'failed' | 'fatal' | 'cancelled';

export interface ToolError {
  code: ToolErrorCode;
  message: string;
}

/** Thrown by `prepare` (or `run`) to refuse a call; the scheduler turns it into a failed result. */
export class ToolFailure extends Error {
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = 'ToolFailure';
    this.code = code;
  }
}

export interface RunContext {
  signal: AbortSignal;
  onProgress?: (line: string) => void;
  /** The call's id in its batch (a sub-agent's events nest under it). */
  callId?: string;
}

/** Inline data for the model (an image an MCP tool returned), sent beside the function response. */
export interface ToolMedia {
  mimeType: string;
  /** Base64. */
  data: string;
}

export interface ToolOutput {
  /** Becomes functionResponse.response.output (or .error when `error` is set). Never empty. */
  forModel: string;
  /** A short line for people: progress comment, stream-json, logs. */
  forHuman?: string;
  /** Present: the call failed; the model sees the message. */
  error?: ToolError;
  /** Images and documents the model sees as inline data parts after the response (Gemini CLI's siblings). */
  media?: ToolMedia[];
}

/**
 * Which MCP server a tool comes from, as our registry knows it (never as the call claims): policy
 * rules naming a server match on `server`, hooks get the rest as `mcp_context`.
 */
export interface McpCallInfo {
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  annotations?: Record<string, unknown>;
  /** Non-secret connection details for hooks (Gemini CLI's mcp_context: command, args, cwd, url). */
  context: Record<string, unknown>;
}

/** A question only a maintainer can answer (Gemini CLI's `ask_user` tool). */
export interface HumanQuestion {
  question: string;
  choices?: string[];
}

/** A file change as an editor shows it: the whole text before (null: a new file) and after. */
export interface FileDiff {
  /** Absolute, inside the workspace. */
  path: string;
  oldText: string | null;
  newText: string;
}

/**
 * Where the file tools read and write text. Absent: the disk. An editor (an ACP client that offers
 * `fs/read_text_file` and `fs/write_text_file`) serves its open buffers instead, so the agent sees
 * unsaved changes and its edits land in the editor. Paths are absolute and already confined to the
 * workspace; a method left out falls back to the disk. Errors are thrown as ToolFailure.
 */
export interface TextFileAccess {
  readText?(abs: string): Promise<string>;
  writeText?(abs: string, text: string): Promise<void>;
}

/** A checked, fully resolved call. Pure data except `run`. */
export interface PreparedCall {
  /** One line: "edit src/app.ts", "run `npm test`". Approval comments and logs use it. */
  title: string;
  /** Resolved workspace-relative paths it touches. */
  paths: readonly string[];
  /** What policy matches on (Gemini CLI's argument names, e.g. `command` for shell). */
  policyArgs: Record<string, unknown>;
  /** For edits: a unified diff of what it would change, shown when a human is asked. */
  preview?: string;
  /** For edits: the whole file before and after, for editors that show a diff (ACP). */
  diff?: FileDiff;
  /** Set by tools that need a human's answer instead of running (ask_user). */
  question?: HumanQuestion;
  /** Set by MCP tools: the server the policy decides by. */
  mcp?: McpCallInfo;
  run(ctx: RunContext): Promise<ToolOutput>;
}

export interface Tool<S extends TSchema = TSchema> {
  /** Wire name; policies match on it. */
  name: string;
  /** Older names the model or a policy may use (search_file_content for grep_search). */
  aliases?: readonly string[];
  kind: ToolKind;
  description: string;
  /** JSON Schema, a plain `as const` literal: the only source of the argument type (TypeBox infers it with `Static`, no builders needed), and what the arguments are validated against. */
  params: S;
  /**
   * How the registry checks the arguments against `params` before `prepare`. Absent: TypeBox's
   * validator compiled from `params` (tool-schema.ts). A schema from outside brings an interpreted one.
   */
  checkArgs?: (args: unknown) => string | undefined;
  /** Resolve and check; no side effects. To refuse, throw ToolFailure. */
  prepare(args: Static<S>, env: ToolEnv): PreparedCall | Promise<PreparedCall>;
}

/**
 * Everything a tool may touch. Built once per run by the face; tools never read process.cwd()
 * or process.env themselves. The tools layer owns the concrete types behind these fields.
 */
export interface ToolEnv {
  /** Real path of the workspace root. */
  root: string;
  /** Values that must never reach a command's environment or output (tokens, keys). */
  secrets: readonly string[];
  /** The host environment commands start from: only its allow-listed variables pass (sandbox/command-env.ts). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /**
   * Variables trusted configuration gives every command as they are (the Action's `sandbox-env`
   * input, the CLI's `security.environmentVariableRedaction.allowed`), on top of the allow-list.
   */
  passEnv?: Readonly<Record<string, string>>;
  /** Default shell timeout in ms. */
  shellTimeoutMs: number;
  /** Between SIGTERM and SIGKILL when a command is stopped (default 2 s; tests shorten it). */
  shellGraceMs?: number;
  /** Starts the shell's timeout and grace timers (real timers when absent; tests fire them on an event). */
  shellTimer?: StartTimer;
  /** Where commands run (sandbox/). Absent: an `auto` sandbox from process.env (tests, library use). */
  sandbox?: Sandbox;
  /** Called with a directory the agent just read or listed; returns memory text to append, once per dir. */
  memoryFor?: (absDir: string) => Promise<string | undefined>;
  /** Where GitHub-facing tools record what to publish (set by the action). */
  recorder?: unknown;
  /** Text file reads and writes through an editor (ACP); absent: the disk. */
  files?: TextFileAccess;
}

export const defineTool = <S extends TSchema>(tool: Tool<S>): Tool<S> => tool;

/**
 * The scheduling parameter Gemini CLI adds to every tool: the model says which calls of a batch
 * depend on the ones before. The scheduler reads it and strips it before validation, so no tool's
 * own schema knows it. An edit always runs alone and in order (src/scheduler/batch.ts), so the
 * parameter would change nothing there and is not offered; said in fewer words than Gemini CLI's,
 * since it is repeated in every declaration of every request.
 */
export const WAIT_FOR_PREVIOUS = 'wait_for_previous';
const WAIT_FOR_PREVIOUS_SCHEMA = {
  type: 'boolean',
  description: "Wait for this turn's earlier calls to finish first (this call needs their output).",
} as const;

/** Built fresh per request (the SDK may mutate declarations it is given), with `wait_for_previous` added. */
export const declarationOf = (t: Tool) => {
  const schema = JSON.parse(JSON.stringify(t.params)) as Record<string, unknown>;
  if (schema.type === 'object' && t.kind !== 'edit')
    schema.properties = {
      ...(schema.properties as Record<string, unknown> | undefined),
      [WAIT_FOR_PREVIOUS]: { ...WAIT_FOR_PREVIOUS_SCHEMA },
    };
  return { name: t.name, description: t.description, parametersJsonSchema: schema };
};
