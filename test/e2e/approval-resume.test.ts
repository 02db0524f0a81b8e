/**
 * Issue 6 end to end: a fix run meets an ask_user rule, saves its session on a ref of the origin,
 * asks in the thread and ends green; a maintainer's reply starts a second process in a fresh clone
 * that restores the work tree, answers the waiting call and carries the loop on to publishing.
 * The bundled dist/index.js runs as a child process against the fake GitHub and the fake Gemini.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, text, usage } from '../support/fake-gemini.js';
import {
  ALLOW_PREP,
  BINARY,
  FIXED,
  bareGit,
  fingerprint,
  functionResponses,
  ISSUE,
  logOf,
  markedComments,
  openThread,
  readSessionDoc,
  runFix,
  runReply,
  sessionRefs,
  type Thread,
  assertBundle,
} from './approval-support.js';

let t: Thread | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const FINGERPRINT_CMD = 'node scripts/fingerprint.js';
const shell = (command: string) => call('run_shell_command', { command, description: 'check the work tree' });

describe('the bundled action: ask a maintainer, then resume', () => {
  it('suspends on an ask rule, and an approval resumes in a fresh clone with the same history and a byte-identical work tree', async () => {
    t = await openThread([
      // Run 1, turn 1: an edit (allowed in autoEdit).
      reply(
        [
          text('Fixing the sign. '),
          call('replace', { file_path: 'src/math.js', old_string: '  return a - b;', new_string: '  return a + b;' }),
        ],
        { usage: usage(1000, 30) },
      ),
      // Run 1, turn 2: one batch: an allowed command (binary file added, tracked file deleted) and an asked one.
      reply(
        [
          call('run_shell_command', { command: 'node scripts/prep.js', description: 'prepare assets' }),
          shell(FINGERPRINT_CMD),
        ],
        { usage: usage(1100, 20) },
      ),
      // Run 2 (after approval): the model finishes.
      reply([text('Fixed `add`; the fingerprint looks right.')], { usage: usage(1300, 15) }),
    ]);

    const first = await runFix(t, { policy: ALLOW_PREP });
    expect(first.code, logOf(first)).toBe(0);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id'];
    expect(id).toBeTruthy();

    // The session ref is in the bare origin, with the waiting call and an open request.
    const refs = sessionRefs(t.ws.origin);
    expect(Object.keys(refs)).toEqual([id]);
    const doc = readSessionDoc(t.ws.origin, id);
    expect(doc.request.status).toBe('open');
    expect(doc.pending.map((p: any) => [p.id, p.name, p.args.command])).toEqual([
      ['call-2-1', 'run_shell_command', FINGERPRINT_CMD],
    ]);
    expect(doc.thread).toEqual({ number: ISSUE, kind: 'issue' });

    // The question: the call, the rule (file and line), the answers, the hidden marker.
    const questions = markedComments(t.gh, 'approval ');
    expect(questions).toHaveLength(1);
    const q = questions[0].body;
    expect(q).toContain(FINGERPRINT_CMD);
    expect(q).toMatch(/shell\.toml:\d+/);
    for (const answer of ['/agent approve', '/agent approve always', '/agent deny <reason>'])
      expect(q).toContain(answer);
    // Where the approved command will run: this runner's real bubblewrap, network off (the defaults).
    expect(q).toContain('If approved, it runs in the bubblewrap sandbox (network off).');
    expect(first.summary).toContain(
      '\nCommands ran in the bubblewrap sandbox (network off). Shipped policy: commands run in the sandbox without asking',
    );
    expect(q).toMatch(new RegExp(`<!-- agent-action:approval [^>]*session=${id}[^>]*nonce=${doc.request.nonce}`));
    expect(doc.request.commentId).toBe(questions[0].id);
    expect(t.gemini.requests).toHaveLength(2);
    // The run's progress comment says it waits, and links the question.
    const [progress] = markedComments(t.gh, 'progress');
    expect(progress.body).toContain('Waiting for approval');
    expect(progress.body).toContain(`issuecomment-${questions[0].id}`);

    // What the work tree was at suspension (run 1's workspace is left as it stopped).
    const before = fingerprint(t.ws.dir);
    expect(before).toContain(' assets/logo.bin');
    expect(before).not.toContain(' old.txt');

    const second = await runReply(t, '/agent approve');
    expect(second.code, logOf(second)).toBe(0);
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(second.outputs['session-id']).toBe(id);

    // The model's first request of run 2: run 1's history verbatim, then the batch's results.
    expect(t.gemini.requests).toHaveLength(3);
    const prior = t.gemini.requests[1].body.contents;
    const resumed = t.gemini.requests[2].body.contents;
    expect(resumed.slice(0, prior.length)).toEqual(prior);
    const results = functionResponses(t.gemini.requests[2].body);
    expect(results.map((r) => r.name)).toEqual(['replace', 'run_shell_command', 'run_shell_command']);
    // The command saw exactly the work tree run 1 left: the edit, the binary file, the deletion.
    expect(stringsOf(results[2].response)).toContain(before);

    // Published: a branch with the fix, the binary file, no deleted file, the command's output file.
    const branch = second.outputs.branch;
    expect(branch).toMatch(/^agent-action\/issue-7/);
    expect(bareGit(t.ws.origin, 'show', `${branch}:src/math.js`) + '\n').toBe(FIXED);
    expect(bareGit(t.ws.origin, 'ls-tree', '-r', '--name-only', branch).split('\n').sort()).toEqual(
      [
        '.gemini/policies/shell.toml',
        'README.md',
        'assets/logo.bin',
        'ran.txt',
        'scripts/fingerprint.js',
        'scripts/prep.js',
        'src/math.js',
      ].sort(),
    );
    const blob = bareGit(t.ws.origin, 'rev-parse', `${branch}:assets/logo.bin`);
    expect(execFileSync('git', ['--git-dir', t.ws.origin, 'cat-file', 'blob', blob])).toEqual(BINARY);
    expect(second.outputs['pull-request']).toBeTruthy();
    const pr = t.gh.state.issues.get(Number(second.outputs['pull-request']));
    expect(pr?.body).toContain(`Fixes #${ISSUE}`);

    // The session is closed, not deleted: its ref says finished, and a second question never came.
    expect(readSessionDoc(t.ws.origin, id).request.status).toBe('finished');
    expect(markedComments(t.gh, 'approval ')).toHaveLength(1);
    // The resumed run's turn count carries over: 2 turns before, 1 after.
    expect(second.outputs.turns).toBe('3');
  });

  it('deny with a reason: the model receives the refusal and the reason; the command never runs', async () => {
    t = await openThread([reply([shell(FINGERPRINT_CMD)]), reply([text('Understood, I will not run scripts.')])]);
    const first = await runFix(t);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');

    const second = await runReply(t, '/agent deny we never run repository scripts in CI');
    expect(second.code, logOf(second)).toBe(0);
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(t.gemini.requests).toHaveLength(2);
    const [denied] = functionResponses(t.gemini.requests[1].body);
    expect(denied.name).toBe('run_shell_command');
    expect(stringsOf(denied.response)).toContain('we never run repository scripts in CI');
    expect(JSON.stringify(denied.response)).not.toContain('FINGERPRINT-BEGIN');
    // Nothing to publish: no branch, no pull request, and ran.txt exists nowhere in the origin.
    expect(bareGit(t.ws.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/main');
    expect([...t.gh.state.issues.values()].some((i) => i.pull)).toBe(false);
  });

  it('approve always: a second identical call in the same session runs without asking', async () => {
    t = await openThread([
      reply([shell(FINGERPRINT_CMD)]),
      reply([text('Once more to be sure. '), shell(FINGERPRINT_CMD)]),
      reply([text('Both runs agree.')]),
    ]);
    const first = await runFix(t);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');

    const second = await runReply(t, '/agent approve always');
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(markedComments(t.gh, 'approval ')).toHaveLength(1);
    expect(t.gemini.requests).toHaveLength(3);
    const results = functionResponses(t.gemini.requests[2].body);
    expect(results).toHaveLength(2);
    for (const r of results) expect(stringsOf(r.response)).toContain('FINGERPRINT-BEGIN');
    // The narrowed rule was recorded in the session for the rest of it.
    const doc = readSessionDoc(t.ws.origin, second.outputs['session-id']);
    expect(doc.state.addedRules).toEqual([expect.objectContaining({ toolName: 'run_shell_command' })]);
  });

  it("the model's own question: ask_user suspends with numbered choices; `/agent answer 2` is the tool's result", async () => {
    const ask = call('ask_user', {
      questions: [
        {
          question: 'Should add() also accept strings?',
          header: 'Scope',
          type: 'choice',
          options: [
            { label: 'Numbers only', description: 'keep the signature' },
            { label: 'Coerce strings', description: 'parse numeric strings first' },
          ],
        },
      ],
    });
    t = await openThread([reply([ask]), reply([text('Going with coercion.')])]);
    const first = await runFix(t);
    expect(first.code, logOf(first)).toBe(0);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const [question] = markedComments(t.gh, 'approval ');
    expect(question.body).toContain('Should add() also accept strings?');
    expect(question.body).toMatch(
      /1\. Numbers only: keep the signature\n2\. Coerce strings: parse numeric strings first/,
    );
    expect(question.body).toContain('/agent answer');

    const second = await runReply(t, '/agent answer 2');
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(t.gemini.requests).toHaveLength(2);
    const [answered] = functionResponses(t.gemini.requests[1].body);
    expect(answered.name).toBe('ask_user');
    expect(stringsOf(answered.response)).toContain('Coerce strings: parse numeric strings first');
  });
});

/** Every string inside a functionResponse's response, joined: the tool output wherever it sits. */
function stringsOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(stringsOf).join('\n');
  if (v && typeof v === 'object') return Object.values(v).map(stringsOf).join('\n');
  return '';
}
