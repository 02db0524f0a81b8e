/**
 * The job summaries of a plan and of a shard (Markdown), and the shard's totals. Pure.
 */
import type { RunStats } from '../../core/events.js';
import { formatUsd } from '../../model/pricing.js';
import type { IssueOutcome } from './triage-issue.js';
import type { PlannedIssue, TriagePlan } from './plan.js';

export interface PlanSummaryInput {
  plan: TriagePlan;
  triageLabel: string;
  /** The `triage-query` input, when it selected the issues instead of the label. */
  query?: string;
  maxShards: number;
  shardSize: number;
  dryRun: boolean;
  apiCalls: number;
  ms: number;
}

const cell = (s: string) =>
  s
    .replace(/[\r\n]+/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .trim();
const issueList = (issues: readonly PlannedIssue[], max = 200) =>
  `${issues
    .slice(0, max)
    .map((i) => `#${i.number}`)
    .join(', ')}${issues.length > max ? `, and ${issues.length - max} more` : ''}`;

export function renderPlanSummary(p: PlanSummaryInput): string {
  const { plan } = p;
  const lines = [
    `## agent-action: triage plan${p.dryRun ? ' (dry run)' : ''}`,
    '',
    `${plan.listed} ${p.query !== undefined ? `issue(s) found by triage-query \`${p.query}\`` : `open issue(s) carry \`${p.triageLabel}\``}: ${plan.todo.length} to triage in ${plan.shards.length} shard(s) (at most ${p.maxShards} of ${p.shardSize}), ` +
      `${plan.skipped.length} triaged since their last update, ${plan.deferred.length} not examined (beyond the shards), left for the next run.`,
    '',
    p.dryRun ? 'Dry run: nothing was triaged and no shard starts; these are the shards a run would start.' : '',
    '',
  ];
  if (plan.shards.length > 0) {
    lines.push('| shard | issues | writes per minute / hour |', '| ---: | --- | --- |');
    for (const s of plan.shards)
      lines.push(
        `| ${s.shard} | ${s.issues.map((n) => `#${n}`).join(', ')} | ${s['writes-per-minute']} / ${s['writes-per-hour']} |`,
      );
    lines.push('');
  }
  if (plan.skipped.length > 0)
    lines.push(`Skipped, triaged since their last update (${plan.skipped.length}): ${issueList(plan.skipped)}`, '');
  if (plan.deferred.length > 0)
    lines.push(
      `Not examined, left for the next run (${plan.deferred.length}, beyond max-shards x shard-size): ${issueList(plan.deferred)}`,
      '',
    );
  lines.push(`GitHub API calls: ${p.apiCalls}. Time: ${(p.ms / 1000).toFixed(1)} s.`);
  return `${lines.filter((l, i, a) => !(l === '' && a[i - 1] === '')).join('\n')}\n`;
}

export interface ShardTotals {
  triaged: number;
  skipped: number;
  failed: number;
  stats: RunStats;
}

/** Pure: the shard's counts and summed model statistics. */
export function totalsOf(outcomes: readonly IssueOutcome[], durationMs: number): ShardTotals {
  const stats: RunStats = {
    turns: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    thoughtTokens: 0,
    totalTokens: 0,
    costUsd: 0,
    toolCalls: 0,
    durationMs,
    models: {},
  };
  for (const o of outcomes) {
    const s = o.stats;
    if (!s) continue;
    stats.turns += s.turns;
    stats.inputTokens += s.inputTokens;
    stats.outputTokens += s.outputTokens;
    stats.cachedTokens += s.cachedTokens;
    stats.thoughtTokens += s.thoughtTokens;
    stats.totalTokens += s.totalTokens;
    stats.costUsd += s.costUsd;
    stats.toolCalls += s.toolCalls;
    for (const [model, m] of Object.entries(s.models)) {
      const t = (stats.models[model] ??= { inputTokens: 0, outputTokens: 0, totalTokens: 0, requests: 0 });
      t.inputTokens += m.inputTokens;
      t.outputTokens += m.outputTokens;
      t.totalTokens += m.totalTokens;
      t.requests += m.requests;
    }
  }
  const count = (...st: Array<IssueOutcome['status']>) => outcomes.filter((o) => st.includes(o.status)).length;
  return { triaged: count('triaged', 'would-triage'), skipped: count('skipped'), failed: count('failed'), stats };
}

export interface ShardSummaryInput {
  outcomes: readonly IssueOutcome[];
  totals: ShardTotals;
  dryRun: boolean;
  apiCalls: number;
  writes: number;
  waitedMs: number;
}

const RESULT: Record<IssueOutcome['status'], string> = {
  triaged: 'triaged',
  'would-triage': 'would triage',
  skipped: 'skipped',
  failed: 'failed',
};

export function renderShardSummary(p: ShardSummaryInput): string {
  const { totals } = p;
  const n = p.outcomes.length;
  const head = `## agent-action: triage of ${n} issue(s)${p.dryRun ? ' (dry run: nothing written)' : ''}`;
  const counts =
    `${p.dryRun ? 'Would triage' : 'Triaged'} ${totals.triaged}, skipped ${totals.skipped}, failed ${totals.failed}. ` +
    `GitHub API calls: ${p.apiCalls} (${n ? (p.apiCalls / n).toFixed(1) : '0'} per issue), ${p.writes} of them writes${p.waitedMs > 0 ? `, ${Math.round(p.waitedMs / 1000)} s spent pacing them` : ''}. ` +
    `Tokens: ${totals.stats.totalTokens}. Cost: $${formatUsd(totals.stats.costUsd)}.`;
  const rows = p.outcomes.map((o) => {
    const result = o.note ? `${RESULT[o.status]}: ${cell(o.note)}` : RESULT[o.status];
    const labels =
      o.labels.map((l) => `\`${cell(l)}\``).join(', ') +
      (o.duplicateOf ? `${o.labels.length ? '; ' : ''}duplicate of #${o.duplicateOf}` : '');
    const comment = o.commentUrl ? `[comment](${o.commentUrl})` : '';
    return `| #${o.number}${o.title ? ` ${cell(o.title).slice(0, 80)}` : ''} | ${result} | ${labels} | ${comment} | ${o.stats?.totalTokens ?? 0} | $${formatUsd(o.stats?.costUsd ?? 0)} |`;
  });
  return [
    head,
    '',
    counts,
    '',
    '| issue | result | labels | comment | tokens | cost |',
    '| --- | --- | --- | --- | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
}
