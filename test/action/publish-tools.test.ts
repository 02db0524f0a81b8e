import { describe, expect, it } from 'vitest';
import {
  addReviewCommentTool,
  createGitHubTools,
  replyTool,
  setLabelsTool,
} from '../../src/tools/github/publish-tools.js';
import { createPublishRecorder } from '../../src/tools/github/recorder.js';
import type { ToolEnv } from '../../src/tools/define-tool.js';

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
      await addReviewCommentTool.prepare({ path: 'a.ts', line: 3, start_line: 2, body: 'b', suggestion: 'x' }, env(rec))
    ).run(ctx);
    await (await setLabelsTool.prepare({ labels: ['bug', 'x'] }, env(rec))).run(ctx);
    await (await setLabelsTool.prepare({ labels: ['bug', ' bug '] }, env(rec))).run(ctx);
    await (await replyTool.prepare({ body: 'hello' }, env(rec))).run(ctx);
    expect(rec.snapshot()).toEqual({
      reviewComments: [{ path: 'a.ts', line: 3, startLine: 2, side: undefined, body: 'b', suggestion: 'x' }],
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
        addReviewCommentTool.prepare({ path: 'a', line: 1, start_line: 2, body: 'b' }, env(createPublishRecorder())),
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
    await (await addReviewCommentTool.prepare({ path: 'a', line: 1, body: 'x' }, env(rec))).run(ctx);
    const second = await (await addReviewCommentTool.prepare({ path: 'a', line: 2, body: 'y' }, env(rec))).run(ctx);
    expect(second.error?.code).toBe('failed');
    const labels = await (await setLabelsTool.prepare({ labels: ['a', 'b', 'c'] }, env(rec))).run(ctx);
    expect(labels.error?.code).toBe('failed');
    expect(rec.snapshot()).toEqual({
      reviewComments: [{ path: 'a', line: 1, body: 'x', side: undefined, startLine: undefined, suggestion: undefined }],
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
