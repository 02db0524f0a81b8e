/**
 * One command on one thread (or none): progress comment, thread context, trusted configuration,
 * the agent, then suspend or publish. `createRunContext` builds the ActionRunContext the approval
 * code also receives. The approval code (a reply, a suspension, a checkpoint) and the labels are
 * loaded when a run reaches them: a question that finishes never loads them.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { messageOf } from '../common/errors.js';
import { createSubagents } from '../agents/create-subagents.js';
import { prepareAgent, type Agent, type AgentOptions, type AgentRun } from '../compose/prepare-agent.js';
import { readExtensionSettings } from '../core/settings-extensions.js';
import { commandEnvOf } from '../sandbox/command-env.js';
import { statsOf } from '../core/stats.js';
import { capRequest, describeCuts, renderTaskContext } from '../context/task-context.js';
import type { ApprovalChannel } from '../scheduler/types.js';
import { createGitHubTools } from '../tools/github/publish-tools.js';
import { createPublishRecorder } from '../tools/github/recorder.js';
import { startActionSandbox, type ActionSandbox, type ActionSandboxOptions } from './action-sandbox.js';
import type { Sandbox } from '../sandbox/types.js';
import type { AwaitingRun, createCheckpointer, HeldSession } from './approval/suspend.js';
import type { RunState } from '../core/run-state.js';
import type { GitRemote } from '../git/git.js';
import type { Command, Thread } from './event-command.js';
import type { OwnAccount } from './authorize.js';
import type { GitHubClient } from './github-client.js';
import { defaultModeFor, type ActionSettings, type PolicyInput, type RunnerEnv } from './inputs.js';
import { createProgressComment } from './progress-comment.js';
import { publishRun } from './publish/publish-run.js';
import type { ActionResult, ActionRunContext, AgentTask, Log, PreparedRun, RepoRef } from './run-context.js';
import { readThreadInfo, type ThreadInfo } from './task-context.js';
import { createTrustedConfigSource, readHeadCommit, type TrustedConfigSource } from './trusted-config.js';
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

/** In a workflow nobody waits at a terminal: every question becomes a comment and the run suspends. */
const deferToComment: ApprovalChannel = { decide: async () => 'defer' };

export async function runCommand(base: RunBase, command: ThreadCommand, thread: Thread | undefined): Promise<ActionResult> {
  const runUrl = base.runner.runId ? `${base.runner.serverUrl}/${base.repo.owner}/${base.repo.repo}/actions/runs/${base.runner.runId}` : undefined;
  const progress = createProgressComment({
    octokit: base.octokit,
    repo: base.repo,
    thread,
    comment: command.trigger.comment,
    runUrl,
    runId: base.runner.runId,
    title: `agent-action ${command.kind === 'reply' ? command.verb : command.kind}`,
    log: base.log,
    writeSummary: base.writeSummary,
    sandboxLine: () => base.sandbox?.summary,
    own: base.own,
  });
  await progress.start();
  // The sandbox's probe runs while the thread, the trusted configuration and the agent are read and
  // prepared; it is awaited (sandboxReady) before the agent starts or a reply resumes one, so no tool
  // runs before its answer is known, and a probe that fails fails the run before any tool.
  const known = base.sandbox;
  const started = known ? { sandbox: known.sandbox, ready: async () => known } : startActionSandbox({ settings: base.settings, log: base.log, hostEnv: process.env, ...base.sandboxProbe });
  const sandboxReady = async () => (base.sandbox ??= await base.log.group('sandbox', started.ready));
  const labels = command.kind === 'triage' ? await (await import('./publish/labels.js')).readAllowedLabels(base.octokit, base.repo, base.settings) : undefined;
  const info = thread
    ? await base.log.group('read thread', () =>
        readThreadInfo(base.octokit, base.repo, { thread, trigger: command.trigger.comment, requester: command.trigger.requester.login, availableLabels: labels }),
      )
    : undefined;
  // Before the trusted configuration is read and the agent starts: the tree it works on (a pull
  // request's head, whatever the workflow checked out) and what earlier steps left in it. A reply
  // restores its session's tree instead (approval/resume.ts).
  const workTree = command.kind === 'reply' ? undefined : await setUpWorkTree(base, progress, { thread, info });
  // Trusted configuration comes from a commit: a pull request's base, else HEAD now, before any agent change.
  const trusted = createTrustedConfigSource({
    workspace: base.runner.workspace,
    startCommit: info?.pull?.baseSha ?? (await readHeadCommit(base.runner.workspace)),
    contextFileNames: base.settings.contextFileNames,
    remote: base.remote,
  });
  const ctx = createRunContext(base, { command, thread, progress, runUrl, trusted, info, labels, sandbox: started.sandbox, workTree });

  let result: ActionResult;
  try {
    if (command.kind === 'reply') {
      await sandboxReady();
      result = await (await import('./approval/resume.js')).handleApprovalReply(ctx, command);
    } else {
      const prepared = await ctx.prepareRun({ command: command.kind, instructions: command.text || undefined });
      await sandboxReady();
      const run = await base.log.group('agent', () => prepared.agent.start(prepared.prompt, prepared.emit));
      result = await ctx.finishRun(run, prepared);
    }
  } catch (e) {
    result = { status: 'failed', summary: messageOf(e) };
    await progress.finish(result, base.sandbox?.note);
    throw e;
  } finally {
    // MCP servers and hooks end with the run, before their trusted .gemini/ snapshot goes (which goes
    // even when they fail to stop).
    try {
      await ctx.dispose?.();
    } finally {
      await trusted.dispose();
    }
  }
  // The progress comment (or the reaction) refused for want of a permission: not a green run.
  const refusal = progress.refusal();
  if (refusal && result.status === 'success') result = { ...result, status: 'failed', summary: `${refusal}\n\n${result.summary}` };
  await progress.finish(result, base.sandbox?.note);
  return result;
}

/** prepareWorkTree, its notes in the progress comment; a failure (the head could not be fetched) ends the run, saying why. */
async function setUpWorkTree(base: RunBase, progress: ActionRunContext['progress'], where: { thread?: Thread; info?: ThreadInfo }): Promise<WorkTreeStart | undefined> {
  const { thread, info } = where;
  try {
    const pull = thread?.isPullRequest ? { number: thread.number, baseSha: info?.pull?.baseSha } : undefined;
    const prepared = await base.log.group('work tree', async () => {
      const p = await prepareWorkTree({ root: base.runner.workspace, remote: base.remote, pull });
      if (p) base.log.info(p.logLine);
      return p;
    });
    for (const n of prepared?.notes ?? []) progress.note(n);
    return prepared && { head: prepared.head, leftovers: prepared.leftovers };
  } catch (e) {
    await progress.finish({ status: 'failed', summary: messageOf(e) }, base.sandbox?.note);
    throw e;
  }
}

/** What one task's run context is built from, besides the run's base. */
interface RunContextParts {
  command: ThreadCommand;
  thread: Thread | undefined;
  progress: ActionRunContext['progress'];
  runUrl: string | undefined;
  trusted: TrustedConfigSource;
  info: ThreadInfo | undefined;
  labels: string[] | undefined;
  /** The run's sandbox, its probe maybe still running (runCommand awaits it before the agent starts). */
  sandbox: Sandbox;
  workTree: WorkTreeStart | undefined;
}

function createRunContext(base: RunBase, { command, thread, progress, runUrl, trusted, info, labels, sandbox, workTree }: RunContextParts): ActionRunContext {
  const ws = base.runner.workspace;
  const startedAt = Date.now();
  let checkpointer: ReturnType<typeof createCheckpointer> | undefined;
  let lastCheckpoint = startedAt;
  const agents: Agent[] = [];
  const ctx: ActionRunContext = {
    octokit: base.octokit,
    repo: base.repo,
    runner: base.runner,
    settings: base.settings,
    command,
    trigger: command.trigger,
    thread,
    requester: command.trigger.requester,
    workspace: ws,
    remote: base.remote,
    workTree,
    own: base.own,
    runUrl,
    progress,
    log: base.log,
    secrets: base.secrets,
    // Read when a run suspends, after the probe's answer (a getter: the context is made before it).
    get sandbox() {
      return base.sandbox && { mode: base.sandbox.sandbox.mode, status: base.sandbox.status };
    },
    async prepareRun(task, record) {
      const recorder = createPublishRecorder(record);
      // Untrusted text goes to the model once, within its budget; the progress comment says what was cut.
      const rendered = info ? renderTaskContext(info.context) : undefined;
      const request = capRequest(task.instructions);
      const cuts = [...(rendered?.cuts ?? []), ...(request.cut ? [request.cut] : [])];
      if (cuts.length > 0) progress.note(describeCuts(cuts));
      const config = await trusted.read(task.trustedCommit);
      base.log.info(`trusted configuration: ${config.fromCommit ? `commit ${config.fromCommit}` : 'none (the workspace has no commit)'}`);
      // MCP servers and hooks: the trusted commit's settings.json, and the workflow's own input.
      const ext = await readExtensionSettings({
        files: [
          { path: join(config.memoryRoot, '.gemini', 'settings.json'), label: `.gemini/settings.json${config.fromCommit ? ` (commit ${config.fromCommit.slice(0, 12)})` : ''}`, origin: 'repository' },
        ],
        inputServers: base.settings.mcpServers,
        env: { ...commandEnvOf(process.env, base.secrets), ...base.settings.sandboxEnv },
      });
      for (const w of ext.warnings) base.log.warning(w);
      let prepared: PreparedRun | undefined;
      const agent = await prepareAgent({
        model: { name: base.settings.model, apiKey: base.settings.geminiApiKey, baseUrl: base.settings.geminiBaseUrl, client: base.modelClient },
        workspace: { root: ws, memoryRoot: config.memoryRoot, contextFileNames: base.settings.contextFileNames },
        policy: {
          context: 'action',
          mode: base.settings.approvalMode ?? defaultModeFor(task.command),
          workspace: [{ path: config.policyDir, optional: true }, ...ext.policy.workspace],
          user: [...policySources(base.settings.policy, 'policy', ws), ...ext.policy.user],
          admin: policySources(base.settings.adminPolicy, 'admin-policy', ws),
        },
        extensions: {
          mcp: { servers: ext.servers, selection: ext.selection, start: base.settings.mcpStart },
          hooks: ext.hooks,
          configDir: config.geminiDir,
          network: base.settings.sandboxNetwork,
        },
        task: {
          command: task.command,
          instructions: task.instructions,
          taskContext: rendered?.text,
          availableLabels: labels,
          repo: `${base.repo.owner}/${base.repo.repo}`,
          // Nobody in CI types "go on": a reply that announces its next step is judged and continued.
          nextSpeaker: { enabled: true },
        },
        tools: {
          extra: createGitHubTools(task.command),
          recorder,
          askUser: task.command === 'fix' || task.command === 'question' || task.command === 'prompt',
          subagents: createSubagents,
        },
        limits: { maxTurns: base.settings.maxTurns, maxWallMs: base.settings.timeoutMs, maxCostUsd: base.settings.maxCostUsd },
        secrets: base.secrets,
        commands: { passEnv: base.settings.sandboxEnv, sandbox },
        io: {
          channel: deferToComment,
          onBatchSettled: record
            ? undefined // a resumed run: resume.ts holds the claimed session and saves it itself
            : // A long run saves its session after a settled batch (at most every checkpointEveryMs),
              // so a runner that dies leaves something `/agent continue` resumes.
              async (state) => {
                if (!prepared || !thread || Date.now() - lastCheckpoint < base.runner.checkpointEveryMs) return;
                lastCheckpoint = Date.now();
                const { createCheckpointer } = await import('./approval/suspend.js');
                checkpointer ??= createCheckpointer(ctx, { prepared });
                try {
                  await checkpointer.save(state);
                } catch (e) {
                  base.log.warning(`could not save a checkpoint (the run goes on): ${messageOf(e)}`);
                }
              },
        },
      });
      agents.push(agent);
      for (const w of agent.warnings) base.log.warning(w);
      for (const s of agent.mcp?.status() ?? []) {
        if (s.state === 'failed' || s.state === 'blocked') progress.note(`MCP server ${s.name} ${s.state === 'failed' ? 'did not start' : 'was not started'}: ${s.reason}`);
        else if (s.state === 'ready') base.log.info(`MCP server ${s.name}: ${s.tools.length} tools (${s.startMs} ms)`);
      }
      const emit = progress.emit;
      prepared = { agent, recorder, task, emit, prompt: promptFor({ ...task, instructions: request.text }, thread), trustedCommit: config.fromCommit } satisfies PreparedRun;
      return prepared;
    },
    async dispose() {
      await Promise.all(agents.splice(0).map((a) => a.close().catch((e: unknown) => base.log.warning(`could not stop the agent's MCP servers or hooks: ${messageOf(e)}`))));
    },
    async finishRun(run: AgentRun, prepared: PreparedRun) {
      // The loop is over: its MCP servers stop and SessionEnd hooks run before anything is published.
      await prepared.agent.close();
      if (run.outcome.status === 'awaiting_approval') return (await import('./approval/suspend.js')).suspendSession(ctx, { run: run as AwaitingRun, prepared, held: checkpointer?.held() });
      progress.step('publishing');
      const stats = statsOf(run.state, Date.now() - startedAt);
      const result = await publishRun(ctx, { run, task: prepared.task, record: prepared.recorder.snapshot(), info, stats });
      await closeCheckpoint(ctx, checkpointer?.held(), run.state);
      return result;
    },
  };
  return ctx;
}

/** A checkpointed run that ended: mark its session finished, so `/agent continue` never picks it up. */
async function closeCheckpoint(ctx: ActionRunContext, held: HeldSession | undefined, state: RunState): Promise<void> {
  if (!held) return;
  const store = (await import('./approval/suspend.js')).storeFor(ctx, {});
  const { nextVersionOf } = await import('../session/codec.js');
  const doc = nextVersionOf({ ...held.doc, state, request: { ...held.doc.request, status: 'finished' as const }, updatedAt: new Date().toISOString() }, held.doc);
  const closed = await store.update(doc.id, held.version, doc);
  if (!closed.ok) return ctx.log.warning(`session ${doc.id}: could not mark the checkpoint finished: ${closed.message}`);
  // Finished is the newest version: the ref moved back to a checkpoint is refused, not run again.
  await (await import('./approval/session-ledger.js')).tryRecordVersion(ctx, doc);
}

export function policySources(p: PolicyInput, input: string, ws: string) {
  if (p.kind === 'none') return [];
  if (p.kind === 'inline') return [{ inline: p.toml, label: `input '${input}'` }];
  return p.paths.map((path) => (isAbsolute(path) ? path : resolve(ws, path)));
}

/** The user message that starts the loop; the task context (fenced) goes before it. */
function promptFor(task: AgentTask, thread?: Thread): string {
  const where = thread ? `${thread.isPullRequest ? 'pull request' : 'issue'} #${thread.number}` : 'this repository';
  const extra = task.instructions ? `\n\nThe maintainer's instructions:\n${task.instructions}` : '';
  switch (task.command) {
    case 'fix':
      return `Fix ${where}. Make the change in the work tree and check it; it is committed and pushed for you when you finish.${extra}`;
    case 'review':
      return `Review ${where}. Record findings with add_review_comment on lines of the diff, then summarize.${task.instructions ? `\n\nFocus on:\n${task.instructions}` : ''}`;
    case 'triage':
      return `Triage ${where}: choose fitting labels from the repository's labels with set_labels, and reply only if something is missing from the report.${extra}`;
    case 'question':
      return `Answer the maintainer's question about ${where}:\n${task.instructions ?? ''}`;
    case 'prompt':
      return task.instructions ?? '';
  }
}
