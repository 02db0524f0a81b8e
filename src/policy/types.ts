/** The policy engine's contract with the scheduler and the faces. */
import type { ApprovalMode } from '../common/approval-mode.js';

/** Gemini CLI's mode names as they appear in TOML `modes = [...]`. Flags say `auto_edit`; it maps to `autoEdit`. */
export type { ApprovalMode };

export type Decision = 'allow' | 'deny' | 'ask_user';

/**
 * Who can be asked. action: a maintainer through a comment (unmatched => deny, in every mode);
 * interactive: a person at a terminal (unmatched => ask_user); headless: nobody (unmatched => deny,
 * a final ask_user => deny, rules with interactive = true do not apply). In yolo mode, interactive
 * and headless allow unmatched calls, as Gemini CLI does.
 */
export type PolicyContext = 'action' | 'interactive' | 'headless';

export type TierName = 'default' | 'extension' | 'workspace' | 'user' | 'admin';

export const TIER_BASE: { readonly [T in TierName]: number } = {
  default: 1,
  extension: 2,
  workspace: 3,
  user: 4,
  admin: 5,
};

export interface PolicyQuery {
  toolName: string;
  args: Record<string, unknown>;
  mcpServer?: string;
  annotations?: Record<string, unknown>;
  subagent?: string;
}

/** The rule that decided, as people and approval comments show it. */
export interface RuleRef {
  source: string; // file path, or a label such as "always-approval"
  line: number; // 1-based line of the [[rule]] header; 0 when not from a file
  tier: TierName;
  priority: number; // final priority: tier + priority/1000
  decision: Decision;
  denyMessage?: string;
}

export interface PolicyVerdict {
  decision: Decision;
  /**
   * The rule whose decision this is. null when no rule decided: the context's default applied, or
   * one of the engine's own checks did (a shell redirection it refuses, a build file edit); the
   * reason says which.
   */
  rule: RuleRef | null;
  /** One sentence: why, for logs, `policy check` and the model when denied. */
  reason: string;
}

/** A rule added by an "always" approval; plain JSON so it serializes with the session. */
export interface AddedRule {
  toolName: string;
  /** One prefix, or several (an approved `a && b` adds the prefix of each sub-command). */
  commandPrefix?: string | string[];
  argsPattern?: string;
  modes: ApprovalMode[];
  /** Approved in a sub-agent's call: the rule holds for that sub-agent only, never for the main agent or another. */
  subagent?: string;
}

export interface PolicyEngine {
  readonly context: PolicyContext;
  /**
   * Never rejects: a failure while deciding is a deny that says why. A shell command awaits the
   * bash grammar, which loads once per process with the first one, so a run that never runs a
   * command never loads it.
   */
  decide(query: PolicyQuery, mode: ApprovalMode): Promise<PolicyVerdict>;
  /** Add the narrowed rule an "always" approval implies (Workspace tier, priority 950). */
  allowAlways(query: PolicyQuery, mode: ApprovalMode): Promise<AddedRule>;
  /** Restore rules added by earlier approvals (on resume). */
  restoreAdded(rules: readonly AddedRule[]): void;
  readonly added: readonly AddedRule[];
}
