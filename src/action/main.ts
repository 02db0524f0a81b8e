/**
 * The action, as a table of contents: inputs (secrets masked first) -> event -> command ->
 * authorization -> one run per thread -> result. Everything it touches outside comes in as `face`.
 */
import { readFile } from 'node:fs/promises';
import { AgentError, messageOf } from '../common/errors.js';
import { routeEvent } from './event-command.js';
import { readActionRemote } from './action-remote.js';
import { authorize, SELF_LOGINS } from './authorize.js';
import { tellRefusedReplier } from './approval/resume.js';
import { createGitHubClient } from './github-client.js';
import { readInputs, type Env } from './inputs.js';
import type { ActionResult, Log } from './run-context.js';
import { runCommand, type RunBase } from './run-task.js';

/** What main needs from the runner (the @actions/core toolkit in index.ts, plain functions in tests). */
export interface ActionFace {
  env: Env;
  setSecret(value: string): void;
  log: Log;
  writeSummary?(markdown: string): Promise<void>;
  modelClient?: RunBase['modelClient'];
  /** Retry/secondary-limit waits: seconds -> ms multiplier (tests use 1). */
  retryAfterBaseMs?: number;
}

export async function main(face: ActionFace): Promise<ActionResult> {
  const { settings, runner } = readInputs(face.env, face.setSecret);
  const secrets = [settings.geminiApiKey, settings.githubToken];

  const payload = await readEventPayload(runner.eventPath);
  const command = routeEvent(runner.eventName, payload, settings);
  if (command.kind === 'skip') {
    face.log.notice(`agent-action: skipped: ${command.reason}`);
    return { status: 'skipped', summary: command.reason };
  }

  const octokit = createGitHubClient({
    token: settings.githubToken,
    baseUrl: runner.apiUrl,
    secrets,
    log: face.log.info,
    pacing: runner.pacing,
    retryAfterBaseMs: face.retryAfterBaseMs,
  });
  const repo = runner.repository;
  const auth = await authorize(octokit, repo, command.trigger, { allowedBots: settings.allowedBots, selfLogins: SELF_LOGINS });
  if (!auth.allowed) {
    face.log.notice(`agent-action: not run: ${auth.reason}`);
    if (command.kind === 'reply') await tellRefusedReplier(octokit, repo, command, face.log);
    return { status: 'skipped', summary: auth.reason };
  }

  // Before any model runs: where pushes go is read now, from the checkout as actions/checkout left it.
  const remote = await readActionRemote({ workspace: runner.workspace, token: settings.githubToken, serverUrl: runner.serverUrl, repository: repo });
  const base: RunBase = { octokit, repo, settings, runner, log: face.log, secrets, remote, writeSummary: face.writeSummary, modelClient: face.modelClient };
  if (command.kind !== 'triage-all') return runCommand(base, command, command.trigger.thread);

  // Nightly triage without a matrix: every open issue carrying the label, one after another.
  const issues = await octokit.paginate(octokit.rest.issues.listForRepo, { ...repo, state: 'open', labels: command.label, per_page: 100 });
  const results: ActionResult[] = [];
  for (const issue of issues.filter((i) => !i.pull_request)) {
    const thread = { number: issue.number, isPullRequest: false };
    try {
      results.push(await runCommand(base, { kind: 'triage', text: '', trigger: { ...command.trigger, thread } }, thread));
    } catch (e) {
      results.push({ status: 'failed', summary: `#${issue.number}: ${messageOf(e)}` });
    }
  }
  const failed = results.filter((r) => r.status === 'failed');
  return {
    status: results.length === 0 ? 'skipped' : failed.length ? 'failed' : 'success',
    summary: results.length === 0 ? `no open issues labelled '${command.label}'` : `triaged ${results.length} issue(s); ${failed.length} failed`,
    labels: [...new Set(results.flatMap((r) => r.labels ?? []))],
  };
}

async function readEventPayload(path: string): Promise<unknown> {
  if (!path) return {};
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new AgentError('input', `cannot read the event payload at GITHUB_EVENT_PATH (${path}): ${messageOf(e)}`, { site: { file: path } });
  }
}
