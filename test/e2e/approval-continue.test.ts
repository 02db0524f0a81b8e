/**
 * Crash safety (issue 6): a long run checkpoints its session after a settled batch; when the runner
 * dies mid-run, `/agent continue` on a new runner resumes from that checkpoint with the same history
 * and work tree. The runner's death is real: the bundle is SIGKILLed as soon as the model receives
 * the request that hangs (an event from the fake, not a timer).
 * `AGENT_ACTION_CHECKPOINT_SECONDS=0` makes every batch "long enough" to checkpoint.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, fault, reply, text } from '../support/fake-gemini.js';
import { runAction } from '../support/e2e-runner.js';
import { makeTempDir } from '../support/git-repo.js';
import {
  ALLOW_PREP,
  API_KEY,
  BINARY,
  ISSUE,
  assertBundle,
  bareGit,
  bundlePath,
  commentPayload,
  developerClone,
  functionResponses,
  logOf,
  openThread,
  readSessionDoc,
  runReply,
  sessionRefs,
  type Thread,
} from './approval-support.js';

let t: Thread | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('the bundled action: a run that dies is continued', () => {
  it('checkpoints after a batch, is killed mid-run, and `/agent continue` resumes from the checkpoint', async () => {
    t = await openThread([
      // Run 1, turn 1: an allowed command (adds a binary file, deletes a tracked one).
      reply([
        text('Preparing. '),
        call('run_shell_command', { command: 'node scripts/prep.js', description: 'prepare assets' }),
      ]),
      // Run 1, turn 2: the model never answers; the runner is killed.
      fault.hang(),
      // Run 2 (`/agent continue`): the model finishes.
      reply([text('Done after the interruption.')]),
    ]);

    const trigger = t.gh.addComment(ISSUE, '/agent fix', { login: 'maintainer' });
    // The runner dies the moment the model receives the request that hangs (the second): the
    // checkpoint of the settled batch was pushed before that request was sent.
    const death = new AbortController();
    void t.gemini.untilRequests(2).then(() => death.abort());
    const first = await runAction({
      eventName: 'issue_comment',
      payload: commentPayload(trigger),
      job: t.job,
      bundle: bundlePath(),
      inputs: { 'gemini-api-key': API_KEY, 'gemini-base-url': t.gemini.baseUrl, policy: ALLOW_PREP },
      // A killed runner leaves its temporary files (the trusted snapshot) behind, as on a runner whose
      // job is cancelled: its TMPDIR is a test directory, removed after the file.
      env: {
        GITHUB_API_URL: t.gh.url,
        AGENT_ACTION_CHECKPOINT_SECONDS: '0',
        TMPDIR: makeTempDir('agent-action-killed-tmp-'),
      },
      kill: death.signal,
    });
    expect(first.code, logOf(first)).toBeNull(); // killed, not exited
    expect(t.gemini.requests).toHaveLength(2);

    // The checkpoint is on the origin: claimed (a run holds it), with the settled batch in history.
    const refs = sessionRefs(t.ws.origin);
    const ids = Object.keys(refs);
    expect(ids).toHaveLength(1);
    const saved = readSessionDoc(t.ws.origin, ids[0]!);
    expect(saved.request.status).toBe('claimed');
    expect(saved.state.open).toBeUndefined();
    expect(JSON.stringify(saved.state.history)).toContain('prepared');

    // A maintainer says continue; a new runner (a new job and checkout) picks the session up.
    const second = await runReply(t, '/agent continue');
    expect(second.code, logOf(second)).toBe(0);
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(second.outputs['session-id']).toBe(ids[0]);

    // The model's third request carries the first run's history, tool result included, unchanged.
    expect(t.gemini.requests).toHaveLength(3);
    const third = t.gemini.requests[2]!.body;
    expect(third.contents.slice(0, saved.state.history.length)).toEqual(saved.state.history);
    const [prep] = functionResponses(third);
    expect(prep).toMatchObject({ name: 'run_shell_command' });
    expect(prep).not.toHaveProperty('id');
    expect(JSON.stringify(prep!.response)).toContain('prepared');

    // The work tree came back as the first run left it, and the fix was published from it.
    const branch = second.outputs.branch!;
    expect(bareGit(t.ws.origin, 'ls-tree', '-r', '--name-only', branch).split('\n')).toContain('assets/logo.bin');
    const check = developerClone(t.ws.origin);
    execFileSync('git', ['-C', check, 'checkout', '-q', branch], { stdio: 'ignore' });
    expect(readFileSync(join(check, 'assets/logo.bin'))).toEqual(BINARY);
    expect(existsSync(join(check, 'old.txt'))).toBe(false);
    expect(readSessionDoc(t.ws.origin, ids[0]!).request.status).toBe('finished');

    // A second continue finds nothing to continue and runs nothing.
    const again = await runReply(t, '/agent continue');
    expect(again.outputs.status, logOf(again)).toBe('skipped');
    expect(t.gemini.requests).toHaveLength(3);
  });
});
