/**
 * Nightly triage at scale, the three ways main.ts starts it:
 * - `mode: triage-plan`: the plan (plan.ts) as the `shards` output and the job summary;
 * - `mode: triage` with `issues`: one shard, in one process, a few issues at once;
 * - a `schedule`/`workflow_dispatch` run without a mode: the plan's issues as one shard, no caps.
 * A shard reads its trusted configuration once (from the commit the run started on), then every
 * issue is its own conversation (triage-issue.ts); one issue's failure never ends the others.
 */
import { AgentError, messageOf } from '../../common/errors.js';
import type { Clock } from '../../core/loop.js';
import { realClock } from '../../core/retry.js';
import { readAllowedLabels } from '../publish/labels.js';
import type { ActionResult } from '../run-context.js';
import type { RunBase } from '../run-task.js';
import { createTrustedConfigSource, readHeadCommit } from '../trusted-config.js';
import { readTrustedSettings, snapshotContextNames } from '../trusted-settings.js';
import { createIssueSearch } from './issue-search.js';
import { matrixOf, readTriagePlan, type PlanOptions } from './plan.js';
import { renderPlanSummary, renderShardSummary, totalsOf } from './summary.js';
import { readTriageGuide } from './triage-guide.js';
import { scopedTriageQuery } from './triage-query.js';
import { tryTriageIssue, type IssueOutcome, type ShardContext } from './triage-issue.js';
import { createWritePacer } from './write-pacer.js';

/** What main.ts adds for triage runs: the client's request count, and a clock tests can step. */
export interface TriageRun {
  apiCalls: () => number;
  clock?: Clock;
}

const planOptions = (base: RunBase, caps: boolean): PlanOptions => {
  const t = base.settings.triage;
  return {
    triageLabel: base.settings.triageLabel,
    ...(base.settings.triageQuery !== undefined && { query: scopedTriageQuery(base.settings.triageQuery, base.repo) }),
    triagedLabel: t.triagedLabel,
    maxShards: caps ? t.maxShards : Number.POSITIVE_INFINITY,
    shardSize: t.shardSize,
    maxParallel: t.maxParallel,
    writeBudget: { perMinute: t.writesPerMinute, perHour: t.writesPerHour },
    own: base.own,
  };
};

/** What the plan triages, for summaries: the issues labelled triage-label, or the triage-query's. */
const selectionOf = (s: RunBase['settings']): string =>
  s.triageQuery !== undefined
    ? `issue found by triage-query \`${s.triageQuery}\``
    : `open issue labelled '${s.triageLabel}'`;

export async function runTriagePlan(base: RunBase, x: TriageRun): Promise<ActionResult> {
  const clock = x.clock ?? realClock;
  const t0 = clock.now();
  const { settings } = base;
  const plan = await base.log.group('plan', () => readTriagePlan(base.octokit, base.repo, planOptions(base, true)));
  const dryRun = settings.triage.dryRun;
  const md = renderPlanSummary({
    plan,
    triageLabel: settings.triageLabel,
    ...(settings.triageQuery !== undefined && { query: settings.triageQuery }),
    maxShards: settings.triage.maxShards,
    shardSize: settings.triage.shardSize,
    dryRun,
    apiCalls: x.apiCalls(),
    ms: clock.now() - t0,
  });
  await writeSummary(base, md);
  // A dry run starts nothing downstream: whatever the workflow does with the output, no shard runs.
  const shards = dryRun ? [] : plan.shards;
  return {
    status: 'success',
    summary: `${plan.todo.length} issue(s) to triage in ${plan.shards.length} shard(s); ${plan.skipped.length} triaged since their last update; ${plan.deferred.length} left for the next run${dryRun ? ' (dry run: no shards started)' : ''}`,
    shards: matrixOf(shards),
    shardCount: shards.length,
    apiCalls: x.apiCalls(),
  };
}

export async function runTriageShard(base: RunBase, issues: readonly number[], x: TriageRun): Promise<ActionResult> {
  return triageIssues(base, issues, x);
}

/** Without a matrix: every labelled issue that needs triage, in this one job. */
export async function triageAll(base: RunBase, x: TriageRun): Promise<ActionResult> {
  const plan = await base.log.group('plan', () => readTriagePlan(base.octokit, base.repo, planOptions(base, false)));
  if (plan.todo.length === 0) {
    return {
      status: 'skipped',
      summary: `no ${selectionOf(base.settings)} needs triage (${plan.skipped.length} triaged since their last update)`,
      apiCalls: x.apiCalls(),
    };
  }
  return triageIssues(
    base,
    plan.todo.map((i) => i.number),
    x,
  );
}

async function triageIssues(base: RunBase, issues: readonly number[], x: TriageRun): Promise<ActionResult> {
  const clock = x.clock ?? realClock;
  const t0 = clock.now();
  const { settings, runner } = base;
  const head = await readHeadCommit(runner.workspace);
  if (!head)
    throw new AgentError(
      'config',
      `triage reads the repository's trusted configuration from the checked-out commit, and GITHUB_WORKSPACE (${runner.workspace}) has none: add actions/checkout before this step`,
    );
  const source = createTrustedConfigSource({
    workspace: runner.workspace,
    startCommit: head,
    contextFileNames: snapshotContextNames(settings),
    remote: base.remote,
  });
  try {
    const trusted = await base.log.group(`trusted configuration (commit ${head})`, () => source.read());
    const guide = await readTriageGuide(trusted.memoryRoot, settings.contextFileNames);
    if (guide) base.log.info(`triage guide: ${guide.source}${guide.heading ? ` (section "${guide.heading}")` : ''}`);
    const allowed = (await readAllowedLabels(base.octokit, base.repo, settings)).filter(
      (l) => l.toLowerCase() !== settings.triage.triagedLabel.toLowerCase(),
    );
    const pacer = createWritePacer(
      { perMinute: settings.triage.writesPerMinute, perHour: settings.triage.writesPerHour },
      clock,
    );
    const ctx: ShardContext = {
      octokit: base.octokit,
      repo: base.repo,
      settings,
      runner,
      log: base.log,
      secrets: base.secrets,
      trusted,
      runSettings: await readTrustedSettings(trusted, settings.settingsInput, (w) => base.log.warning(w)),
      guide,
      allowed,
      pacer,
      search: createIssueSearch(base.octokit, base.repo),
      modelClient: base.modelClient,
      own: base.own,
      runUrl: runner.runId
        ? `${runner.serverUrl}/${base.repo.owner}/${base.repo.repo}/actions/runs/${runner.runId}`
        : undefined,
    };
    const outcomes = await runPool(ctx, issues, {
      concurrency: settings.triage.concurrency,
      shardBudgetUsd: settings.maxCostUsd,
    });
    for (const o of outcomes.filter((r) => r.status === 'failed'))
      base.log.warning(`#${o.number}: triage failed: ${o.note ?? 'unknown error'}`);
    const totals = totalsOf(outcomes, clock.now() - t0);
    const { writes, waitedMs } = pacer.stats();
    await writeSummary(
      base,
      renderShardSummary({
        outcomes,
        totals,
        dryRun: settings.triage.dryRun,
        apiCalls: x.apiCalls(),
        writes,
        waitedMs,
      }),
    );
    const attempted = outcomes.filter((o) => o.status !== 'skipped').length;
    return {
      // One issue's failure does not fail the shard; only a shard where every attempt failed does.
      status: attempted > 0 && totals.failed === attempted ? 'failed' : 'success',
      summary: `${settings.triage.dryRun ? 'would triage' : 'triaged'} ${totals.triaged} of ${outcomes.length} issue(s); ${totals.skipped} skipped; ${totals.failed} failed`,
      labels: [...new Set(outcomes.flatMap((o) => o.labels))],
      ...(settings.outputSchema && { structuredOutput: structuredByIssue(outcomes) }),
      stats: totals.stats,
      apiCalls: x.apiCalls(),
    };
  } finally {
    await source.dispose();
  }
}

/**
 * `concurrency` workers take the issues in order; results keep the input order. `shardBudgetUsd`
 * (max-cost-usd) is the whole shard's: once spent, no further issue starts.
 */
async function runPool(
  ctx: ShardContext,
  issues: readonly number[],
  { concurrency, shardBudgetUsd }: { concurrency: number; shardBudgetUsd?: number | undefined },
): Promise<IssueOutcome[]> {
  const results: IssueOutcome[] = new Array(issues.length);
  let next = 0;
  let spent = 0;
  const worker = async () => {
    for (let i = next++; i < issues.length; i = next++) {
      if (shardBudgetUsd !== undefined && spent >= shardBudgetUsd) {
        results[i] = {
          number: issues[i],
          status: 'skipped',
          note: "the shard's budget (max-cost-usd) is spent; left for the next run",
          labels: [],
        };
        continue;
      }
      results[i] = await tryTriageIssue(ctx, issues[i]);
      spent += results[i].stats?.costUsd ?? 0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, issues.length)) }, worker));
  return results;
}

/** `output-schema`'s output for a shard: each issue's validated answer, keyed by its number (an issue without one is left out). */
const structuredByIssue = (outcomes: readonly IssueOutcome[]): string =>
  JSON.stringify(
    Object.fromEntries(outcomes.flatMap((o) => (o.structured ? [[String(o.number), o.structured.value]] : []))),
  );

async function writeSummary(base: RunBase, md: string): Promise<void> {
  if (!base.writeSummary) return;
  try {
    await base.writeSummary(md);
  } catch (e) {
    base.log.warning(`could not write the job summary: ${messageOf(e)}`);
  }
}
