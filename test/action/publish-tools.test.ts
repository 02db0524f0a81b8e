import { describe, expect, it } from 'vitest';
import { addReviewCommentTool, replyTool, setLabelsTool } from '../../src/tools/github/publish-tools.js';
import { createPublishRecorder } from '../../src/tools/github/recorder.js';
import type { ToolEnv } from '../../src/tools/define-tool.js';

const env = (recorder?: unknown): ToolEnv => ({ root: '/tmp', secrets: [], baseEnv: {}, shellTimeoutMs: 1000, recorder });
const ctx = { signal: new AbortController().signal };

describe('GitHub recorder tools', () => {
  it('record, never post; the last set_labels wins', async () => {
    const rec = createPublishRecorder();
    await (await addReviewCommentTool.prepare({ path: 'a.ts', line: 3, start_line: 2, body: 'b', suggestion: 'x' }, env(rec))).run(ctx);
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
    await expect(Promise.resolve().then(() => replyTool.prepare({ body: 'x' }, env()))).rejects.toMatchObject({ code: 'failed' });
    await expect(Promise.resolve().then(() => addReviewCommentTool.prepare({ path: 'a', line: 1, start_line: 2, body: 'b' }, env(createPublishRecorder())))).rejects.toMatchObject({ code: 'invalid_args' });
  });
});
