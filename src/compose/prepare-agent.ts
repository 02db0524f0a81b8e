/**
 * The composition root both faces call: policy, tools, memory, prompt, model client, scheduler and
 * the loop, wired from one grouped options object. Policy loads first, so a broken policy file
 * stops the run before any tool exists, let alone runs. It sits above agents/, whose sub-agent plug
 * the face passes in; the next-speaker check is on where the face or the trusted settings say so.
 */
import { buildSystemPrompt } from '../context/system-prompt.js';
import { createJitMemory } from '../context/jit-memory.js';
import { contextSettingsOf, loadMemory } from '../context/memory.js';
import { HONOURED_SETTINGS, unusedSettingsWarning, type RunSettings } from '../context/run-settings.js';
import { parseLoopSettings } from '../context/settings.js';
import { prepareExtensions } from '../core/extensions.js';
import { isMcpToolOffered, isToolOffered, readToolSettings, type ToolSettings } from '../core/settings-tools.js';
import { createNextSpeakerCheck } from '../core/next-speaker.js';
import { withRedaction } from '../core/redacted-model.js';
import type { ParentRun } from '../core/subagent-host.js';
import { AgentError } from '../common/errors.js';
import { createGeminiClient } from '../model/gemini.js';
import { loadPolicyWithDiagnostics } from '../policy/load.js';
import { formatDiagnostic } from '../policy/rule.js';
import type { ApprovalMode } from '../policy/types.js';
import { defaultSandbox } from '../sandbox/sandbox.js';
import { askUserTool } from '../tools/builtin/ask-user.js';
import { WRITE_TODOS } from '../tools/builtin/write-todos.js';
import type { Tool, ToolEnv } from '../tools/define-tool.js';
import { createToolSet } from '../tools/mcp/tool-set.js';
import { createDefaultTools, createToolRegistry } from '../tools/registry.js';
import { hideFromFileTools } from '../tools/hidden-files.js';
import type { Agent, AgentOptions } from './agent-options.js';
import { createAgent } from './agent-runs.js';

export type { Agent, AgentOptions, AgentRun } from './agent-options.js';

const DEFAULT_SHELL_TIMEOUT_MS = 5 * 60_000;

/** Throws AgentError('config') for a bad policy: before any tool runs. */
export async function prepareAgent(o: AgentOptions): Promise<Agent> {
  // Before anything can open a file: what no file tool of this run may touch (tools/hidden-files.ts).
  hideFromFileTools(o.workspace.root, o.workspace.hidden ?? []);
  // The face leaves out what it does not trust (the CLI: an untrusted folder's .gemini/settings.json).
  const settings = o.settings ?? NO_SETTINGS;
  const toolSettings = readToolSettings(settings.layers, settings.merged);
  const { engine: policy, warnings: policyDiagnostics } = await loadPolicyFor(o, toolSettings);
  const context = await readContext(o, settings);
  const baseTools = baseToolsOf(o, toolSettings);
  // MCP servers and hooks: after policy (a broken policy starts nothing). Warnings go to the face
  // until a run starts, then into the run's event stream.
  const extensionWarnings: string[] = [];
  let warn: (m: string) => void = (m) => void extensionWarnings.push(m);
  const baseEnv = o.commands?.baseEnv ?? process.env;
  const passEnv = o.commands?.passEnv && { passEnv: o.commands.passEnv };
  const extensions = await prepareExtensions(o.extensions, {
    root: o.workspace.root,
    sandbox: o.commands?.sandbox ?? defaultSandbox(),
    baseEnv,
    ...passEnv,
    secrets: o.secrets,
    warn: (m) => warn(m),
  });
  const env = toolEnvOf(o, context);
  const baseModel = redactedModelOf(o);
  const hooks = extensions.hooks;
  const model = hooks ? hooks.wrapModel(baseModel) : baseModel;

  // The run a sub-agent serves: set by start/resume before the loop runs.
  let current: ParentRun | undefined;
  const sub = await o.tools?.subagents?.({
    tools: baseTools,
    policy,
    channel: o.io.channel,
    env,
    model,
    ...(o.workspace.untrusted ? {} : { configRoot: o.workspace.memoryRoot }),
    memory: context.memory.text,
    limits: loopLimitsOf(o, context.loop.maxSessionTurns),
    ...(o.io.clock ? { clock: o.io.clock } : {}),
    agentOverrides: context.loop.agentOverrides,
    current: () => current ?? assertNever('a sub-agent ran outside a run'),
  });
  const registry = createToolSet(
    createToolRegistry([...baseTools, ...(sub?.tools ?? []).filter((t) => isToolOffered(t.name, false, toolSettings))]),
    extensions.mcp,
    (t) => isMcpToolOffered(t, toolSettings, o.tools?.exclude ?? []),
  );

  // The mode can change during a session (an editor's session/set_mode); its note in the prompt follows.
  const prompts = new Map<ApprovalMode, string>();
  const systemPromptFor = (mode: ApprovalMode): string => {
    let p = prompts.get(mode);
    if (p === undefined) {
      const { command, instructions, repo, availableLabels } = o.task;
      const subagents = sub?.agents ?? [];
      p = buildSystemPrompt({
        command,
        instructions,
        memory: context.memory.text,
        toolNames: registry.names(),
        repo,
        mode,
        availableLabels,
        subagents,
        investigateReviews: o.task.investigateReviews ?? true,
      });
      prompts.set(mode, p);
    }
    return p;
  };
  const speakerOn =
    context.loop.skipNextSpeakerCheck === undefined
      ? o.task.nextSpeaker?.enabled === true
      : !context.loop.skipNextSpeakerCheck;
  const unused = unusedSettingsWarning(settings.layers, [...HONOURED_SETTINGS, ...(o.settings?.alsoHonoured ?? [])]);
  const warnings = [
    ...policyDiagnostics.map(formatDiagnostic),
    ...toolSettings.warnings,
    ...(unused ? [unused] : []),
    ...context.warnings,
    ...(sub?.warnings ?? []),
    ...extensionWarnings,
  ];
  return createAgent({
    o: { ...o, limits: { ...o.limits, ...loopLimitsOf(o, context.loop.maxSessionTurns) } },
    policy,
    registry,
    model,
    baseModel,
    env,
    extensions,
    systemPromptFor,
    memorySources: context.memory.sources,
    warnings,
    ...(speakerOn && { afterTextTurn: createNextSpeakerCheck(o.task.nextSpeaker) }),
    onRun: (run) => {
      current = run;
      warn = (m: string) => run.emit({ type: 'warning', message: m });
    },
  });
}

/** The face's model client, or a Gemini client: what leaves for it is redacted, whoever built the request (the loop, compression, a hook). */
const redactedModelOf = (o: AgentOptions) =>
  withRedaction(
    o.model.client ??
      createGeminiClient({
        apiKey: o.model.apiKey,
        baseUrl: o.model.baseUrl,
        model: o.model.name,
        ...(o.model.vertex && { vertex: o.model.vertex }),
      }),
    o.secrets,
  );

/** The face's tiers with the rules the settings' `tools.*` imply. */
const loadPolicyFor = (o: AgentOptions, ts: ToolSettings) =>
  loadPolicyWithDiagnostics({
    context: o.policy.context,
    useBuiltinDefaults: !o.policy.noDefaults,
    workspace: o.workspace.root,
    tiers: {
      workspace: [...(o.policy.workspace ?? []), ...ts.policy.workspace],
      user: [...(o.policy.user ?? []), ...ts.policy.user],
      admin: o.policy.admin,
    },
    ...(o.policy.sandboxed && { sandboxed: o.policy.sandboxed }),
  });

const NO_SETTINGS: RunSettings = { layers: [], merged: {} };

/**
 * The run's budgets, as the loop (and a sub-agent's child loop) takes them. Gemini CLI's
 * `model.maxSessionTurns` is one more turn limit: the smaller of it and the face's wins.
 */
function loopLimitsOf({ limits: { perRun: _perRun, ...limits } }: AgentOptions, maxSessionTurns: number | undefined) {
  if (maxSessionTurns === undefined || (limits.maxTurns !== undefined && limits.maxTurns < maxSessionTurns))
    return limits;
  // The setting is the limit that stops the session: its message names it, as Gemini CLI's does.
  return { ...limits, maxTurns: maxSessionTurns, maxTurnsFromSettings: true };
}

const assertNever = (why: string): never => {
  throw new AgentError('internal', why);
};

/** The trusted context: which files are memory, what they say, and the loop's settings. */
async function readContext(o: AgentOptions, settings: RunSettings) {
  const { root, memoryRoot } = o.workspace;
  const label = settingsLabel(settings);
  // Context file names: the face's explicit list, else the trusted settings' context.fileName, else GEMINI.md.
  const names = o.workspace.contextFileNames
    ? { fileNames: o.workspace.contextFileNames, warnings: [] }
    : contextSettingsOf(settings.merged, label);
  const memory = await loadMemory({
    memoryRoot,
    workspaceRoot: root,
    cwd: root,
    fileNames: names.fileNames,
    globalFile: o.workspace.globalContextFile,
    ...(o.workspace.extensionContextFiles && { extraFiles: o.workspace.extensionContextFiles }),
  });
  const loop = parseLoopSettings(settings.merged, label);
  return {
    fileNames: names.fileNames,
    memory,
    loop,
    warnings: [...names.warnings, ...memory.warnings, ...loop.warnings],
  };
}

/** Warnings name the one scope the settings came from, or say they are merged. */
const settingsLabel = (s: RunSettings): string =>
  s.layers.length === 1 ? s.layers[0]!.label : `settings (${s.layers.map((l) => l.label).join(' + ')})`;

/**
 * The built-in tools the task may have (those `tools.core` lists, none `tools.exclude` names),
 * ask_user where a face can carry it, and the face's own (which only `tools.exclude` can remove).
 * An extension's `excludeTools` (`tools.exclude` of the options) leaves a tool out by name or alias
 * (its MCP tools are left out in createToolSet; its `run_shell_command(prefix)` entries are deny
 * rules, see settings-extensions.ts).
 * A read-only task keeps the plan tool: it touches nothing, and a review has steps too.
 */
function baseToolsOf(o: AgentOptions, ts: ToolSettings): Tool[] {
  const builtIn = [...createDefaultTools(), ...(o.tools?.askUser ? [askUserTool] : [])].filter(
    (t) =>
      (!o.tools?.readOnly || t.kind === 'read' || t.kind === 'search' || t.name === WRITE_TODOS || t === askUserTool) &&
      isToolOffered(t.name, true, ts),
  );
  const all = [...builtIn, ...(o.tools?.extra ?? []).filter((t) => isToolOffered(t.name, false, ts))];
  const exclude = new Set(o.tools?.exclude ?? []);
  return exclude.size ? all.filter((t) => ![t.name, ...(t.aliases ?? [])].some((n) => exclude.has(n))) : all;
}

/** What every tool call of the run gets: the workspace, the secrets, where commands run, memory. */
function toolEnvOf(o: AgentOptions, context: Awaited<ReturnType<typeof readContext>>): ToolEnv {
  const c = o.commands;
  return {
    root: o.workspace.root,
    secrets: o.secrets,
    baseEnv: c?.baseEnv ?? process.env,
    ...(c?.passEnv && { passEnv: c.passEnv }),
    shellTimeoutMs: c?.shellTimeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
    ...(c?.sandbox ? { sandbox: c.sandbox } : {}),
    memoryFor: createJitMemory({
      workspaceRoot: o.workspace.root,
      memoryRoot: o.workspace.memoryRoot,
      fileNames: context.fileNames,
      alreadyLoaded: context.memory.sources,
    }),
    recorder: o.tools?.recorder,
    ...(o.workspace.files ? { files: o.workspace.files } : {}),
  };
}
