/**
 * The publishing inputs about branches: `base-branch` (the pull request's base, and where the agent's
 * work starts; empty: the default branch) and `branch-prefix` (the start of every branch the agent
 * creates). Both must be names git accepts (src/git/ref-name.ts), checked at start: a bad one would
 * otherwise fail the push after the model's work.
 */
import { whyNotBranchName } from '../git/ref-name.js';

/** Pure: the base branch, undefined for the default branch; `error` when git would refuse the name. */
export function parseBaseBranch(raw: string): { value?: string } | { error: string } {
  if (raw === '') return {};
  const why = whyNotBranchName(raw);
  return why ? { error: `a branch name (${why})` } : { value: raw };
}

/** Pure: the prefix, as the start of a branch name (`agent-action/` + `issue-12-crash`). */
export function parseBranchPrefix(raw: string): { value: string } | { error: string } {
  const why = whyNotBranchName(`${raw}issue-1`);
  return why
    ? { error: `the start of a branch name, such as agent-action/ (as a branch name such as ${raw}issue-1, ${why})` }
    : { value: raw };
}
