/**
 * Nightly triage without a matrix: every open issue carrying the triage label, one after another.
 * One issue's failure is counted, not fatal to the others.
 */
import { messageOf } from '../common/errors.js';
import type { Command } from './event-command.js';
import type { ActionResult } from './run-context.js';
import { runCommand, type RunBase } from './run-task.js';

export async function triageAll(base: RunBase, command: Extract<Command, { kind: 'triage-all' }>): Promise<ActionResult> {
  const issues = await base.octokit.paginate(base.octokit.rest.issues.listForRepo, { ...base.repo, state: 'open', labels: command.label, per_page: 100 });
  const results: ActionResult[] = [];
  for (const issue of issues.filter((i) => !i.pull_request)) {
    const thread = { number: issue.number, isPullRequest: false };
    try {
      results.push(await runCommand(base, { kind: 'triage', text: '', trigger: { ...command.trigger, thread } }, thread));
    } catch (e) {
      results.push({ status: 'failed', summary: `#${issue.number}: ${messageOf(e)}` });
    }
  }
  const failed = results.filter((r) => r.status === 'failed');
  return {
    status: results.length === 0 ? 'skipped' : failed.length ? 'failed' : 'success',
    summary: results.length === 0 ? `no open issues labelled '${command.label}'` : `triaged ${results.length} issue(s); ${failed.length} failed`,
    labels: [...new Set(results.flatMap((r) => r.labels ?? []))],
  };
}
