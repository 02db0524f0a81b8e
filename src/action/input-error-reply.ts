/**
 * Input errors, answered in the thread as well as in the job's annotations: whoever typed
 * `/agent fix` sees why nothing happened without opening the log. Only for an event that is a
 * command on a thread, from someone the run would have obeyed (the same routing and authorization
 * as a run), and with a token that can write there. Anything that goes wrong here is a warning in
 * the log, never a second failure. The comment names the inputs and what each expects; the client
 * redacts every secret value from what it posts, and secret inputs are never quoted by the errors.
 */
import { messageOf } from '../common/errors.js';
import { authorize, SELF_LOGINS } from './authorize.js';
import { routeEvent, type Command } from './event-command.js';
import { readEventFile } from './event-file.js';
import { INPUT_DEFAULTS, type ActionSettings, type RunnerEnv } from './inputs.js';
import { formatMarker } from './markers.js';
import { capBody } from './publish/body-cap.js';
import { makeInert } from './publish/inert-text.js';
import type { Log } from './run-context.js';
import { threadTopOf } from './task-context.js';

export interface InputErrorAnswer {
  /** The settings as far as they parsed (a bad input at its fallback). */
  settings: ActionSettings;
  runner: RunnerEnv;
  secrets: readonly string[];
  /** The errors, one line each, as annotated. */
  messages: readonly string[];
  log: Log;
  /** The command, when the event was already routed (the model-key check comes after routing). */
  command?: Command;
  retryAfterBaseMs?: number;
}

export async function answerInputErrors(o: InputErrorAnswer): Promise<void> {
  const { settings, runner } = o;
  if (!settings.githubToken) return;
  const command = o.command ?? (await routeForAnswer(settings, runner));
  if (!command || command.kind === 'skip' || !command.trigger.thread) return;
  const thread = command.trigger.thread;
  try {
    // Loaded only now: @actions/github parses the event file as it loads, and it is known good here.
    const { createGitHubClient } = await import('./github-client.js');
    const octokit = createGitHubClient({
      token: settings.githubToken,
      baseUrl: runner.apiUrl,
      secrets: o.secrets,
      log: o.log.info,
      pacing: runner.pacing,
      retryAfterBaseMs: o.retryAfterBaseMs,
    });
    const repo = runner.repository;
    const auth = await authorize(octokit, repo, {
      allowedBots: settings.allowedBots,
      selfLogins: SELF_LOGINS,
      trigger: command.trigger,
    });
    if (!auth.allowed) return;
    const body = renderAnswer(o.messages, runner);
    const comment = command.trigger.comment;
    if (comment?.kind === 'review')
      await octokit.rest.pulls.createReplyForReviewComment({
        ...repo,
        pull_number: thread.number,
        comment_id: threadTopOf(comment),
        body,
      });
    else await octokit.rest.issues.createComment({ ...repo, issue_number: thread.number, body });
  } catch (e) {
    o.log.warning(`could not answer the input errors in #${thread.number}: ${messageOf(e)}`);
  }
}

/** The event's command, routed with what parsed (a bad trigger word falls back to the default). */
async function routeForAnswer(settings: ActionSettings, runner: RunnerEnv): Promise<Command | undefined> {
  const event = await readEventFile(runner.eventPath);
  if (!event.ok) return undefined;
  return routeEvent(runner.eventName, event.payload, {
    ...settings,
    trigger: settings.trigger || INPUT_DEFAULTS.trigger,
  });
}

/** Pure: the comment, each error one inert line. */
function renderAnswer(
  messages: readonly string[],
  runner: Pick<RunnerEnv, 'serverUrl' | 'repository' | 'runId'>,
): string {
  const lines = messages.map((m) => `- ${makeInert(m.replace(/\s+/g, ' '))}`).join('\n');
  const run = runner.runId
    ? ` ([workflow run](${runner.serverUrl}/${runner.repository.owner}/${runner.repository.repo}/actions/runs/${runner.runId}))`
    : '';
  const text = `### agent-action did not run\n\nThe workflow's inputs for agent-action have ${messages.length === 1 ? 'a problem' : 'problems'}, so nothing was done${run}:\n\n${lines}\n\nSomeone who maintains the workflow fixes it (the \`with:\` of its agent-action step, or a secret it reads); then ask again.`;
  return `${capBody(text)}\n\n${formatMarker('input-error')}`;
}
