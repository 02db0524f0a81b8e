/**
 * Attack (our own, beside hostile-input.test.ts's regex and sanitizer cases): sheer size. A command
 * that prints 50 MB, a 25 MB file read whole, a batch of 200 calls, and closing words, a reply and
 * a pull-request description of 300 KB each: GitHub refuses a body over 65,536 characters, so an
 * uncapped one loses the whole comment or pull request (and with it the published work), and an
 * uncapped tool result fills the model's context and the session document.
 *
 * Defences: the shell tool keeps 32 KB of output, read_file refuses files over 20 MB, the batch's
 * output is cut to its budget, every body the action posts is capped with a note.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, text } from '../support/fake-gemini.js';
import {
  assertBundle,
  call,
  assertContained,
  expectNoMarkers,
  logOf,
  openHostile,
  publishedTexts,
  resultOf,
  type Hostile,
} from './harness.js';

let h: Hostile | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GITHUB_BODY_LIMIT = 65_536;
// Numbered, so no stretch repeats: repeated text is a content loop, which ends a run (issue #14).
const HUGE = `${Array.from({ length: 22_000 }, (_, i) => `Step ${i} done.`).join(' ')}END-OF-HUGE`;

describe('huge outputs', () => {
  it('a 50 MB print, a 25 MB read, 200 calls at once and 300 KB texts: bounded results, every body within GitHub’s limit, the work published', async () => {
    h = await openHostile();
    h.gemini.push(
      reply([
        call(
          'run_shell_command',
          { command: 'head -c 50000000 /dev/zero | tr "\\0" a; echo; head -c 26000000 /dev/zero > big.bin; echo made' },
          'print',
        ),
      ]),
      reply([
        call('read_file', { file_path: 'big.bin' }, 'read'),
        ...Array.from({ length: 200 }, (_, i) =>
          call('read_file', { file_path: 'README.md', start_line: 1, end_line: i + 1 }, `many${i}`),
        ),
      ]),
      reply([
        call('run_shell_command', { command: 'rm big.bin' }, 'rm'),
        call('reply', { body: HUGE }, 'reply'),
        call('write_file', { file_path: 'src/app.js', content: 'export const fixed = true;\n' }, 'fix'),
      ]),
      reply([text(HUGE)]),
    );

    const r = await h.runComment('/agent fix', { mode: 'yolo' });

    expectNoMarkers(h);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(r.outputs['pull-request']).toMatch(/^\d+$/);
    expect(resultOf(h, 'print').length).toBeLessThan(40_000);
    expect(resultOf(h, 'print')).toContain('bytes in the middle were omitted');
    expect(resultOf(h, 'read')).toContain('above the 20 MB limit');
    // No request to the model grew past a few hundred KB, whatever the tools produced.
    for (const q of h.gemini.requests) expect(JSON.stringify(q.body).length).toBeLessThan(2_000_000);
    const texts = publishedTexts(h);
    expect(texts.some((t) => t.body.includes('Step 1 done.'))).toBe(true);
    for (const t of texts) expect(t.body.length, t.where).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    assertContained(h, [r]);
  });
});
