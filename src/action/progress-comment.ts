/**
 * Progress in the thread: an eyes reaction on the triggering comment at once, then one comment per
 * run, edited as the run goes (throttled) and finally rewritten with the outcome and its numbers.
 * The same table goes to the job summary. A failing edit is logged, never fatal: progress is a view;
 * but a write the token's permissions refused is remembered (`refusal`), so the run does not end
 * green with its comments missing.
 *
 * A command asked in a review thread (or a review's body) still gets its progress comment in the
 * pull request's conversation, linking the thread: the conversation is where a run's durable
 * record lives (approval requests and their answers, checkpoints, the triage marker are all read
 * back from it), and a status table edited a dozen times would bury the line's discussion. The
 * answer itself goes into the thread (publish-run.ts).
 */
import { messageOf } from '../common/errors.js';
import { formatUsd } from '../model/pricing.js';
import type { LoopEvent, RunStats } from '../core/events.js';
import type { HookRunEvent } from '../hooks/types.js';
import type { Todo } from '../tools/builtin/write-todos.js';
import type { OwnAccount } from './authorize.js';
import type { CommentRef, Thread } from './event-command.js';
import type { GitHubClient } from './github-client.js';
import { formatMarker } from './markers.js';
import { renderChecklist } from './plan-checklist.js';
import { missingScopeIn } from './permissions.js';
import { capBody } from './publish/body-cap.js';
import { makeInert } from './publish/inert-text.js';
import { formatTriagedMarker } from './triage/triage-marker.js';
import { mcpAllowRule } from '../policy/suggest-rule.js';
import type { ActionResult, Log, ProgressReporter, RepoRef } from './run-context.js';

export interface ProgressOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  thread?: Thread;
  comment?: CommentRef;
  runUrl?: string;
  runId?: string;
  title: string;
  log: Log;
  /** Minimum time between edits; the last state is always written. */
  throttleMs?: number;
  /** Writes the job summary (core.summary in the action). */
  writeSummary?: (markdown: string) => Promise<void>;
  /** How commands ran (sandbox-text.ts), read when the run ends: the sandbox is probed after start. */
  sandboxLine?: () => string | undefined;
  now?: () => number;
  /** Told the author GitHub gives the comment: the account this run posts as, without asking again. */
  own?: OwnAccount;
}

export interface ProgressComment extends ProgressReporter {
  /** Reaction and first comment. */
  start(): Promise<void>;
  /** The first write of this comment (or reaction) that the token's permissions refused, naming the missing one. */
  refusal(): string | undefined;
}

interface View {
  step: string;
  /** Lines kept to the end: what was cut from the model's input, say. */
  notes: string[];
  toolCalls: number;
  failedCalls: number;
  recent: string[];
  /** Every settings.json hook run, for the job summary. */
  hooks: HookRunEvent[];
  /** The model's plan (write_todos), as it last stood. */
  todos?: readonly Todo[];
  /** MCP calls the policy denied, one per tool, with the rule that would allow each (for the log and the job summary). */
  deniedMcp: DeniedMcpCall[];
}

interface DeniedMcpCall {
  name: string;
  server: string;
  reason: string;
  rule: string;
}

/** At most this many denied MCP tools are listed in the job summary (the log has every one). */
const DENIED_MCP_SHOWN = 20;

export function createProgressComment(o: ProgressOptions): ProgressComment {
  const now = o.now ?? Date.now;
  const throttleMs = o.throttleMs ?? 10_000;
  const startedAt = now();
  const view: View = {
    step: 'starting',
    notes: [],
    toolCalls: 0,
    failedCalls: 0,
    recent: [],
    hooks: [],
    deniedMcp: [],
  };
  let id: number | undefined;
  let lastEdit = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let finished = false;
  let refused: string | undefined;
  const marker = formatMarker('progress', o.runId ? { run: o.runId } : {});
  const warn: Warn = (what, e) => {
    const message = `${what}: ${messageOf(e)}`;
    if (refused === undefined && missingScopeIn(message)) refused = message;
    o.log.warning(message);
  };

  const write = (body: string) => {
    // Edits are serialized: an older body can never overwrite a newer one.
    chain = chain.then(async () => {
      if (id === undefined || !o.thread) return;
      try {
        await o.octokit.rest.issues.updateComment({ ...o.repo, comment_id: id, body });
      } catch (e) {
        warn('could not update the progress comment', e);
      }
    });
    return chain;
  };
  const schedule = () => {
    if (finished || id === undefined) return;
    const wait = lastEdit + throttleMs - now();
    if (wait <= 0) {
      lastEdit = now();
      void write(renderRunning(o, view, marker));
    } else if (!timer) {
      timer = setTimeout(() => {
        timer = undefined;
        schedule();
      }, wait);
      timer.unref();
    }
  };

  const onEvent = (e: LoopEvent) => {
    if (applyEvent(view, e, o.log)) schedule();
  };

  return {
    emit: onEvent,
    step(text) {
      view.step = text;
      schedule();
    },
    note(text) {
      if (!view.notes.includes(text)) view.notes.push(text);
      schedule();
    },
    commentId: () => id,
    refusal: () => refused,
    async start() {
      await reactWithEyes(o, warn);
      if (!o.thread) return;
      try {
        const { data } = await o.octokit.rest.issues.createComment({
          ...o.repo,
          issue_number: o.thread.number,
          body: renderRunning(o, view, marker),
        });
        id = data.id;
        o.own?.learn(data.user?.login);
        lastEdit = now();
      } catch (e) {
        warn('could not post the progress comment', e);
      }
    },
    async finish(result, extra) {
      // The first outcome wins: suspend writes its own, and main's closing call must not overwrite it.
      if (finished) return chain;
      finished = true;
      if (timer) clearTimeout(timer);
      const outcome = closingWordsOf(result, now() - startedAt);
      await write(renderFinished(o, view, { marker, outcome, extra }));
      await writeJobSummary(o, view, outcome);
    },
  };
}

type Warn = (what: string, e: unknown) => void;

/** The eyes reaction on the triggering comment, if it has a route for one. */
async function reactWithEyes(o: ProgressOptions, warn: Warn): Promise<void> {
  const c = o.comment;
  try {
    // A review comment's reactions are a pull-request route; a review's body has none (GitHub has no reactions for reviews).
    if (c?.kind === 'issue')
      await o.octokit.rest.reactions.createForIssueComment({ ...o.repo, comment_id: c.id, content: 'eyes' });
    if (c?.kind === 'review')
      await o.octokit.rest.reactions.createForPullRequestReviewComment({
        ...o.repo,
        comment_id: c.id,
        content: 'eyes',
      });
  } catch (e) {
    warn('could not react to the comment', e);
  }
}

/** What the final comment and the job summary both show. */
interface ClosingWords {
  result: ActionResult;
  /** The model's closing words, made inert and capped. */
  summary: string;
  table: string;
}

function closingWordsOf(result: ActionResult, elapsedMs: number): ClosingWords {
  const table = renderResultTable(result, result.stats, elapsedMs);
  // The model's closing words: capped, so the final edit is not refused and the outcome stays visible.
  const summary = capBody(makeInert(result.summary));
  return { result, summary, table };
}

/** The progress comment's last body: status, closing words, notes, table, and the triage marker if any. */
function renderFinished(
  o: ProgressOptions,
  view: View,
  { marker, outcome, extra }: { marker: string; outcome: ClosingWords; extra?: string },
): string {
  const { result, table } = outcome;
  // A question's answer is its reply, posted once: this comment links it rather than repeat it.
  const summary = answerLinkOf(result) ?? outcome.summary;
  // A triage's durable marker goes in this last edit: the last write of the run, so it covers the issue's updated_at.
  const triaged = result.triaged ? `\n${formatTriagedMarker(result.triaged.seen, o.runId)}` : '';
  return `${marker}\n### ${o.title}: ${STATUS_TEXT[result.status]}\n${askedIn(o.comment)}\n${summary}${renderChecklist(view.todos)}${renderNotes(view)}\n\n${table}${extra ? `\n\n${extra}` : ''}${runLink(o)}${triaged}`;
}

/** The job summary, when the action writes one; a failure is only logged. */
async function writeJobSummary(o: ProgressOptions, view: View, outcome: ClosingWords): Promise<void> {
  if (!o.writeSummary) return;
  const { result, summary, table } = outcome;
  try {
    const sandbox = o.sandboxLine?.();
    await o.writeSummary(
      `## ${o.title}: ${STATUS_TEXT[result.status]}\n\n${summary}${renderChecklist(view.todos)}${renderNotes(view)}\n\n${table}\n${sandbox ? `\n${escapeMd(sandbox)}\n` : ''}${renderHooks(view.hooks)}${renderDeniedMcp(view.deniedMcp)}`,
    );
  } catch (e) {
    o.log.warning(`could not write the job summary: ${messageOf(e)}`);
  }
}

/** One loop event into the view; true when the comment shows it (warnings and hooks go to the log and the summary). */
function applyEvent(view: View, e: LoopEvent, log: Log): boolean {
  switch (e.type) {
    case 'tool_use':
      view.toolCalls++;
      return true;
    case 'tool_state':
      if (e.title) view.step = e.title;
      return true;
    case 'tool_result':
      if (!e.ok) view.failedCalls++;
      if (!e.ok && e.error?.code === 'denied' && e.mcp) noteDeniedMcp(view, { ...e, mcp: e.mcp }, log);
      view.recent = [...view.recent, `${e.ok ? '✓' : '✗'} ${e.forHuman ?? e.name}`].slice(-5);
      return true;
    case 'message':
      if (e.role === 'assistant' && !e.delta) view.step = 'thinking';
      return true;
    case 'retry':
      view.step = `model busy (${e.reason}); retrying`;
      return true;
    case 'approval_request':
      view.step = 'waiting for a maintainer';
      return true;
    case 'todos':
      view.todos = e.todos;
      return true;
    case 'warning':
      // An MCP server that exited, a repaired history: the job log says so.
      log.warning(e.message);
      return false;
    case 'hook':
      view.hooks.push(e);
      if (e.outcome === 'warning' || e.outcome === 'timeout')
        log.warning(`hook ${e.name} (${e.event}): ${e.message ?? e.outcome}`);
      return false;
    default:
      return false;
  }
}

/**
 * A denied MCP call, in the log at once with the rule that would allow it (a call nobody allowed
 * is denied in a workflow, and the model's retry of it would otherwise be the only trace).
 */
function noteDeniedMcp(
  view: View,
  e: { name: string; output: string; error?: { message: string }; mcp: { server: string } },
  log: Log,
): void {
  const reason = (e.error?.message ?? e.output).split('\n')[0]!;
  const rule = mcpAllowRule(e.mcp.server, e.name);
  log.warning(
    `MCP call ${e.name} (server ${e.mcp.server}) was denied: ${reason}\nTo allow it, add this rule to the \`policy\` input (or a .gemini/policies/*.toml of the trusted commit):\n${rule}`,
  );
  if (!view.deniedMcp.some((d) => d.name === e.name))
    view.deniedMcp.push({ name: e.name, server: e.mcp.server, reason, rule });
}

/** The job summary's list of denied MCP tools, each with its rule; nothing when none was denied. */
function renderDeniedMcp(denied: readonly DeniedMcpCall[]): string {
  if (denied.length === 0) return '';
  const shown = denied
    .slice(0, DENIED_MCP_SHOWN)
    .map(
      (d) =>
        `- \`${d.name}\` (server \`${d.server}\`): ${escapeMd(d.reason.slice(0, 300))}\n\n  \`\`\`toml\n${d.rule.trimEnd().replace(/^/gm, '  ')}\n  \`\`\``,
    );
  const more =
    denied.length > DENIED_MCP_SHOWN ? `\n\n(and ${denied.length - DENIED_MCP_SHOWN} more: see the log)` : '';
  return `\n### Denied MCP calls\n\nNo rule allowed these; a rule like the one under each, in the \`policy\` input, would:\n\n${shown.join('\n')}${more}\n`;
}

const STATUS_TEXT: Record<ActionResult['status'], string> = {
  success: 'done',
  awaiting_approval: 'waiting for approval',
  failed: 'failed',
  skipped: 'skipped',
};

/**
 * Where the command was asked, when that is not this conversation: a line linking the review thread
 * (or the review). The URL is GitHub's own (`html_url` of the event); anything else is not linked.
 */
function askedIn(c: CommentRef | undefined): string {
  if (!c || c.kind === 'issue' || !c.htmlUrl || !/^https?:\/\/[^\s()<>[\]]+$/.test(c.htmlUrl)) return '';
  return `\nAsked in [${c.kind === 'review' ? 'a review thread' : 'a review'}](${c.htmlUrl}).\n`;
}

/** The line that points at a question's answer; the URL is GitHub's own (the reply's `html_url`). */
function answerLinkOf(result: ActionResult): string | undefined {
  const url = result.answeredIn;
  // A run that also failed at something keeps its whole summary: the problems are listed in it.
  return result.status === 'success' && url && /^https?:\/\/[^\s()<>[\]]+$/.test(url)
    ? `Answered [in this reply](${url}).`
    : undefined;
}

const runLink = (o: ProgressOptions) => (o.runUrl ? `\n\n[Workflow run](${o.runUrl})` : '');

function renderRunning(o: ProgressOptions, v: View, marker: string): string {
  const recent = v.recent.length ? `\n\n${v.recent.map((r) => `- ${escapeMd(r)}`).join('\n')}` : '';
  return `${marker}\n### ${o.title}: working\n${askedIn(o.comment)}\nCurrent step: ${escapeMd(v.step)}\nTool calls so far: ${v.toolCalls}${v.failedCalls ? ` (${v.failedCalls} failed)` : ''}${renderChecklist(v.todos)}${renderNotes(v)}${recent}${runLink(o)}`;
}

const renderNotes = (v: View) =>
  v.notes.length ? `\n\n${v.notes.map((n) => `> **Note:** ${escapeMd(n)}`).join('\n>\n')}` : '';

const HOOK_OUTCOMES: Record<HookRunEvent['outcome'], string> = {
  ok: 'ok',
  blocked: 'blocked',
  warning: 'failed (ignored)',
  timeout: 'timed out (ignored)',
};

/** Every hook run of the job, in order, for the job summary; nothing when no hook ran. */
function renderHooks(runs: readonly HookRunEvent[]): string {
  if (runs.length === 0) return '';
  const rows = runs.map(
    (r) =>
      `| ${r.event} | ${escapeCell(r.name)} | ${HOOK_OUTCOMES[r.outcome]}${r.exitCode !== null ? ` (exit ${r.exitCode})` : ''} | ${r.durationMs < 1000 ? `${r.durationMs} ms` : formatDuration(r.durationMs)} | ${escapeCell(r.message ?? '')} |`,
  );
  return `\n### Hooks\n\n| event | hook | outcome | time | message |\n| --- | --- | --- | --- | --- |\n${rows.join('\n')}\n`;
}

const escapeCell = (s: string) => escapeMd(s.slice(0, 300)).replace(/\|/g, '\\|');

/** ActionOutcome, turns, tokens, cost, duration: the same table in the comment and the job summary. */
export function renderResultTable(result: ActionResult, stats: RunStats | undefined, elapsedMs: number): string {
  const rows: Array<[string, string]> = [
    ['ActionOutcome', result.status],
    ['Turns', String(stats?.turns ?? 0)],
    ['Tokens', `${stats?.totalTokens ?? 0} (${stats?.inputTokens ?? 0} in, ${stats?.outputTokens ?? 0} out)`],
    ['Tool calls', String(stats?.toolCalls ?? 0)],
    ['Cost', `$${formatUsd(stats?.costUsd ?? 0)}`],
    ['Duration', formatDuration(stats?.durationMs ?? elapsedMs)],
  ];
  if (result.branch) rows.push(['Branch', `\`${result.branch}\``]);
  if (result.pullRequest) rows.push(['Pull request', `#${result.pullRequest}`]);
  if (result.labels?.length) rows.push(['Labels', result.labels.join(', ')]);
  return `| | |\n| --- | --- |\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}`;
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** One line of the model's or the tools' words (step titles, results): no HTML, no mentions. */
const escapeMd = (s: string) => makeInert(s.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;')).replace(/\n/g, ' '));
