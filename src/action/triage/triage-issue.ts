/**
 * One issue of a shard, start to end: read it (skip it when closed, a pull request, or triaged
 * since its last update), one conversation of its own (read-only tools, the labels it may apply,
 * the duplicate search, its own budget), then publish-triage.ts. A model or API failure is this
 * issue's outcome, never the shard's: it writes nothing, so the next run tries again.
 */
import { messageOf } from '../../common/errors.js';
import { prepareAgent } from '../../compose/prepare-agent.js';
import type { Emit, RunStats } from '../../core/events.js';
import { statsOf } from '../../core/stats.js';
import { describeCuts, renderTaskContext } from '../../context/task-context.js';
import type { ModelClient } from '../../model/client.js';
import { createDenyChannel } from '../../scheduler/channels.js';
import type { Tool } from '../../tools/define-tool.js';
import { createIssueTools, type SearchIssues } from '../../tools/github/issue-tools.js';
import { replyTool, setLabelsTool } from '../../tools/github/publish-tools.js';
import { createPublishRecorder } from '../../tools/github/recorder.js';
import { credentialFilesOf, rootNamesOf } from '../../tools/hidden-files.js';
import type { OwnAccount } from '../authorize.js';
import { threadImageParts } from '../fetch-images.js';
import type { GitHubClient } from '../github-client.js';
import { INPUT_DEFAULTS, type ActionSettings, type RunnerEnv } from '../inputs.js';
import type { RunSettings } from '../../context/run-settings.js';
import type { Log, RepoRef } from '../run-context.js';
import { policySources } from '../prepare-run.js';
import { taskContextOf } from '../task-context.js';
import type { TrustedConfig } from '../trusted-config.js';
import { publishTriage, type TriageRecord } from './publish-triage.js';
import type { TriageGuide } from './triage-guide.js';
import { findCoveringMarker, labelNamesOf, type MarkerComment } from './triage-marker.js';
import type { WritePacer } from './write-pacer.js';

/** What every issue of a shard shares: read once per shard. */
export interface ShardContext {
  octokit: GitHubClient;
  repo: RepoRef;
  settings: ActionSettings;
  runner: RunnerEnv;
  log: Log;
  secrets: string[];
  trusted: TrustedConfig;
  /** The trusted settings (trusted-settings.ts), read once for the shard. */
  runSettings: RunSettings;
  guide?: TriageGuide;
  /** Labels the model may apply. */
  allowed: string[];
  pacer: WritePacer;
  search: SearchIssues;
  modelClient?: ModelClient;
  runUrl?: string;
  /** Whose triaged markers count (authorize.ts). */
  own: OwnAccount;
}

export interface IssueOutcome {
  number: number;
  title?: string;
  /** would-triage: a dry run's result, nothing written. */
  status: 'triaged' | 'would-triage' | 'skipped' | 'failed';
  /** skipped: why; failed: the error; triaged at a limit: which. */
  note?: string;
  labels: string[];
  duplicateOf?: number;
  commentUrl?: string;
  stats?: RunStats;
  /** With `output-schema`: the final answer that matched it. */
  structured?: { value: unknown };
}

async function triageIssue(s: ShardContext, number: number): Promise<IssueOutcome> {
  const { data: issue } = await s.octokit.rest.issues.get({ ...s.repo, issue_number: number });
  const base = { number, title: issue.title, labels: [] as string[] };
  if (issue.pull_request) return { ...base, status: 'skipped', note: 'a pull request' };
  if (issue.state !== 'open') return { ...base, status: 'skipped', note: 'closed' };
  const comments = await s.octokit.paginate(s.octokit.rest.issues.listComments, {
    ...s.repo,
    issue_number: number,
    per_page: 100,
  });
  const current = labelNamesOf(issue.labels);
  const marker = current.includes(s.settings.triage.triagedLabel)
    ? findCoveringMarker(issue.updated_at, comments as MarkerComment[], await s.own.logins())
    : undefined;
  if (marker)
    return {
      ...base,
      status: 'skipped',
      note: `already triaged (${marker.html_url ?? marker.updated_at}), not updated since`,
    };

  const startedAt = Date.now();
  const recorder = createPublishRecorder();
  const issueTools = createIssueTools({ search: s.search, self: number });
  const rendered = renderTaskContext(
    taskContextOf({ number, isPullRequest: false }, issue, { comments, availableLabels: s.allowed }),
  );
  if (rendered.cuts.length > 0) s.log.notice(`#${number}: ${describeCuts(rendered.cuts)}`);
  const images = await issueImages(s, number, issue.body ?? '');
  const agent = await prepareAgent({
    model: {
      name: s.settings.model,
      apiKey: s.settings.geminiApiKey,
      vertex: s.settings.vertex,
      baseUrl: s.settings.geminiBaseUrl,
      client: s.modelClient,
    },
    workspace: {
      root: s.runner.workspace,
      memoryRoot: s.trusted.memoryRoot,
      hidden: credentialFilesOf(s.runner.workspace, process.env, rootNamesOf(s.runner.workspace)),
      ...(s.settings.contextFileNames.join('\n') !== INPUT_DEFAULTS['context-file-names'] && {
        contextFileNames: s.settings.contextFileNames,
      }),
    },
    settings: s.runSettings,
    policy: {
      context: 'action',
      mode: 'plan',
      workspace: [{ path: s.trusted.policyDir, optional: true }],
      user: policySources(s.settings.policy, 'policy', s.runner.workspace),
      admin: policySources(s.settings.adminPolicy, 'admin-policy', s.runner.workspace),
    },
    task: {
      command: 'triage',
      taskContext: rendered.text,
      availableLabels: s.allowed,
      repo: `${s.repo.owner}/${s.repo.repo}`,
      ...(images?.parts.length && { taskImages: images.parts }),
      ...(s.settings.outputSchema && { outputSchema: s.settings.outputSchema }),
    },
    limits: {
      maxTurns: s.settings.maxTurns,
      maxWallMs: s.settings.timeoutMs,
      maxCostUsd: s.settings.triage.maxCostUsdPerIssue ?? s.settings.maxCostUsd,
    },
    secrets: s.secrets,
    // Nobody answers in a batch: an ask is refused with the reason, and the model goes on without it.
    io: { channel: createDenyChannel() },
    tools: { extra: [setLabelsTool, replyTool, ...issueTools.tools] as unknown as Tool[], recorder, readOnly: true },
  });
  for (const w of agent.warnings) s.log.warning(`#${number}: ${w}`);
  const run = await agent.start(triagePrompt(number, s.guide), logEvents(s.log, number));
  const stats = statsOf(run.state, Date.now() - startedAt);
  const outcome = run.outcome;
  if (outcome.status !== 'success' && outcome.status !== 'limit') {
    const error =
      outcome.status === 'error'
        ? outcome.error.message
        : outcome.status === 'awaiting_approval'
          ? 'the policy asked for an approval, which a batch cannot wait for'
          : 'cancelled';
    return { ...base, status: 'failed', note: error, stats };
  }
  const recorded = recorder.snapshot();
  const record: TriageRecord = {
    labels: recorded.labels ?? [],
    replies: recorded.replies,
    duplicateOf: issueTools.duplicateOf(),
    stoppedAt: outcome.status === 'limit' ? outcome.message : undefined,
  };
  const published = await publishTriage({ number, labels: current, seenUpdatedAt: issue.updated_at }, record, {
    octokit: s.octokit,
    repo: s.repo,
    pacer: s.pacer,
    allowed: s.allowed,
    triagedLabel: s.settings.triage.triagedLabel,
    runId: s.runner.runId,
    runUrl: s.runUrl,
    dryRun: s.settings.triage.dryRun,
  });
  if (published.dropped.length)
    s.log.notice(
      `#${number}: labels not allowed for the agent or not in the repository, not applied: ${published.dropped.join(', ')}`,
    );
  return {
    ...base,
    status: s.settings.triage.dryRun ? 'would-triage' : 'triaged',
    note: record.stoppedAt,
    labels: published.labels,
    duplicateOf: record.duplicateOf?.number,
    commentUrl: published.commentUrl,
    stats,
    ...(run.structured && { structured: run.structured }),
  };
}

/** The images the issue's body shows, from GitHub's hosts only (fetch-images.ts), as fix and review get them. */
async function issueImages(s: ShardContext, number: number, body: string) {
  const images = await threadImageParts([body], {
    hosts: { serverUrl: s.runner.serverUrl, owner: s.repo.owner, repo: s.repo.repo },
    token: s.settings.githubToken,
    log: (line) => s.log.info(`#${number}: ${line}`),
  });
  if (images?.note) s.log.notice(`#${number}: ${images.note}`);
  return images;
}

/** Never throws: an error anywhere in one issue is that issue's `failed` outcome. */
export async function tryTriageIssue(s: ShardContext, number: number): Promise<IssueOutcome> {
  try {
    return await triageIssue(s, number);
  } catch (e) {
    return { number, status: 'failed', note: messageOf(e), labels: [] };
  }
}

/** The first user message after the fenced task context: the task, and the trusted guide. */
function triagePrompt(number: number, guide: TriageGuide | undefined): string {
  const task =
    `Triage issue #${number}: choose fitting labels with set_labels, only from the labels you may apply. ` +
    'If it may repeat an earlier report, look with search_issues and, for a clear match only, call mark_duplicate. ' +
    'Call reply only when the report lacks something the maintainers need (steps to reproduce, versions), saying what in a few sentences. ' +
    'Your final message is the reason for your choice, in one or two sentences.';
  if (!guide) return task;
  if (guide.inMemory)
    return `${task}\n\nFollow the repository's triage guide: the section "${guide.heading}" of the project memory (${guide.source}).`;
  return `${task}\n\nThe repository's triage guide (${guide.source}, from the trusted configuration):\n\n${guide.text}`;
}

/** One log line per tool call and per outcome, prefixed with the issue (shards run several at once). */
const logEvents =
  (log: Log, number: number): Emit =>
  (e) => {
    if (e.type === 'tool_use') log.info(`#${number}: ${e.name} ${JSON.stringify(e.args).slice(0, 200)}`);
    else if (e.type === 'retry')
      log.info(`#${number}: model busy (${e.reason}); retry ${e.attempt} in ${Math.round(e.waitMs / 1000)}s`);
  };
