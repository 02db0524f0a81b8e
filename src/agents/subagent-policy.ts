import type { PolicyEngine } from '../policy/types.js';

/**
 * The run's policy engine as a sub-agent sees it: the same rules, with every query naming the
 * agent as `subagent` (Gemini CLI's rule field), so `subagent = "<name>"` rules apply to its
 * calls. Rules added by "always" approvals go to the shared engine (and so to the session),
 * narrowed as the main agent's are and scoped to this agent by the same field (narrowedRule).
 */
export function policyForSubagent(policy: PolicyEngine, agent: string): PolicyEngine {
  return {
    context: policy.context,
    decide: (query, mode) => policy.decide({ ...query, subagent: agent }, mode),
    allowAlways: (query, mode) => policy.allowAlways({ ...query, subagent: agent }, mode),
    restoreAdded: (rules) => policy.restoreAdded(rules),
    get added() {
      return policy.added;
    },
  };
}
