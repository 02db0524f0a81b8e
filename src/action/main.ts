/**
 * The action, as a table of contents: inputs (read once, secrets masked, then removed from the
 * environment; the log and the outcome redacted from then on) -> event file (checked) -> command -> authorization -> one run per thread -> outputs
 * and annotations. `run()` is the entry (dist/index.js calls it; `local-action run . src/action/main.ts
 * .env` imports this file and calls it); importing this module starts nothing. `runAction(face)` is
 * the same run with everything it touches outside passed in, for tests.
 *
 * A command loads its code when it runs (one dynamic import, which ncc splits into a chunk): a
 * skipped event never loads the GitHub client, the agent or the publishing code.
 */
import * as core from '@actions/core';
import { messageOf } from '../common/errors.js';
import { readCheckoutSecrets } from './credentials.js';
import { dropSecretsFromEnv } from './env-secrets.js';
import { routeEvent, type Command } from './event-command.js';
import { readEventFile } from './event-file.js';
import { readInputs, type GetInput } from './inputs.js';
import { answerInputErrors, type InputErrorAnswer } from './input-error-reply.js';
import { redactedFace, redactedOutcome } from './redacted-face.js';
import { failedOutcome, outcomeOfError, reportOutcome, type ActionOutcome } from './report.js';
import type { Log } from './run-context.js';
import type { Clock } from '../core/loop.js';
import type { Read, RunBase } from './run-task.js';

/** What a run needs from the runner: the @actions/core toolkit in `run()`, plain functions in tests. */
export interface ActionFace {
  getInput: GetInput;
  /** The runner's variables (GITHUB_*). Secrets are deleted from it in place once the inputs are read. */
  env: Record<string, string | undefined>;
  setSecret(value: string): void;
  log: Log;
  writeSummary?(markdown: string): Promise<void>;
  modelClient?: RunBase['modelClient'];
  /** Retry/secondary-limit waits: seconds -> ms multiplier (tests use 1). */
  retryAfterBaseMs?: number;
  /** Paces triage writes; tests step a clock of their own instead of sleeping. */
  clock?: Clock;
}

/** The whole action on a runner: never throws, sets every output, annotates each problem once. */
export async function run(): Promise<void> {
  try {
    const outcome = await runAction(createCoreFace());
    reportOutcome(outcome, {
      setOutput: core.setOutput,
      error: core.error,
      markFailed: () => void (process.exitCode = 1),
    });
  } catch (e) {
    // Only reporting itself can get here (an unwritable GITHUB_OUTPUT, say): still one line, no trace.
    process.stdout.write(
      `::error title=agent-action::${messageOf(e).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`,
    );
    process.exitCode = 1;
  }
}

function createCoreFace(): ActionFace {
  return {
    getInput: (name) => core.getInput(name),
    env: process.env,
    setSecret: core.setSecret,
    log: {
      info: (l) => core.info(l),
      notice: (l) => core.notice(l),
      warning: (l) => core.warning(l),
      group: (title, fn) => core.group(title, fn),
    },
    // No job summary outside a runner (local-action without GITHUB_STEP_SUMMARY): core.summary would throw.
    writeSummary: process.env.GITHUB_STEP_SUMMARY
      ? async (md) => void (await core.summary.addRaw(md, true).write())
      : undefined,
  };
}

/** One run, start to end, as an outcome (outputs and annotations); errors become failed outcomes. */
export async function runAction(given: ActionFace): Promise<ActionOutcome> {
  const read = readInputs(given.getInput, given.env, given.setSecret);
  // Before anything can start a process: the inputs are in memory now, the environment keeps no secret.
  dropSecretsFromEnv(given.env, read.secrets);
  const face = redactedFace(given, read.secrets);
  for (const line of read.notes.notices) face.log.notice(`agent-action: ${line}`);
  for (const line of read.notes.warnings) face.log.warning(`agent-action: ${line}`);
  if (!read.ok) {
    const failed = failedOutcome(
      read.errors.map((e) => ({ title: e.source === 'input' ? `input ${e.input}` : e.input, message: e.message })),
    );
    if (read.runner)
      await answerInThread(face, { settings: read.settings, runner: read.runner, secrets: read.secrets }, failed);
    return redactedOutcome(failed, read.secrets);
  }
  try {
    return redactedOutcome(await runCommandOf(face, read), read.secrets);
  } catch (e) {
    return redactedOutcome(outcomeOfError(e), read.secrets);
  }
}

async function runCommandOf(face: ActionFace, read: Read): Promise<ActionOutcome> {
  const { settings, runner, secrets } = read;
  const event = await readEventFile(runner.eventPath);
  if (!event.ok) return failedOutcome([{ title: 'event payload', message: event.message }]);
  const command = routeEvent(runner.eventName, event.payload, settings);
  if (command.kind === 'skip') {
    face.log.notice(`agent-action: skipped: ${command.reason}`);
    return done({ status: 'skipped', summary: command.reason });
  }
  if (needsModel(command) && !settings.geminiApiKey && settings.vertex?.auth !== 'adc') {
    // A fork's pull request event runs without secrets by GitHub's rule: not the workflow's mistake.
    if (command.trigger.fromFork) {
      const reason = forkWithoutKey(command.trigger.fromFork, settings);
      face.log.notice(`agent-action: skipped: ${reason}`);
      return done({ status: 'skipped', summary: reason });
    }
    const failed = failedOutcome([
      {
        title: 'input gemini-api-key',
        message:
          "input 'gemini-api-key' is empty: expected a Gemini API key (pass it from a secret: ${{ secrets.GEMINI_API_KEY }}, or set GEMINI_API_KEY in the step's env), or use-vertex-ai: true with Google Cloud credentials",
      },
    ]);
    await answerInThread(face, { settings, runner, secrets, command }, failed);
    return failed;
  }

  // The header actions/checkout left for git, with whatever token it was given: a secret from now on.
  for (const s of await readCheckoutSecrets(runner.workspace)) {
    if (secrets.includes(s)) continue;
    secrets.push(s);
    face.setSecret(s);
  }
  // The rest loads only now, in one chunk: a skipped event never loads the agent, and @actions/github
  // (which the GitHub client needs) parses the event file as it loads: only now is the file known to be good.
  const { runRouted } = await import('./run-task.js');
  return runRouted(face, read, command);
}

const done = (result: ActionOutcome['result']): ActionOutcome => ({ result, errors: [] });

/** Input errors are answered in the thread too, when the event is a command there (input-error-reply.ts). */
async function answerInThread(
  face: ActionFace,
  o: Omit<InputErrorAnswer, 'messages' | 'log'>,
  failed: ActionOutcome,
): Promise<void> {
  await answerInputErrors({
    ...o,
    messages: failed.errors.map((e) => e.message),
    log: face.log,
    retryAfterBaseMs: face.retryAfterBaseMs,
  });
}

/** Why a fork's run is skipped, and the two routes that do run the agent on a fork's pull request. */
const forkWithoutKey = (fork: string, s: { trigger: string; reviewLabel: string }): string =>
  `this pull request comes from ${fork === 'a deleted fork' ? fork : `the fork ${fork}`}, and GitHub runs its pull request events without the repository's secrets ` +
  `(input 'gemini-api-key' is empty) and with a read-only token, so the agent did not run. To run it, a maintainer comments \`${s.trigger} review\` in the pull request's conversation, ` +
  `or labels it \`${s.reviewLabel}\` for a workflow on pull_request_target (types: [labeled]) that checks out the base branch only (see "Pull requests from forks" in agent-action's README).`;

/** Everything but the help reply and the triage plan talks to the model (a refused reply never gets this far). */
const needsModel = (command: Exclude<Command, { kind: 'skip' }>): boolean =>
  command.kind !== 'help' && command.kind !== 'triage-plan';
