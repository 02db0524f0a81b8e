/**
 * The per-run context of the GitHub face: what every step after routing and authorization receives,
 * including the approval code (src/action/approval/: suspend and resume). Types only.
 */
import type { Agent, AgentOptions } from '../compose/prepare-agent.js';
import type { Emit, RunStats } from '../core/events.js';
import type { GitRemote } from '../git/git.js';
import type { PublishRecorder } from '../tools/github/recorder.js';
import type { TaskKind } from '../common/task-kinds.js';
import type { Command, Requester, Thread, Trigger } from './event-command.js';
import type { OwnAccount } from './authorize.js';
import type { GitHubClient } from './github-client.js';
import type { ActionSettings, RunnerEnv } from './inputs.js';
import type { ActionSandbox, StartedActionSandbox } from './action-sandbox.js';
import type { HeldSession } from './approval/suspend.js';
import type { ThreadInfo } from './task-context.js';
import type { TrustedConfigSource } from './trusted-config.js';
import type { WorkTreeStart } from './work-tree.js';

export interface RepoRef {
  owner: string;
  repo: string;
}

type ActionStatus = 'success' | 'awaiting_approval' | 'failed' | 'skipped';

/** What a run ends with: becomes the action's outputs and the progress comment's last edit. */
export interface ActionResult {
  status: ActionStatus;
  summary: string;
  /** `output-schema`: the final answer that matched it, as JSON text. */
  structuredOutput?: string;
  sessionId?: string;
  branch?: string;
  pullRequest?: number;
  reviewId?: number;
  labels?: string[];
  /** A question's answer, posted as a reply: its page. The progress comment links it instead of repeating it. */
  answeredIn?: string;
  /**
   * A triage of one issue that published: the progress comment's last edit carries the triaged
   * marker with the updated_at it saw (`seen`), so the nightly plan skips the issue until
   * it changes (src/action/triage/triage-marker.ts).
   */
  triaged?: { seen: string };
  stats?: RunStats;
  /** triage-plan: the strategy.matrix value (JSON) and its number of shards. */
  shards?: string;
  shardCount?: number;
  /** GitHub API requests the run made, retries included (triage plan and shards count them). */
  apiCalls?: number;
}

export interface Log {
  info(line: string): void;
  notice(line: string): void;
  warning(line: string): void;
  /** Folds a phase in the job log. */
  group<T>(title: string, fn: () => Promise<T>): Promise<T>;
}

/** The one progress comment of a run (and the job summary), edited as the run goes. */
export interface ProgressReporter {
  /** The loop's events: current step, tool calls so far; edits are throttled. */
  readonly emit: Emit;
  /** A line of status outside the loop ("publishing", "waiting for approval"). */
  step(text: string): void;
  /** A line that stays in the comment to the end (text cut to fit the budget, say). */
  note(text: string): void;
  /** Rewrites the comment with the outcome and writes the job summary. */
  finish(result: ActionResult, extra?: string): Promise<void>;
  /** The comment's id once posted (undefined before, or when the run has no thread). */
  commentId(): number | undefined;
}

/** A task the agent runs: the command kind and the maintainer's words after it. */
export interface AgentTask {
  command: TaskKind;
  instructions?: string;
  /** Read policies, settings and memory from this commit (a resumed session's); default: the run's. */
  trustedCommit?: string;
}

/** An agent prepared for a task (prepare-run.ts), and what its run needs to end (end-run.ts). */
export interface PreparedRun {
  agent: Agent;
  recorder: PublishRecorder;
  task: AgentTask;
  /** The loop's event sink (progress comment, log). */
  emit: Emit;
  /** The first user message for `agent.start`. */
  prompt: string;
  /** The commit the agent's policies, settings and memory were read from (recorded in a session). */
  trustedCommit?: string;
  /**
   * The session ref this run holds: the one a resumed run claimed, or the one its first checkpoint
   * created (approval/suspend.ts). endRun suspends onto it, or marks it finished.
   */
  held?: HeldSession;
}

/**
 * One command's run on one thread (or none), as a value: made once by run-task.ts (openRun), then
 * handed to prepareRun, the approval code and endRun. Its only fields written after that are the
 * work tree a resume restores, the sandbox probe's answer and the agents to close.
 */
export interface RunContext {
  octokit: GitHubClient;
  repo: RepoRef;
  runner: RunnerEnv;
  settings: ActionSettings;
  command: Exclude<Command, { kind: 'skip' }>;
  trigger: Trigger;
  thread?: Thread;
  requester: Requester;
  /** GITHUB_WORKSPACE: the checked-out repository. */
  workspace: string;
  /** Where pushes and fetches go, read before the model ran, with the token for those processes only. */
  remote: GitRemote;
  /**
   * The work tree as the agent got it (src/action/work-tree.ts): the commit its work goes on (a pull
   * request's head) and what earlier steps of the job left, never committed. A resumed run takes its
   * session's (approval/resume.ts). Undefined: the workspace has no commit.
   */
  workTree?: WorkTreeStart;
  /** The account the action posts as: whose question comments and ledger count (authorize.ts isOurs). */
  own: OwnAccount;
  /** Link to this workflow run, for comments. */
  runUrl?: string;
  progress: ProgressReporter;
  log: Log;
  /** Secrets to keep out of everything posted and every command's environment. */
  secrets: string[];
  /** The thread's title, body, comments and pull request, read once (task-context.ts). */
  info?: ThreadInfo;
  /** A triage's allowed labels (publish/labels.ts). */
  labels?: string[];
  /** Where the trusted configuration is read from: a commit, never the work tree (trusted-config.ts). */
  trusted: TrustedConfigSource;
  /** The run's sandbox, made at once; its probe runs until `awaitSandbox` (run-task.ts) has its answer. */
  sandbox: StartedActionSandbox;
  /** What the probe found, once awaited: the approval question says where an approved command runs. */
  probed?: ActionSandbox;
  /** Tests pass a scripted model; AgentOptions.model.client. */
  modelClient?: AgentOptions['model']['client'];
  /** When the run started (ms since the epoch): its duration in the stats. */
  startedAt: number;
  /** The agents prepareRun made: closed when the run ends, MCP servers and hooks with them. */
  agents: Agent[];
}

/** An approval reply (`/agent approve|deny|answer|continue ...`) with its thread and comment. */
export type ReplyCommand = Extract<Command, { kind: 'reply' }>;
