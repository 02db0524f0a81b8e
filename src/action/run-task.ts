/**
 * A command that passed routing, from its GitHub client to its result. `runRouted` authorizes it and
 * picks its run (help, triage, or a task on a thread); `runCommand` is that task's one path:
 * openRun (progress comment, thread, work tree, trusted configuration: the RunContext), then
 * `runTask`: prepareRun, the agent (started, or resumed by a reply), endRun.
 */
import { messageOf } from '../common/errors.js';
import type { AgentOptions } from '../compose/prepare-agent.js';
import type { GitRemote } from '../git/git.js';
import { startActionSandbox, type ActionSandbox, type ActionSandboxOptions } from './action-sandbox.js';
import { readActionRemote } from './action-remote.js';
import { claimReply, tellRefusedReplier, type Resumption } from './approval/resume.js';
import { authorize, createOwnAccount, SELF_LOGINS, type OwnAccount } from './authorize.js';
import { endRun, type EndSeams } from './end-run.js';
import type { Command, Thread } from './event-command.js';
import { createGitHubClient, type GitHubClient } from './github-client.js';
import { replyWithHelp } from './help-comment.js';
import { readTrustedCommands } from './custom-command.js';
import { readGeminiExtensions } from '../core/gemini-extensions.js';
import { join } from 'node:path';
import type { ActionSettings, RunnerEnv } from './inputs.js';
import type { ActionFace } from './main.js';
import { createProgressComment, type ProgressComment } from './progress-comment.js';
import { readAllowedLabels } from './publish/labels.js';
import { prepareRun } from './prepare-run.js';
import type { ActionOutcome } from './report.js';
import type { ActionResult, Log, RepoRef, RunContext } from './run-context.js';
import { readThreadInfo } from './task-context.js';
import { runTriagePlan, runTriageShard, triageAll } from './triage/run-triage.js';
import { createTrustedConfigSource, readHeadCommit } from './trusted-config.js';
import { snapshotContextNames } from './trusted-settings.js';
import { uncommittedSettingsWarning } from './uncommitted-settings.js';
import { prepareWorkTree, type WorkTreeStart } from './work-tree.js';

export interface RunBase {
  octokit: GitHubClient;
  repo: RepoRef;
  settings: ActionSettings;
  runner: RunnerEnv;
  log: Log;
  secrets: string[];
  /** Where pushes and fetches go: read when the action started (src/action/action-remote.ts). */
  remote: GitRemote;
  /** The account the action posts as: whose markers and questions count (authorize.ts isOurs). */
  own: OwnAccount;
  writeSummary?: (markdown: string) => Promise<void>;
  /** Tests pass a scripted model; AgentOptions.model.client. */
  modelClient?: AgentOptions['model']['client'];
  /** Where commands run; prepared (probed once) by the first command of the run. Tests inject one. */
  sandbox?: ActionSandbox;
  /** Tests inject the probe's answer (and the remedy) of the sandbox a command starts; production runs bwrap. */
  sandboxProbe?: Pick<ActionSandboxOptions, 'probe' | 'remedy'>;
}

type ThreadCommand = Exclude<Command, { kind: 'skip' | 'triage-all' | 'help' | 'triage-plan' | 'triage-shard' }>;

/** What main.ts read before routing: the inputs' settings, the runner's variables, the secrets so far. */
export interface Read {
  settings: ActionSettings;
  runner: RunnerEnv;
  secrets: string[];
}

/** A routed command (the event is for the agent): its client, who asked, then its run. */
export async function runRouted(
  face: ActionFace,
  { settings, runner, secrets }: Read,
  command: Exclude<Command, { kind: 'skip' }>,
): Promise<ActionOutcome> {
  let apiCalls = 0;
  const octokit = createGitHubClient({
    token: settings.githubToken,
    baseUrl: runner.apiUrl,
    secrets,
    log: face.log.info,
    pacing: runner.pacing,
    retryAfterBaseMs: face.retryAfterBaseMs,
    onHttpRequest: () => void apiCalls++,
  });
  const repo = runner.repository;
  const auth = await authorize(octokit, repo, {
    allowedBots: settings.allowedBots,
    selfLogins: SELF_LOGINS,
    trigger: command.trigger,
    answersApproval: command.kind === 'reply',
  });
  if (!auth.allowed) {
    face.log.notice(`agent-action: not run: ${auth.reason}`);
    if (command.kind === 'reply') await tellRefusedReplier(command, { octokit, repo, log: face.log });
    return done({ status: 'skipped', summary: auth.reason });
  }
  if (command.kind === 'help')
    return done(
      await replyWithHelp(octokit, repo, {
        thread: command.trigger.thread,
        trigger: settings.trigger,
        fixLabel: settings.fixLabel,
        commands: await readHelpCommands(runner.workspace, settings, face.log),
      }),
    );

  // Before any model runs: where pushes go is read now, from the checkout as actions/checkout left it.
  const remote = await readActionRemote({
    workspace: runner.workspace,
    token: settings.githubToken,
    serverUrl: runner.serverUrl,
    repository: repo,
  });
  const own = createOwnAccount(octokit, face.log.warning);
  const base: RunBase = {
    octokit,
    repo,
    settings,
    runner,
    log: face.log,
    secrets,
    remote,
    own,
    writeSummary: face.writeSummary,
    modelClient: face.modelClient,
  };
  const triage = { apiCalls: () => apiCalls, clock: face.clock };
  if (command.kind === 'triage-plan') return done(await runTriagePlan(base, triage));
  if (command.kind === 'triage-shard') return done(await runTriageShard(base, command.issues, triage));
  if (command.kind === 'triage-all') return done(await triageAll(base, triage));
  return done(await runCommand(base, command, command.trigger.thread));
}

const done = (result: ActionOutcome['result']): ActionOutcome => ({ result, errors: [] });

/** The custom commands of the commit the run started on, for `/agent help`; none when it cannot be read. */
async function readHelpCommands(workspace: string, settings: ActionSettings, log: Log) {
  const trusted = createTrustedConfigSource({
    workspace,
    startCommit: await readHeadCommit(workspace),
    contextFileNames: settings.contextFileNames,
  });
  try {
    const config = await trusted.read();
    const { extensions } = await readGeminiExtensions(
      [{ dir: join(config.geminiDir, 'extensions'), label: '.gemini/extensions', origin: 'repository' }],
      { workspace },
    );
    const set = await readTrustedCommands(config.geminiDir, extensions);
    return [...set.commands.values()].map(({ name, description }) => ({ name, description }));
  } catch (e) {
    log.warning(`could not read the repository's custom commands for the help: ${messageOf(e)}`);
    return [];
  } finally {
    await trusted.dispose();
  }
}

/** One task on one thread (or none): its context opened, run, closed; the progress comment's last edit. */
export async function runCommand(
  base: RunBase,
  command: ThreadCommand,
  thread: Thread | undefined,
): Promise<ActionResult> {
  const runUrl = base.runner.runId
    ? `${base.runner.serverUrl}/${base.repo.owner}/${base.repo.repo}/actions/runs/${base.runner.runId}`
    : undefined;
  let ctx: RunContext | undefined;
  const progress = createProgressComment({
    octokit: base.octokit,
    repo: base.repo,
    thread,
    comment: command.trigger.comment,
    runUrl,
    runId: base.runner.runId,
    title: `agent-action ${command.kind === 'reply' ? command.verb : command.kind}`,
    log: base.log,
    throttleMs: base.runner.progressEveryMs,
    writeSummary: base.writeSummary,
    sandboxLine: () => (ctx?.probed ?? base.sandbox)?.summary,
    own: base.own,
  });
  await progress.start();
  ctx = await openRun(base, { command, thread, progress, runUrl });
  let result: ActionResult;
  try {
    result = await runTask(ctx, command);
  } catch (e) {
    result = { status: 'failed', summary: messageOf(e) };
    await progress.finish(result, ctx.probed?.note);
    throw e;
  } finally {
    base.sandbox ??= ctx.probed;
    // MCP servers and hooks end with the run, before their trusted .gemini/ snapshot goes (which goes
    // even when they fail to stop).
    try {
      await closeAgents(ctx);
    } finally {
      await ctx.trusted.dispose();
    }
  }
  // The progress comment (or the reaction) refused for want of a permission: not a green run.
  const refusal = progress.refusal();
  if (refusal && result.status === 'success')
    result = { ...result, status: 'failed', summary: `${refusal}\n\n${result.summary}` };
  await progress.finish(result, ctx.probed?.note);
  return result;
}

/** How a run is prepared, and endRun's seams: tests set them; production passes none. */
export interface RunSeams extends EndSeams {
  prepare?: typeof prepareRun;
}

/**
 * The run itself, the same for a new task and a reply: what to run (a reply claims its session and
 * restores its tree first), prepareRun, the agent, endRun.
 */
export async function runTask(ctx: RunContext, command: ThreadCommand, seams: RunSeams = {}): Promise<ActionResult> {
  let start: Partial<Resumption> & Pick<Resumption, 'task'>;
  if (command.kind === 'reply') {
    // The probe's answer before the claim: a sandbox that cannot run leaves the request open.
    await awaitSandbox(ctx);
    const claimed = await claimReply(ctx, command, seams);
    if (!claimed.ok) return claimed.result;
    start = claimed.resumption;
  } else {
    start = { task: { command: command.kind, instructions: command.text || undefined } };
  }
  const { resumed, answers = [] } = start;
  const prepared = await (seams.prepare ?? prepareRun)(ctx, start.task, resumed);
  // No tool runs, and no hook or session starts, before the probe's answer is known.
  await awaitSandbox(ctx);
  const run = await ctx.log.group('agent', () =>
    resumed
      ? prepared.agent.resume(resumed.held.doc.state, answers, prepared.emit)
      : prepared.agent.start(prepared.prompt, prepared.emit),
  );
  return endRun(ctx, { run, prepared }, seams);
}

/** The sandbox probe's answer, once: a probe that failed fails the run before any tool. */
async function awaitSandbox(ctx: RunContext): Promise<void> {
  ctx.probed ??= await ctx.log.group('sandbox', ctx.sandbox.ready);
}

async function closeAgents(ctx: RunContext): Promise<void> {
  await Promise.all(
    ctx.agents
      .splice(0)
      .map((a) =>
        a
          .close()
          .catch((e: unknown) => ctx.log.warning(`could not stop the agent's MCP servers or hooks: ${messageOf(e)}`)),
      ),
  );
}

/** What a run's context is opened with, besides the run's base. */
interface RunStart {
  command: ThreadCommand;
  thread: Thread | undefined;
  progress: ProgressComment;
  runUrl: string | undefined;
}

/**
 * The RunContext of one task: the sandbox started (its probe runs while the rest is read), the
 * thread read, the work tree set up, and where trusted configuration comes from.
 */
async function openRun(base: RunBase, { command, thread, progress, runUrl }: RunStart): Promise<RunContext> {
  const known = base.sandbox;
  const sandbox = known
    ? { sandbox: known.sandbox, ready: async () => known }
    : startActionSandbox({ settings: base.settings, log: base.log, hostEnv: process.env, ...base.sandboxProbe });
  const labels =
    command.kind === 'triage' ? await readAllowedLabels(base.octokit, base.repo, base.settings) : undefined;
  const info = thread
    ? await base.log.group('read thread', () =>
        readThreadInfo(base.octokit, base.repo, {
          thread,
          trigger: command.trigger.comment,
          requester: command.trigger.requester.login,
          availableLabels: labels,
        }),
      )
    : undefined;
  // Before the trusted configuration is read and the agent starts: the tree it works on (a pull
  // request's head, whatever the workflow checked out) and what earlier steps left in it. A reply
  // restores its session's tree instead (approval/resume.ts).
  const workTree =
    command.kind === 'reply'
      ? undefined
      : await setUpWorkTree(base, progress, thread && { thread, baseSha: info?.pull?.baseSha });
  // Trusted configuration comes from a commit: a pull request's base, else HEAD now, before any agent change.
  const trusted = createTrustedConfigSource({
    workspace: base.runner.workspace,
    startCommit: info?.pull?.baseSha ?? (await readHeadCommit(base.runner.workspace)),
    contextFileNames: snapshotContextNames(base.settings),
    remote: base.remote,
  });
  const { octokit, repo, runner, settings, remote, own, log, secrets, modelClient } = base;
  const { trigger } = command;
  return {
    octokit,
    repo,
    runner,
    settings,
    remote,
    own,
    log,
    secrets,
    modelClient,
    command,
    trigger,
    thread,
    requester: trigger.requester,
    workspace: runner.workspace,
    workTree,
    runUrl,
    progress,
    info,
    labels,
    trusted,
    sandbox,
    startedAt: Date.now(),
    agents: [],
  };
}

/** prepareWorkTree, its notes in the progress comment; a failure (the head could not be fetched) ends the run, saying why. */
async function setUpWorkTree(
  base: RunBase,
  progress: ProgressComment,
  where: { thread: Thread; baseSha: string | undefined } | undefined,
): Promise<WorkTreeStart | undefined> {
  try {
    const pull = where?.thread.isPullRequest ? { number: where.thread.number, baseSha: where.baseSha } : undefined;
    const prepared = await base.log.group('work tree', async () => {
      const p = await prepareWorkTree({
        root: base.runner.workspace,
        remote: base.remote,
        pull,
        ...(!pull && base.settings.baseBranch ? { branch: base.settings.baseBranch } : {}),
      });
      if (p) base.log.info(p.logLine);
      return p;
    });
    for (const n of prepared?.notes ?? []) progress.note(n);
    const ignored = prepared && uncommittedSettingsWarning(prepared.leftovers);
    if (ignored) {
      base.log.warning(ignored);
      progress.note(ignored);
    }
    return prepared && { head: prepared.head, leftovers: prepared.leftovers };
  } catch (e) {
    await progress.finish({ status: 'failed', summary: messageOf(e) }, base.sandbox?.note);
    throw e;
  }
}
