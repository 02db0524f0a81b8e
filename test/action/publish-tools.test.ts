import { describe, expect, it } from 'vitest';
import {
  addReviewCommentTool,
  createGitHubTools,
  replyTool,
  setLabelsTool,
} from '../../src/tools/github/publish-tools.js';
import { createPublishRecorder } from '../../src/tools/github/recorder.js';
import type { ToolEnv } from '../../src/tools/define-tool.js';
import { compiledArgsCheck } from '../../src/tools/tool-schema.js';

const env = (recorder?: unknown): ToolEnv => ({
  root: '/tmp',
  secrets: [],
  baseEnv: {},
  shellTimeoutMs: 1000,
  recorder,
});
const ctx = { signal: new AbortController().signal };

describe('GitHub recorder tools', () => {
  // Each command is offered the recorders it publishes, and no more: every tool offered costs
  // bytes in every request of the run (a fix publishes its commits and its final message).
  it.each([
    ['fix', []],
    ['review', ['add_review_comment', 'set_labels', 'reply']],
    ['triage', ['set_labels', 'reply']],
    ['question', ['reply']],
    ['prompt', ['add_review_comment', 'set_labels', 'reply']],
  ] as const)('offers %s the recorders %j', (command, names) => {
    expect(createGitHubTools(command).map((t) => t.name)).toEqual(names);
  });

  it('record, never post; the last set_labels wins', async () => {
    const rec = createPublishRecorder();
    await (
      await addReviewCommentTool.prepare(
        { path: 'a.ts', line: 3, start_line: 2, severity: 'high', body: 'b', suggestion: 'x' },
        env(rec),
      )
    ).run(ctx);
    await (await setLabelsTool.prepare({ labels: ['bug', 'x'] }, env(rec))).run(ctx);
    await (await setLabelsTool.prepare({ labels: ['bug', ' bug '] }, env(rec))).run(ctx);
    await (await replyTool.prepare({ body: 'hello' }, env(rec))).run(ctx);
    expect(rec.snapshot()).toEqual({
      reviewComments: [
        { path: 'a.ts', line: 3, startLine: 2, side: undefined, severity: 'high', body: 'b', suggestion: 'x' },
      ],
      labels: ['bug'],
      replies: ['hello'],
    });
  });

  it('a resumed recorder keeps what was recorded before', () => {
    const rec = createPublishRecorder({ reviewComments: [], replies: ['before'], labels: ['bug'] });
    rec.reply('after');
    expect(rec.snapshot().replies).toEqual(['before', 'after']);
  });

  it('refuses without a recorder, and a start_line after line', async () => {
    await expect(Promise.resolve().then(() => replyTool.prepare({ body: 'x' }, env()))).rejects.toMatchObject({
      code: 'failed',
    });
    await expect(
      Promise.resolve().then(() =>
        addReviewCommentTool.prepare(
          { path: 'a', line: 1, start_line: 2, severity: 'low', body: 'b' },
          env(createPublishRecorder()),
        ),
      ),
    ).rejects.toMatchObject({
      code: 'invalid_args',
    });
  });

  it('caps replies, review comments and labels per run, and tells the model why', async () => {
    const rec = createPublishRecorder(undefined, { replies: 2, reviewComments: 1, labels: 2 });
    const results = [];
    for (const body of ['a', 'b', 'c']) results.push(await (await replyTool.prepare({ body }, env(rec))).run(ctx));
    expect(results.map((r) => r.error?.code)).toEqual([undefined, undefined, 'failed']);
    expect(results[2].forModel).toBe(
      'limit reached: at most 2 replies per run; say the rest in one of them or in your final message',
    );
    await (await addReviewCommentTool.prepare({ path: 'a', line: 1, severity: 'low', body: 'x' }, env(rec))).run(ctx);
    const second = await (
      await addReviewCommentTool.prepare({ path: 'a', line: 2, severity: 'low', body: 'y' }, env(rec))
    ).run(ctx);
    expect(second.error?.code).toBe('failed');
    const labels = await (await setLabelsTool.prepare({ labels: ['a', 'b', 'c'] }, env(rec))).run(ctx);
    expect(labels.error?.code).toBe('failed');
    expect(rec.snapshot()).toEqual({
      reviewComments: [
        {
          path: 'a',
          line: 1,
          body: 'x',
          side: undefined,
          startLine: undefined,
          severity: 'low',
          suggestion: undefined,
        },
      ],
      replies: ['a', 'b'],
    });
  });

  it('the default caps: 3 replies, 30 review comments, 10 labels', () => {
    const rec = createPublishRecorder();
    for (let i = 0; i < 3; i++) rec.reply(String(i));
    expect(() => rec.reply('4th')).toThrow(/at most 3 replies/);
    for (let i = 0; i < 30; i++) rec.addReviewComment({ path: 'a', line: i + 1, body: 'x' });
    expect(() => rec.addReviewComment({ path: 'a', line: 99, body: 'x' })).toThrow(/at most 30 review comments/);
    expect(() => rec.setLabels(Array.from({ length: 11 }, (_, i) => `l${i}`))).toThrow(/at most 10 labels/);
  });
});

describe('add_review_comment: severity from the schema, suggestions only on lines of the diff', () => {
  const check = (args: unknown) => compiledArgsCheck(addReviewCommentTool.params as never)(args);
  // Red if severity is optional, or any word passes: the prompt alone would not hold it.
  it('the schema requires a severity, one of critical, high, medium, low', () => {
    expect(check({ path: 'a', line: 1, body: 'x' })).toBe("missing required field 'severity'");
    expect(check({ path: 'a', line: 1, body: 'x', severity: 'urgent' })).toMatch(/^\/severity /);
    for (const severity of ['critical', 'high', 'medium', 'low'])
      expect(check({ path: 'a', line: 1, body: 'x', severity })).toBeUndefined();
  });

  // The pull request's diff shows lines 4-6 and 9 of the new a.js; b.js is not in it.
  const diff = new Map([['a.js', new Set([4, 5, 6, 9])]]);
  const prepare = (args: Record<string, unknown>) =>
    Promise.resolve().then(() =>
      addReviewCommentTool.prepare(
        { path: 'a.js', severity: 'medium', body: 'b', suggestion: 'x', ...args } as never,
        env(createPublishRecorder(undefined, undefined, diff)),
      ),
    );

  it('a suggestion on lines the diff shows is recorded; the tool says it holds a suggestion', async () => {
    const prepared = await prepare({ start_line: 4, line: 6 });
    expect((await prepared.run(ctx)).forModel).toBe(
      'Recorded medium review comment 1 on a.js:4-6 with a suggestion; it is published with the review when the run ends.',
    );
  });

  // Red if the range is not checked line by line (7-8 fall between two hunks), or the file not at all.
  it.each([
    [
      { start_line: 6, line: 9 },
      "lines 7, 8 of a.js are not in the pull request's diff (it shows lines 4-6, 9 of the new version)",
    ],
    [{ line: 2 }, "line 2 of a.js is not in the pull request's diff (it shows lines 4-6, 9 of the new version)"],
    [{ path: 'b.js', line: 1 }, "line 1 of b.js is not in the pull request's diff (the diff does not show this file)"],
    [{ line: 5, side: 'LEFT' }, 'a suggestion replaces lines of the new version: use side RIGHT'],
  ])('refuses %j, saying why', async (args, why) => {
    await expect(prepare(args)).rejects.toMatchObject({ code: 'invalid_args', message: expect.stringContaining(why) });
  });

  it('a comment without a suggestion may sit anywhere (outside the diff it goes to the review body)', async () => {
    await expect(prepare({ line: 2, suggestion: undefined })).resolves.toBeDefined();
  });
});
