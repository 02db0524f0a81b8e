/**
 * prepareRun: the agent for one task of a run. Untrusted thread text within its budget, the trusted
 * configuration of a commit (policies, settings, memory, MCP servers and hooks), the GitHub recorder
 * tools, the run's limits and sandbox. The one call of prepareAgent for a thread's task.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { messageOf } from '../common/errors.js';
import { createSubagents } from '../agents/create-subagents.js';
import { prepareAgent, type AgentOptions } from '../compose/prepare-agent.js';
import type { RunState } from '../core/run-state.js';
import { readExtensionSettings } from '../core/settings-extensions.js';
import { capRequest, describeCuts, renderTaskContext } from '../context/task-context.js';
import { commandEnvOf } from '../sandbox/command-env.js';
import type { ApprovalChannel } from '../scheduler/types.js';
import { createGitHubTools } from '../tools/github/publish-tools.js';
import { createPublishRecorder, type PublishRecord } from '../tools/github/recorder.js';
import { createCheckpointer, type HeldSession } from './approval/suspend.js';
import { threadImageParts } from './fetch-images.js';
import { readPullDiffSides } from './publish/review.js';
import type { Thread } from './event-command.js';
import { defaultModeFor, INPUT_DEFAULTS, type PolicyInput } from './inputs.js';
import type { AgentTask, PreparedRun, RunContext } from './run-context.js';
import type { TrustedConfig } from './trusted-config.js';
import { readTrustedCommands, resolveCustomCommand, type ResolvedCommand } from './custom-command.js';
import { displayRuleSource } from './rule-source.js';
import { extensionContextFiles, readGeminiExtensions, type GeminiExtension } from '../core/gemini-extensions.js';
import { expandVariables } from '../tools/mcp/env-expand.js';
import { readTrustedSettings } from './trusted-settings.js';
import { credentialFilesOf } from '../tools/hidden-files.js';

/** A resumed run's session: what was recorded before it suspended, and the claim it holds. */
export interface Resumed {
  record?: PublishRecord;
  held: HeldSession;
}

/** In a workflow nobody waits at a terminal: every question becomes a comment and the run suspends. */
const deferToComment: ApprovalChannel = { decide: async () => 'defer' };

export async function prepareRun(ctx: RunContext, given: AgentTask, resumed?: Resumed): Promise<PreparedRun> {
  let task = given;
  // Untrusted text goes to the model once, within its budget; the progress comment says what was cut.
  const rendered = ctx.info ? renderTaskContext(ctx.info.context) : undefined;
  const request = capRequest(task.instructions);
  const cuts = [...(rendered?.cuts ?? []), ...(request.cut ? [request.cut] : [])];
  if (cuts.length > 0) ctx.progress.note(describeCuts(cuts));
  const config = await ctx.trusted.read(task.trustedCommit);
  ctx.log.info(
    `trusted configuration: ${config.fromCommit ? `commit ${config.fromCommit}` : 'none (the workspace has no commit)'}`,
  );
  // A custom command of the trusted commit that the task names (custom-command.ts); a resumed run has its prompt.
  const extensions = await trustedExtensionsOf(ctx, config);
  const custom = resumed
    ? {}
    : await customCommandOf(ctx, { config, extensions }, { ...task, instructions: request.text });
  if (custom.resolved) task = { ...task, command: 'prompt' };
  const recorder = createPublishRecorder(resumed?.record, undefined, await readSuggestionLines(ctx, task));
  const prepared: Omit<PreparedRun, 'agent'> = {
    recorder,
    task,
    emit: ctx.progress.emit,
    prompt: promptFor({ ...task, instructions: request.text }, ctx.thread),
    trustedCommit: config.fromCommit,
    held: resumed?.held,
  };
  const images = resumed ? undefined : await threadImages(ctx);
  if (images?.note) ctx.progress.note(images.note);
  const options = await agentOptionsFor(ctx, { task, config, extensions, taskContext: rendered?.text, recorder });
  if (images?.parts.length) options.task.taskImages = images.parts;
  // A fresh run saves its session after a settled batch (at most every checkpointEveryMs), so a
  // runner that dies leaves something `/agent continue` resumes. A resumed run holds its claim and
  // saves at its end only.
  const agent = await prepareAgent({
    ...options,
    io: { ...options.io, ...(resumed ? {} : { onBatchSettled: checkpointing(ctx, prepared) }) },
  });
  // The same object the checkpoint hook holds: a checkpoint's session is the run's from then on.
  const run: PreparedRun = Object.assign(prepared, { agent });
  ctx.agents.push(run.agent);
  for (const w of run.agent.warnings) ctx.log.warning(w);
  if (custom.resolved) run.prompt = await expandCustom(ctx, agent, custom.resolved);
  for (const s of run.agent.mcp?.status() ?? []) {
    if (s.state === 'failed' || s.state === 'blocked')
      ctx.progress.note(
        `MCP server ${s.name} ${s.state === 'failed' ? 'did not start' : 'was not started'}: ${s.reason}`,
      );
    else if (s.state === 'ready') ctx.log.info(`MCP server ${s.name}: ${s.tools.length} tools (${s.startMs} ms)`);
  }
  return run;
}

/**
 * The images of the thread's body and of the triggering comment, fetched from GitHub's hosts with the
 * job's token, as parts of the first message (a resumed run's model saw them already).
 */
async function threadImages(ctx: RunContext) {
  const c = ctx.info?.context;
  if (!c) return undefined;
  const hosts = { serverUrl: ctx.runner.serverUrl, owner: ctx.repo.owner, repo: ctx.repo.repo };
  return threadImageParts([c.body, c.trigger?.body ?? ''], {
    hosts,
    token: ctx.settings.githubToken,
    log: (line) => ctx.log.info(line),
  });
}

/**
 * A pull request's new-version lines per file, for a task that may record review comments: the
 * review tool refuses a suggestion on lines the diff does not show while the model can still act
 * on it. Unreadable: no check now (publishing checks again and puts such a comment in the body).
 */
async function readSuggestionLines(
  ctx: RunContext,
  task: AgentTask,
): Promise<Map<string, ReadonlySet<number>> | undefined> {
  if (!ctx.thread?.isPullRequest || (task.command !== 'review' && task.command !== 'prompt')) return undefined;
  try {
    const files = await readPullDiffSides(ctx.octokit, ctx.repo, ctx.thread.number);
    return new Map([...files].map(([path, sides]) => [path, sides.RIGHT]));
  } catch (e) {
    ctx.log.warning(
      `could not read the pull request's diff; suggestions are checked when the review is posted: ${messageOf(e)}`,
    );
    return undefined;
  }
}

/** What the agent's options are made of, besides the run: the task, its trusted configuration, its recorder. */
interface AgentParts {
  task: AgentTask;
  config: TrustedConfig;
  extensions: GeminiExtension[];
  taskContext: string | undefined;
  recorder: PreparedRun['recorder'];
}

async function agentOptionsFor(
  ctx: RunContext,
  { task, config, extensions, taskContext, recorder }: AgentParts,
): Promise<AgentOptions> {
  const { settings, workspace: ws } = ctx;
  const runSettings = await readTrustedSettings(config, settings.settingsInput, (w) => ctx.log.warning(w));
  // MCP servers and hooks: the trusted commit's settings.json, and the workflow's own inputs.
  const ext = readExtensionSettings({
    layers: runSettings.layers,
    inputServers: settings.mcpServers,
    extensions,
    network: { names: settings.mcpNetwork, label: "input 'mcp-network'" },
    env: { ...commandEnvOf(process.env, ctx.secrets), ...settings.sandboxEnv },
  });
  for (const w of ext.warnings) ctx.log.warning(w);
  return {
    model: {
      name: settings.model,
      apiKey: settings.geminiApiKey,
      vertex: settings.vertex,
      baseUrl: settings.geminiBaseUrl,
      client: ctx.modelClient,
    },
    // context-file-names set to other than its default wins over the settings' context.fileName.
    workspace: {
      root: ws,
      memoryRoot: config.memoryRoot,
      ...(settings.contextFileNames.join('\n') !== INPUT_DEFAULTS['context-file-names'] && {
        contextFileNames: settings.contextFileNames,
      }),
      extensionContextFiles: extensionContextFiles(extensions),
      hidden: credentialFilesOf(ws, process.env, ctx.workTree?.leftovers.map((l) => l.path) ?? []),
    },
    settings: runSettings,
    policy: {
      context: 'action',
      mode: settings.approvalMode ?? defaultModeFor(task.command),
      workspace: [{ path: config.policyDir, optional: true }, ...ext.policy.workspace],
      user: [...policySources(settings.policy, 'policy', ws), ...ext.policy.user],
      admin: policySources(settings.adminPolicy, 'admin-policy', ws),
      // The probe's answer for the sandbox commands run in: the shipped policy's sandboxed rule
      // (policies/shell.toml) runs commands without asking only when they are really confined.
      // A failed probe is no sandbox; the run fails on it at ready(), so nothing is left unhandled.
      sandboxed: ctx.sandbox.sandbox.status().then(
        (s) => s.kind === 'sandboxed',
        () => false,
      ),
    },
    extensions: {
      mcp: { servers: ext.servers, selection: ext.selection, start: settings.mcpStart },
      hooks: ext.hooks,
      configDir: config.geminiDir,
      network: settings.sandboxNetwork,
    },
    task: {
      command: task.command,
      instructions: task.instructions,
      taskContext,
      availableLabels: ctx.labels,
      repo: `${ctx.repo.owner}/${ctx.repo.repo}`,
      // Nobody in CI types "go on": a reply that announces its next step is judged and continued.
      nextSpeaker: { enabled: true },
      outputSchema: settings.outputSchema,
    },
    tools: {
      extra: createGitHubTools(task.command),
      recorder,
      exclude: ext.excludeTools,
      askUser: task.command === 'fix' || task.command === 'question' || task.command === 'prompt',
      subagents: createSubagents,
    },
    limits: { maxTurns: settings.maxTurns, maxWallMs: settings.timeoutMs, maxCostUsd: settings.maxCostUsd },
    secrets: ctx.secrets,
    commands: { passEnv: settings.sandboxEnv, sandbox: ctx.sandbox.sandbox },
    io: { channel: deferToComment },
  };
}

/**
 * The trusted commit's Gemini CLI extensions. Their processes (MCP servers) see the trusted
 * `.gemini/` bound over the work tree's, so `${extensionPath}` names the extension there.
 */
async function trustedExtensionsOf(ctx: RunContext, config: TrustedConfig): Promise<GeminiExtension[]> {
  const env = { ...commandEnvOf(process.env, ctx.secrets), ...ctx.settings.sandboxEnv };
  const read = await readGeminiExtensions(
    [
      {
        dir: join(config.geminiDir, 'extensions'),
        label: '.gemini/extensions',
        origin: 'repository',
        runPathOf: (name) => join(ctx.workspace, '.gemini', 'extensions', name),
      },
    ],
    { workspace: ctx.workspace, expand: (v) => expandVariables(v, env).value },
  );
  for (const w of read.warnings) ctx.log.warning(w);
  for (const e of read.extensions) ctx.log.info(`extension ${e.name} ${e.version} (${e.label})`);
  return read.extensions;
}

/** The custom command the task names in the trusted commit, if any; an unknown `/name` prompt is a warning. */
async function customCommandOf(
  ctx: RunContext,
  { config, extensions }: { config: TrustedConfig; extensions: GeminiExtension[] },
  task: AgentTask,
) {
  const set = await readTrustedCommands(config.geminiDir, extensions);
  for (const w of set.warnings) ctx.log.warning(w);
  const found = resolveCustomCommand(task, set.commands);
  if (found.warning) {
    ctx.log.warning(found.warning);
    ctx.progress.note(found.warning);
  }
  if (found.resolved) ctx.log.info(`custom command /${found.resolved.command.name} (${found.resolved.command.label})`);
  return found;
}

/** The command's prompt; what could not be injected is noted; a refused `!{}` fails the run before the model (the progress comment says why). */
async function expandCustom(ctx: RunContext, agent: PreparedRun['agent'], r: ResolvedCommand): Promise<string> {
  const expanded = await agent.expandCommand(r.command, r.invocation, {
    showRuleSource: (s) => displayRuleSource(s, ctx.workspace),
  });
  for (const w of expanded.warnings) {
    ctx.log.warning(w);
    ctx.progress.note(w);
  }
  for (const c of expanded.ran) ctx.log.info(`/${r.command.name}: !{${c.command}} exited ${c.exitCode}`);
  return expanded.text;
}

/** The loop's after-batch hook of a fresh run: a checkpoint at most every checkpointEveryMs, its failure a warning. */
function checkpointing(ctx: RunContext, prepared: Omit<PreparedRun, 'agent'>): (state: RunState) => Promise<void> {
  let checkpointer: ReturnType<typeof createCheckpointer> | undefined;
  let last = ctx.startedAt;
  return async (state) => {
    if (!ctx.thread || Date.now() - last < ctx.runner.checkpointEveryMs) return;
    last = Date.now();
    checkpointer ??= createCheckpointer(ctx, { prepared });
    try {
      await checkpointer.save(state);
      prepared.held = checkpointer.held();
    } catch (e) {
      ctx.log.warning(`could not save a checkpoint (the run goes on): ${messageOf(e)}`);
    }
  };
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
