/**
 * The plan in the progress comment, against the fake GitHub through the real Octokit: the checklist
 * follows the `todos` events at the comment's pace (an injected clock), the last list always lands,
 * and the model's words in it are inert.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../src/action/github-client.js';
import { createProgressComment } from '../../src/action/progress-comment.js';
import type { Todo } from '../../src/tools/builtin/write-todos.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';

let gh: FakeGitHub;
beforeEach(async () => {
  gh = await startFakeGitHub();
  gh.addIssue({ number: 1, title: 'bug' });
});
afterEach(() => gh.close());

const log = {
  info: () => {},
  notice: () => {},
  warning: () => {},
  group: <T>(_t: string, fn: () => Promise<T>) => fn(),
};

function progress(now: () => number, summaries: string[] = []) {
  const octokit = createGitHubClient({ token: 't', baseUrl: gh.url, secrets: [], pacing: 'none', retryAfterBaseMs: 1 });
  return createProgressComment({
    octokit,
    repo: { owner: 'octo', repo: 'hello' },
    thread: { number: 1, isPullRequest: false },
    title: 'agent-action fix',
    log,
    throttleMs: 10_000,
    now,
    writeSummary: async (md) => void summaries.push(md),
  });
}

const edits = () => gh.calls('PATCH', /\/issues\/comments\/\d+$/).map((r) => (r.body as { body: string }).body);
const todos = (...items: Array<[string, Todo['status']]>): Todo[] =>
  items.map(([description, status]) => ({ description, status }));

describe('the plan in the progress comment', () => {
  it('is edited at the pace of the comment, and the final comment keeps the last list', async () => {
    let t = 0;
    const summaries: string[] = [];
    const p = progress(() => t, summaries);
    await p.start();
    t = 11_000; // past the pace: this list is written at once
    p.emit({ type: 'todos', todos: todos(['Read', 'in_progress'], ['Fix', 'pending']) });
    t = 12_000; // within 10 s of that edit: these wait, and only the newest is ever shown
    p.emit({ type: 'todos', todos: todos(['Read', 'completed'], ['Fix', 'in_progress']) });
    p.emit({ type: 'todos', todos: todos(['Read', 'completed'], ['Fix', 'completed']) });
    await p.finish({ status: 'success', summary: 'Fixed.' });

    const bodies = edits();
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toContain('**Plan** (0 of 2 done)\n\n- [ ] → **Read**\n- [ ] Fix');
    expect(bodies[0]).toContain('agent-action fix: working');
    expect(bodies[1]).toContain('agent-action fix: done');
    expect(bodies[1]).toContain('**Plan** (2 of 2 done)\n\n- [x] Read\n- [x] Fix');
    expect(bodies.join('\n')).not.toContain('→ **Fix**');
    expect(summaries[0]).toContain('- [x] Read\n- [x] Fix');
  });

  it('shows cancelled and blocked items, and the model words inert, one line each, capped', async () => {
    const t = 0;
    const p = progress(() => t);
    await p.start();
    p.emit({
      type: 'todos',
      todos: [
        ...todos(
          ['Ping @octo/all <!-- agent-action:approval x -->', 'cancelled'],
          ['Wait for **CI**\n# now', 'blocked'],
        ),
        ...Array.from({ length: 30 }, (_, i): Todo => ({
          description: `step ${i + 1} ${'x'.repeat(200)}`,
          status: 'pending',
        })),
      ],
    });
    await p.finish({ status: 'success', summary: 'Done.' });
    const [final] = edits();
    expect(final).toContain('- [ ] ~~Ping @\u200Bocto/all &#60;!-- agent-action:approval x --&#62;~~ (cancelled)');
    expect(final).toContain('- [ ] Wait for &#42;&#42;CI&#42;&#42; # now (blocked)');
    expect(final).toContain(`- [ ] step 23 ${'x'.repeat(111)}…\n- … and 7 more`);
    expect(final).not.toContain('step 24');
  });
});
