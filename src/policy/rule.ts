import type { ApprovalMode, Decision, TierName } from './types.js';

/** One `[[rule]]` table after validation: patterns compiled, positions kept for diagnostics. */
export interface Rule {
  /** Tool names or wildcards (`*`, `mcp_*`, `mcp_<server>_*`); any one matching is enough. */
  toolNames: readonly string[];
  mcpName?: string;
  subagent?: string;
  argsPattern?: RegExp;
  /** Whole-word prefixes of one sub-command; any one matching is enough. */
  commandPrefixes?: readonly string[];
  /** Tested, as Gemini CLI does, on the arguments' JSON text after `"command":"`, for each sub-command. */
  commandRegex?: RegExp;
  decision: Decision;
  /** As written in the file, 0..999. */
  priority: number;
  modes?: readonly ApprovalMode[];
  interactive?: boolean;
  /**
   * agent-action's field: true, the rule applies only when commands really run in the OS sandbox
   * (the runtime's probe said so); false, only when they do not. Never from a call's arguments.
   */
  sandboxed?: boolean;
  toolAnnotations?: Readonly<Record<string, unknown>>;
  allowRedirection?: boolean;
  denyMessage?: string;
  /** Gemini CLI's optional `name` label, shown in reasons. */
  name?: string;
  /**
   * Settings' allow rules (`tools.allowed`, `tools.core`): a deny rule of the repository's own
   * policy files (Workspace tier) that matches the call still denies it, whatever the priorities.
   */
  belowWorkspaceDenies?: boolean;
  source: string;
  /** 1-based line of the `[[rule]]` header; 0 for rules not from a file. */
  line: number;
}

/** A rule placed in a tier, with its final priority and its position in load order. */
export interface TieredRule extends Rule {
  tier: TierName;
  finalPriority: number;
  order: number;
}

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  file: string;
  line: number;
  column: number;
  message: string;
}

export const formatDiagnostic = (d: Diagnostic): string =>
  `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;

/** True when the rule narrows a shell call by its command text, so shell heuristics do not override it. */
export const isCommandSpecific = (r: Rule): boolean =>
  r.commandPrefixes !== undefined || r.commandRegex !== undefined || r.argsPattern !== undefined;

export const MODES: readonly ApprovalMode[] = ['default', 'autoEdit', 'yolo', 'plan'];
export const DECISIONS: readonly Decision[] = ['allow', 'deny', 'ask_user'];

/** Source label of rules added by "always" approvals. */
export const ALWAYS_SOURCE = 'always-approval';
