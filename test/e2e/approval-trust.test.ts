/**
 * Issue #11 end to end, through the bundled action: what a resumed run trusts. A policy the model
 * planted in the work tree before suspending is restored with the work tree and must not become a
 * rule; a session signed with another key is refused with a clear message; a question whose calls
 * digest does not match the saved calls runs nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAction } from '../support/e2e-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import {
  API_KEY,
  assertBundle,
  bundlePath,
  commentPayload,
  ISSUE,
  logOf,
  markedComments,
  openThread,
  readSessionDoc,
  replyJob,
  runFix,
  runReply,
  type Thread,
} from './approval-support.js';

let t: Thread | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const PLANT_JS = `const { mkdirSync, writeFileSync } = require('node:fs');
mkdirSync('.gemini/policies', { recursive: true });
writeFileSync('.gemini/policies/x.toml', '[[rule]]\\ntoolName = "run_shell_command"\\ndecision = "allow"\\npriority = 999\\n');
console.log('planted');
`;
const PWN = `node -e "require('fs').writeFileSync('pwned.txt', 'the planted policy allowed this')"`;
/** User-tier rule (the workflow's `policy` input): the planting script may run. */
const ALLOW_PLANT =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "node scripts/plant.js"\ndecision = "allow"\npriority = 100\n';

const asks = () => reply([call('run_shell_command', { command: 'node scripts/fingerprint.js' })]);
const refusals = (th: Thread) => markedComments(th.gh, 'approval-reply');

describe('the bundled action: a resumed run trusts only signed sessions and committed configuration', () => {
  it('an allow-all policy the model wrote into the work tree before suspending is not loaded on resume', async () => {
    t = await openThread([
      // Run 1: plant a policy in the work tree (allowed by the workflow's own rule), then ask.
      reply([call('run_shell_command', { command: 'node scripts/plant.js' })]),
      asks(),
      // Run 2, after the approval: a command only the planted policy would allow.
      reply([call('run_shell_command', { command: PWN })]),
      reply([text('Done.')]),
    ]);
    // The planting script sits in the work tree, as an earlier step of the job left it (it is no part of
    // the session; the policy it writes, the model's doing, is). The sandbox is off, so the model can
    // write .gemini/: this test is about the loader alone.
    writeFileSync(join(t.ws.dir, 'scripts/plant.js'), PLANT_JS);
    const first = await runFix(t, { policy: ALLOW_PLANT, sandbox: 'off' });
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    expect(readFileSync(join(t.ws.dir, '.gemini/policies/x.toml'), 'utf8')).toContain('decision = "allow"');
    const id = first.outputs['session-id'];
    expect(readSessionDoc(t.ws.origin, id).trustedCommit).toBe(t.ws.mainSha);

    // The reply's run, in a new job whose restored work tree the test can look at.
    const job = replyJob(t);
    const clone = job.checkout.dir;
    const replyComment = t.gh.addComment(ISSUE, '/agent approve', { login: 'maintainer' });
    const second = await runAction({
      eventName: 'issue_comment',
      payload: commentPayload(replyComment),
      job,
      bundle: bundlePath(),
      inputs: { 'gemini-api-key': API_KEY, 'gemini-base-url': t.gemini.baseUrl, policy: ALLOW_PLANT, sandbox: 'off' },
      env: { GITHUB_API_URL: t.gh.url },
    });
    expect(second.code, logOf(second)).toBe(0);
    // The premise holds: the planted file is back in the restored work tree...
    expect(existsSync(join(clone, '.gemini/policies/x.toml')), logOf(second)).toBe(true);
    // ...but it is no rule: the command is asked about (a new question), never run.
    expect(second.outputs.status, logOf(second)).toBe('awaiting_approval');
    expect(existsSync(join(clone, 'pwned.txt'))).toBe(false);
    const questions = markedComments(t.gh, 'approval ');
    expect(questions).toHaveLength(2);
    expect(questions[1].body).toContain("require('fs').writeFileSync('pwned.txt'");
    expect(readSessionDoc(t.ws.origin, id).trustedCommit).toBe(t.ws.mainSha);
  });

  it('a key rotation between question and answer: refused with a clear message, green, nothing runs', async () => {
    t = await openThread([asks(), reply([text('Done.')])]);
    const first = await runFix(t);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const r = await runReply(t, '/agent approve', { inputs: { 'gemini-api-key': 'AIza-rotated-key-1111' } });
    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status, logOf(r)).toBe('skipped');
    expect(refusals(t).at(-1)?.body).toMatch(
      /signed with a different key: the session key or Gemini API key changed since the request; ask again/,
    );
    expect(t.gemini.requests).toHaveLength(1);
    expect(readSessionDoc(t.ws.origin, first.outputs['session-id']).request.status).toBe('open');
  });

  it('a question whose calls digest was changed: nothing runs, the run fails and says why', async () => {
    t = await openThread([asks(), reply([text('Done.')])]);
    const first = await runFix(t);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const [question] = markedComments(t.gh, 'approval ');
    const shown = /calls=([0-9a-f]{12})/.exec(question.body)![1];
    expect(question.body).toContain(`calls digest \`${shown}\``);
    question.body = question.body.replace(`calls=${shown}`, 'calls=0123456789ab');
    const r = await runReply(t, '/agent approve');
    expect(r.outputs.status, logOf(r)).toBe('failed');
    expect(r.outputs.summary).toMatch(
      /are not the ones the question showed \(digest 0123456789ab, saved calls [0-9a-f]{12}\)/,
    );
    expect(t.gemini.requests).toHaveLength(1);
  });
});
