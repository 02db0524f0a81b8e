/**
 * A GitHub-face run context for the approval glue: real Octokit against the loopback GitHub server,
 * real git clones of a bare origin (one per simulated runner), and a scripted Agent (our own
 * interface) that edits the work tree before it asks and records what it is resumed with.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent, AgentRun } from '../../src/compose/prepare-agent.js';
import type { RunState } from '../../src/core/run-state.js';
import { createRunState } from '../../src/core/run-state.js';
import type { ReplyCommand } from '../../src/action/run-context.js';
import type { ActionResult, RunContext, AgentTask, PreparedRun } from '../../src/action/run-context.js';
import type { ActionSandbox } from '../../src/action/action-sandbox.js';
import type { SuspendDeps } from '../../src/action/approval/suspend.js';
import type { Resumed } from '../../src/action/prepare-run.js';
import type { PublishInput } from '../../src/action/publish/publish-run.js';
import { runTask, type RunSeams } from '../../src/action/run-task.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import type { ActionSettings } from '../../src/action/inputs.js';
import { createOwnAccount } from '../../src/action/authorize.js';
import { createGitHubClient } from '../../src/action/github-client.js';
import type { ApprovalAnswer, PendingApproval } from '../../src/scheduler/types.js';
import { createPublishRecorder, type PublishRecord } from '../../src/tools/github/recorder.js';
import type { FakeGitHub } from '../support/fake-github.js';
import { git, makeTempDir } from '../support/git-repo.js';

export const SHELL_CALL: PendingApproval = {
  id: 'call-1',
  name: 'run_shell_command',
  args: { command: 'npm install left-pad' },
  title: 'run `npm install left-pad`',
  rule: { source: '.gemini/policies/deps.toml', line: 3, tier: 'workspace', priority: 3.5, decision: 'ask_user' },
};

interface ResumeCall {
  state: RunState;
  answers: readonly ApprovalAnswer[];
  /** The work tree's files as the agent saw them when resumed. */
  seen: Record<string, string>;
}

/** What the scripted agent does: first run edits and asks; a resume either finishes or asks again. */
interface AgentScript {
  onResume?: (root: string, answers: readonly ApprovalAnswer[]) => 'finish' | PendingApproval[];
}

export const BINARY = Buffer.from([0, 159, 146, 150, 255, 0, 10, 13]);

function createScriptedAgent(root: string, script: AgentScript, resumes: ResumeCall[]): Agent {
  const awaiting = (state: RunState, pending: PendingApproval[]): AgentRun => {
    state.open = { version: 1, calls: pending.map((p) => ({ status: 'awaiting_approval', id: p.id })) };
    return { outcome: { status: 'awaiting_approval', pending }, state };
  };
  return {
    policy: undefined as never,
    systemPrompt: '',
    memorySources: [],
    close: async () => undefined,
    warnings: [],
    async start(prompt) {
      const state = createRunState('sess-1', 'gemini-test', 'autoEdit');
      state.history.push({ role: 'user', parts: [{ text: prompt }] });
      state.history.push({
        role: 'model',
        parts: [
          {
            functionCall: { id: 'call-1', name: 'run_shell_command', args: SHELL_CALL.args },
            thoughtSignature: 'sig==',
          },
        ],
      });
      state.turns = 1;
      state.usage.totalTokens = 500;
      state.costUsd = 0.002;
      // Work done before the question: an edit, a new binary file in a new folder, a deletion.
      writeFileSync(join(root, 'src.txt'), 'edited before asking\n');
      writeFileSync(join(root, 'blob.bin'), BINARY);
      rmSync(join(root, 'old.txt'));
      return awaiting(state, [SHELL_CALL]);
    },
    async resume(state, answers) {
      const seen: Record<string, string> = {};
      for (const f of ['src.txt', 'blob.bin', 'old.txt']) {
        try {
          seen[f] = readFileSync(join(root, f)).toString('base64');
        } catch {
          seen[f] = '(missing)';
        }
      }
      resumes.push({ state: structuredClone(state), answers, seen });
      state.open = undefined;
      state.turns += 1;
      const next = script.onResume?.(root, answers) ?? 'finish';
      if (next === 'finish') {
        if (answers.some((a) => a.kind === 'approve')) appendFileSync(join(root, 'src.txt'), 'command ran\n');
        return { outcome: { status: 'success', finalText: 'done' }, state };
      }
      return awaiting(state, next);
    },
    send() {
      throw new Error('the action never sends a follow-up prompt');
    },
    expandCommand() {
      throw new Error('the scripted agent runs no custom command');
    },
    toolKind: () => undefined,
  };
}

export interface Runner {
  root: string;
  ctx: RunContext;
  /** The scripted agent for a task, as the real prepareRun would make it. */
  prepare(task: AgentTask, resumed?: Resumed): Promise<PreparedRun>;
  /** The scripted agent, and publishing recorded: what runTask is given (answerReply). */
  seams: RunSeams;
  resumes: ResumeCall[];
  finished: ActionResult[];
  progress: Array<{ result: ActionResult; extra?: string }>;
  logs: string[];
}

export interface RunnerOptions {
  requester?: string;
  threadNumber?: number;
  script?: AgentScript;
  record?: PublishRecord[];
  /** The Gemini API key the session key is derived from (a rotation changes it). */
  apiKey?: string;
  sessionKey?: string;
  /** The tasks prepareRun was asked for (a resume passes the session's trusted commit). */
  tasks?: AgentTask[];
}

/** One simulated workflow run: its own clone of origin, its own context. */
export function createRunner(gh: FakeGitHub, origin: string, opts: RunnerOptions = {}): Runner {
  const root = makeTempDir('agent-action-runner-');
  git(root, 'clone', '-q', origin, '.');
  const resumes: ResumeCall[] = [];
  const finished: ActionResult[] = [];
  const progress: Runner['progress'] = [];
  const logs: string[] = [];
  const agent = createScriptedAgent(root, opts.script ?? {}, resumes);
  const startCommit = git(root, 'rev-parse', 'HEAD');
  const thread = { number: opts.threadNumber ?? 7, isPullRequest: false };
  const requester = { login: opts.requester ?? 'maintainer', isBot: false };
  const settings = {
    trigger: '/agent',
    approvalTimeoutMs: 7 * 24 * 3600_000,
    model: 'gemini-test',
    geminiApiKey: opts.apiKey ?? 'AIza-harness-key',
    sessionKey: opts.sessionKey,
  } as ActionSettings;
  const octokit = createGitHubClient({
    token: 'ghs_test_token_123',
    baseUrl: gh.url,
    secrets: ['ghs_test_token_123'],
    pacing: 'none',
    retryAfterBaseMs: 1,
    retries: 0,
  });
  const ctx: RunContext = {
    octokit,
    own: createOwnAccount(octokit),
    repo: { owner: gh.state.owner, repo: gh.state.repo },
    runner: {} as RunContext['runner'],
    settings,
    command: { kind: 'fix', text: 'fix the sum', trigger: { requester, thread, needsWrite: true } },
    trigger: { requester, thread, needsWrite: true },
    thread,
    requester,
    workspace: root,
    remote: { url: origin },
    runUrl: 'https://github.test/octo/hello/actions/runs/1',
    progress: {
      emit: () => undefined,
      step: () => undefined,
      note: () => undefined,
      finish: async (result, extra) => void progress.push({ result, extra }),
      commentId: () => undefined,
    },
    log: {
      info: (l) => void logs.push(l),
      notice: (l) => void logs.push(l),
      warning: (l) => void logs.push(l),
      group: (_t, fn) => fn(),
    },
    secrets: ['ghs_test_token_123'],
    // Where the real prepareRun reads policies and settings: the scripted agent below needs none.
    trusted: {
      read: () => Promise.reject(new Error('the scripted agent reads no trusted configuration')),
      dispose: async () => undefined,
    },
    sandbox: { sandbox: UNCONFINED.sandbox, ready: async () => UNCONFINED },
    startedAt: Date.now(),
    agents: [],
  };
  // As prepare-run.ts: the session's commit on resume, else the commit the run started on; a resumed run holds its claim.
  const prepare = async (_ctx: RunContext, task: AgentTask, resumed?: Resumed): Promise<PreparedRun> => {
    opts.record?.push(resumed?.record ?? { reviewComments: [], replies: [] });
    opts.tasks?.push(task);
    const trustedCommit = task.trustedCommit ?? startCommit;
    return {
      agent,
      recorder: createPublishRecorder(resumed?.record),
      task,
      emit: () => undefined,
      prompt: 'Fix the sum',
      trustedCommit,
      held: resumed?.held,
    };
  };
  // The published result of a run that did not suspend, recorded instead of commits and comments.
  const publish = async (_ctx: RunContext, p: PublishInput): Promise<ActionResult> => {
    const result: ActionResult = {
      status: p.run.outcome.status === 'success' ? 'success' : 'failed',
      summary: `finished: ${p.run.outcome.status}`,
      stats: p.stats,
    };
    finished.push(result);
    return result;
  };
  return {
    root,
    ctx,
    resumes,
    finished,
    progress,
    logs,
    prepare: (task, resumed) => prepare(ctx, task, resumed),
    seams: { prepare, publish },
  };
}

/** A reply handled as run-task.ts handles it: claimed, the agent prepared and resumed, endRun. */
export const answerReply = (runner: Runner, reply: ReplyCommand, deps: SuspendDeps = {}): Promise<ActionResult> =>
  runTask(runner.ctx, reply, { ...deps, ...runner.seams });

/** The probe's answer the harness runs with: no sandbox, as `sandbox: off` says. */
const UNCONFINED: ActionSandbox = {
  sandbox: { mode: 'off' } as Sandbox,
  status: { kind: 'unconfined', warning: 'sandbox: off' },
  summary: '',
};

/** A reply comment as the router hands it over. */
export function replyFrom(
  gh: FakeGitHub,
  body: string,
  login = 'maintainer',
  opts: { isBot?: boolean; threadNumber?: number; createdAt?: string } = {},
): ReplyCommand {
  const n = opts.threadNumber ?? 7;
  const c = gh.addComment(n, body, { login, type: opts.isBot ? 'Bot' : 'User' }, opts.createdAt);
  const verb = /^\/agent\s+(\w+)/.exec(body)?.[1] as ReplyCommand['verb'];
  const requester = { login, isBot: Boolean(opts.isBot) };
  return {
    kind: 'reply',
    verb,
    args: body.replace(/^\/agent\s+\w+\s*/, ''),
    trigger: {
      requester,
      thread: { number: n, isPullRequest: false },
      comment: { id: c.id, kind: 'issue', body, createdAt: c.created_at },
      needsWrite: true,
    },
  };
}
