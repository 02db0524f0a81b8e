/**
 * The model's plan (write_todos) in the progress comment, end to end through the bundled
 * dist/index.js: a `/agent fix` whose model writes a plan, ticks it off across turns (once with a
 * list the tool refuses for two items in progress), and ends with the plan kept in the final
 * comment and the job summary. The comment's pacing is set to none (AGENT_ACTION_PROGRESS_SECONDS=0)
 * so that every edit lands and the test reads them in order; the pacing itself is a unit test
 * (test/action/progress-plan.test.ts).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { assertBundle, issueCommentPayload } from '../support/e2e-runner.js';

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
const FILES = { 'src/math.js': BUGGY, 'README.md': '# calc\n' };

const plan = (...statuses: string[]) => ({
  todos: ['Find the bug', 'Fix add', 'Check the test'].map((description, i) => ({ description, status: statuses[i] })),
});

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

/** Each body the progress comment was given, in order: its first post, then every edit. */
function progressBodies(w: ActionWorld): string[] {
  const posted = w.gh.calls('POST', /\/issues\/5\/comments$/).map((r) => (r.body as { body: string }).body);
  const edits = w.gh.calls('PATCH', /\/issues\/comments\/\d+$/).map((r) => (r.body as { body: string }).body);
  return [...posted, ...edits].filter((b) => b.includes('<!-- agent-action:progress'));
}

describe('the bundled action: the plan in the progress comment', () => {
  it('is a checklist ticked off across turns, a refused list never shown, and kept at the end', async () => {
    world = await startActionWorld({
      files: FILES,
      event: { name: 'issue_comment' },
      script: [
        reply([text('A plan first. '), call('write_todos', plan('in_progress', 'pending', 'pending'))]),
        reply([
          call('read_file', { file_path: 'src/math.js' }),
          call('write_todos', plan('completed', 'in_progress', 'pending')),
        ]),
        reply([call('write_todos', plan('completed', 'in_progress', 'in_progress'))]),
        reply([call('replace', { file_path: 'src/math.js', old_string: 'a - b', new_string: 'a + b' })]),
        reply([call('write_todos', plan('completed', 'completed', 'cancelled'))]),
        reply([text('Fixed add.')]),
      ],
    });
    const { gh, gemini } = world;
    gh.addIssue({ number: 5, title: 'add() subtracts', body: 'add(2, 2) returns 0.', user: { login: 'reporter' } });
    const trigger = gh.addComment(5, '/agent fix', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(5, trigger),
      inputs: { 'gemini-api-key': 'AIza-e2e-plan-key-000000' },
      env: { AGENT_ACTION_PROGRESS_SECONDS: '0' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');

    // The refused list went back to the model as an error naming the rule.
    const refused = JSON.stringify(gemini.requests[3].body.contents.at(-1));
    expect(refused).toContain('Only one task can be \\"in_progress\\" at a time.');

    const bodies = progressBodies(world);
    const first = bodies.findIndex((b) => b.includes('- [ ] → **Find the bug**\n- [ ] Fix add\n- [ ] Check the test'));
    const second = bodies.findIndex((b) => b.includes('- [x] Find the bug\n- [ ] → **Fix add**\n- [ ] Check the test'));
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(bodies[first]).toContain('**Plan** (0 of 3 done)');
    expect(bodies[second]).toContain('**Plan** (1 of 3 done)');
    // The list with two items in progress was refused: no body ever shows it.
    expect(bodies.filter((b) => b.includes('→ **Check the test**'))).toEqual([]);

    const final = gh.state.comments.find((c) => c.body.includes('<!-- agent-action:progress'))!.body;
    expect(final).toContain('agent-action fix: done');
    expect(final).toContain(
      '**Plan** (2 of 3 done)\n\n- [x] Find the bug\n- [x] Fix add\n- [ ] ~~Check the test~~ (cancelled)',
    );
    expect(bodies.at(-1)).toBe(final);
    expect(r.summary).toContain('- [x] Fix add');
  });
});
