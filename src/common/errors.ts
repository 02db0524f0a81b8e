/**
 * The one error type of agent-action. Its `kind` is closed and maps to the CLI's exit codes
 * (Gemini CLI's table in DESIGN.md) and to the action's failure annotation.
 */
export type ErrorKind =
  | 'general' // 1
  | 'auth' // 41: no or bad credentials
  | 'input' // 42: bad input or flags
  | 'config' // 52: bad configuration (a policy file that does not parse)
  | 'limit' // 53: turn limit reached
  | 'fatal_tool' // 54: a tool error that ends the run
  | 'cancelled' // 130
  | 'internal'; // 1: a bug (an illegal state transition, say)

export const EXIT_CODES: { readonly [K in ErrorKind]: number } = {
  general: 1,
  auth: 41,
  input: 42,
  config: 52,
  limit: 53,
  fatal_tool: 54,
  cancelled: 130,
  internal: 1,
};

/** Where a configuration or input problem is: a file position or an input/flag name. */
export interface ErrorSite {
  file?: string;
  line?: number;
  column?: number;
  /** The action input or CLI flag at fault, e.g. `approval-mode` or `--max-turns`. */
  input?: string;
}

export class AgentError extends Error {
  readonly kind: ErrorKind;
  readonly site: ErrorSite;
  /** Further problems found in the same pass (all policy diagnostics, all input errors). */
  readonly details: readonly string[];

  constructor(
    kind: ErrorKind,
    message: string,
    opts: { site?: ErrorSite; cause?: unknown; details?: readonly string[] } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AgentError';
    this.kind = kind;
    this.site = opts.site ?? {};
    this.details = opts.details ?? [];
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}

export const isAgentError = (e: unknown): e is AgentError =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AgentError' && 'kind' in e;

/** The message of anything thrown, without `as any`. */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
