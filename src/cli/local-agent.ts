/**
 * The agent as the CLI's modes wire it on a developer's machine (`-p` and each ACP session): the
 * workspace's and the user's policy folders, the Gemini client from the environment, per-run
 * budgets, and the channel the mode asks people through.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createSubagents } from '../agents/create-subagents.js';
import { AgentError } from '../common/errors.js';
import { prepareAgent, type Agent, type AgentOptions } from '../compose/prepare-agent.js';
import type { RunState } from '../core/run-state.js';
import type { ExtensionOptions } from '../core/extensions.js';
import type { PolicySource } from '../policy/load.js';
import type { ModelClient } from '../model/client.js';
import { createGeminiClient } from '../model/gemini.js';
import type { ApprovalMode, PolicyContext } from '../policy/types.js';
import type { Sandbox } from '../sandbox/types.js';
import type { ApprovalChannel } from '../scheduler/types.js';
import type { TextFileAccess, Tool } from '../tools/define-tool.js';
import { readCliPassEnv } from './command-env.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface LocalAgentOptions {
  root: string;
  env: Env;
  model: string;
  mode: ApprovalMode;
  policyContext: PolicyContext;
  /** --policy and --admin-policy paths, already resolved and checked. */
  userPolicies: string[];
  adminPolicies: string[];
  /** Policy folders that MCP servers and extensions bring (cli-extensions.ts), per tier. */
  extensionPolicies?: { workspace: PolicySource[]; user: PolicySource[] };
  /** MCP servers and hooks from the trusted settings.json (cli-extensions.ts). */
  extensions?: ExtensionOptions;
  /** The user's and the (trusted) project's settings, merged (cli-extensions.ts readCliSettings). */
  settings?: AgentOptions['settings'];
  maxTurns: number;
  timeoutMinutes?: number;
  channel: ApprovalChannel;
  signal: AbortSignal;
  /** Wraps the Gemini client (the CLI's metrics time each request). */
  wrapModel?: (client: ModelClient) => ModelClient;
  files?: TextFileAccess;
  askUser?: boolean;
  extraTools?: Tool[];
  onBatchSettled?: (state: RunState) => Promise<void>;
  /** Where commands run; the mode's own (headless: from --sandbox; ACP: one for the server). */
  sandbox?: Sandbox;
  /** The project's folder is trusted (folder-trust.ts): only then are its .gemini/ policies, settings and agents used. */
  trusted: boolean;
}

/** The API key from the environment, or AgentError('auth') naming the variable. */
export function apiKeyOf(env: Env): string {
  const key = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
  if (!key) throw new AgentError('auth', 'no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a Gemini API key');
  return key;
}

/** What must never reach a tool's process, the model or the output: the API key and GitHub tokens. */
export function secretsOf(env: Env): string[] {
  return [apiKeyOf(env), env.GITHUB_TOKEN, env.GH_TOKEN].filter((s): s is string => !!s);
}

export const defaultModelOf = (env: Env): string => env.GEMINI_MODEL || 'gemini-2.5-pro';

export async function prepareLocalAgent(o: LocalAgentOptions): Promise<Agent> {
  const apiKey = apiKeyOf(o.env);
  // Its warnings were shown with readCliExtensions' (which reads the same setting).
  const pass = await readCliPassEnv(o.env);
  const client = createGeminiClient({ apiKey, baseUrl: o.env.GOOGLE_GEMINI_BASE_URL || undefined, model: o.model });
  return prepareAgent({
    model: { name: o.model, apiKey, client: o.wrapModel ? o.wrapModel(client) : client },
    workspace: {
      root: o.root,
      memoryRoot: o.root,
      ...(o.trusted ? {} : { untrusted: true }),
      ...(o.files ? { files: o.files } : {}),
    },
    policy: {
      context: o.policyContext,
      mode: o.mode,
      workspace: o.trusted
        ? [
            ...[join(o.root, '.gemini', 'policies')].filter((p) => existsSync(p)),
            ...(o.extensionPolicies?.workspace ?? []),
          ]
        : [],
      user: [
        ...[join(homedir(), '.gemini', 'policies')].filter((p) => existsSync(p)),
        ...o.userPolicies,
        ...(o.extensionPolicies?.user ?? []),
      ],
      admin: o.adminPolicies,
    },
    task: { command: 'prompt' },
    limits: { maxTurns: o.maxTurns, maxWallMs: (o.timeoutMinutes ?? 30) * 60_000, perRun: true },
    secrets: secretsOf(o.env),
    io: { channel: o.channel, signal: o.signal, ...(o.onBatchSettled ? { onBatchSettled: o.onBatchSettled } : {}) },
    commands: { baseEnv: o.env, passEnv: pass.env, ...(o.sandbox ? { sandbox: o.sandbox } : {}) },
    tools: {
      subagents: createSubagents,
      ...(o.askUser ? { askUser: true } : {}),
      ...(o.extraTools ? { extra: o.extraTools } : {}),
    },
    ...(o.extensions ? { extensions: o.extensions } : {}),
    ...(o.settings ? { settings: o.settings } : {}),
  });
}
