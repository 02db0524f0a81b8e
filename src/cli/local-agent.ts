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
import { prepareAgent, type Agent } from '../compose/prepare-agent.js';
import type { RunState } from '../core/run-state.js';
import type { ExtensionOptions } from '../core/extensions.js';
import { extensionContextFiles } from '../core/gemini-extensions.js';
import type { CliExtensions } from './cli-extensions.js';
import type { ModelClient } from '../model/client.js';
import { createGeminiClient, type VertexTarget } from '../model/gemini.js';
import { readGoogleCredentials } from '../model/google-credentials.js';
import type { ApprovalMode, PolicyContext } from '../policy/types.js';
import type { Sandbox } from '../sandbox/types.js';
import type { ApprovalChannel } from '../scheduler/types.js';
import type { TextFileAccess, Tool } from '../tools/define-tool.js';
import { readCliPassEnv } from './command-env.js';
import { credentialFilesOf, rootNamesOf } from '../tools/hidden-files.js';

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

  /** MCP servers and hooks from the trusted settings.json (cli-extensions.ts). */
  extensions?: ExtensionOptions;
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
  /**
   * What settings.json and Gemini CLI extensions bring (cli-extensions.ts): policy rules per tier,
   * the extensions' context files (memory), excludeTools (tools left out), and the user's and the
   * (trusted) project's settings, merged.
   */
  extensionSettings?: Pick<CliExtensions, 'policy' | 'extensions' | 'excludeTools' | 'settings'>;
}

/** The API key from the environment, or AgentError('auth') naming the variable. */
function apiKeyOf(env: Env): string {
  const key = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
  if (!key) throw new AgentError('auth', 'no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a Gemini API key');
  return key;
}

interface ModelAuth {
  apiKey: string;
  vertex?: VertexTarget;
  /** The credentials file's secrets (google-credentials.ts). */
  secrets: string[];
}

/**
 * How Gemini CLI's environment reaches Gemini: an API key, or with GOOGLE_GENAI_USE_VERTEXAI=true
 * Vertex AI, by GOOGLE_API_KEY (express mode) or by Google Cloud credentials for
 * GOOGLE_CLOUD_PROJECT (the file GOOGLE_APPLICATION_CREDENTIALS names, else what
 * google-auth-library finds: gcloud's application-default login, a metadata server).
 * AgentError('auth') names what is missing.
 */
export function modelAuthOf(env: Env): ModelAuth {
  if (env.GOOGLE_GENAI_USE_VERTEXAI?.toLowerCase() !== 'true') return { apiKey: apiKeyOf(env), secrets: [] };
  const key = env.GOOGLE_API_KEY || env.GEMINI_API_KEY;
  if (key) return { apiKey: key, vertex: { auth: 'api-key' }, secrets: [] };
  const project = env.GOOGLE_CLOUD_PROJECT;
  if (!project)
    throw new AgentError(
      'auth',
      'Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true) needs GOOGLE_CLOUD_PROJECT, or GOOGLE_API_KEY for express mode',
    );
  const path = env.GOOGLE_APPLICATION_CREDENTIALS;
  const file = path ? readGoogleCredentials(path, 'GOOGLE_APPLICATION_CREDENTIALS') : undefined;
  if (file && 'error' in file) throw new AgentError('auth', file.error);
  const location = env.GOOGLE_CLOUD_LOCATION || 'global';
  return {
    apiKey: '',
    vertex: {
      auth: 'adc',
      project,
      location,
      ...(file && { credentials: file.credentials }),
      ...(file?.tokenUri && { tokenUri: file.tokenUri }),
    },
    secrets: file?.secrets ?? [],
  };
}

/** What must never reach a tool's process, the model or the output: the API key, credentials and GitHub tokens. */
export function secretsOf(env: Env): string[] {
  const auth = modelAuthOf(env);
  return [auth.apiKey, ...auth.secrets, env.GITHUB_TOKEN, env.GH_TOKEN].filter((s): s is string => !!s);
}

export const defaultModelOf = (env: Env): string => env.GEMINI_MODEL || 'gemini-2.5-pro';

export async function prepareLocalAgent(o: LocalAgentOptions): Promise<Agent> {
  const { apiKey, vertex } = modelAuthOf(o.env);
  // Its warnings were shown with readCliExtensions' (which reads the same setting).
  const pass = await readCliPassEnv(o.env);
  const baseUrl = (vertex ? o.env.GOOGLE_VERTEX_BASE_URL : o.env.GOOGLE_GEMINI_BASE_URL) || undefined;
  const client = createGeminiClient({ apiKey, baseUrl, model: o.model, ...(vertex && { vertex }) });
  return prepareAgent({
    model: { name: o.model, apiKey, client: o.wrapModel ? o.wrapModel(client) : client },
    workspace: {
      root: o.root,
      memoryRoot: o.root,
      hidden: credentialFilesOf(o.root, o.env, rootNamesOf(o.root)),
      ...(o.trusted ? {} : { untrusted: true }),
      ...(o.files ? { files: o.files } : {}),
      ...(o.extensionSettings && { extensionContextFiles: extensionContextFiles(o.extensionSettings.extensions) }),
    },
    policy: {
      context: o.policyContext,
      mode: o.mode,
      workspace: o.trusted
        ? [
            ...[join(o.root, '.gemini', 'policies')].filter((p) => existsSync(p)),
            ...(o.extensionSettings?.policy.workspace ?? []),
          ]
        : [],
      user: [
        ...[join(homedir(), '.gemini', 'policies')].filter((p) => existsSync(p)),
        ...o.userPolicies,
        ...(o.extensionSettings?.policy.user ?? []),
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
      ...(o.extensionSettings && { exclude: o.extensionSettings.excludeTools }),
    },
    ...(o.extensions ? { extensions: o.extensions } : {}),
    ...(o.extensionSettings?.settings ? { settings: o.extensionSettings.settings } : {}),
  });
}
