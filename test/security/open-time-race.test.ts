/**
 * Attack (issue 26, first item): a symlink swapped in after the file tools' path check. The
 * scheduler prepares a whole batch (each read's path checked then), and runs up to ten calls at
 * once. One model turn: a shell call replaces three folders with symlinks (to the runner's ~/.ssh,
 * and `g -> .git`), nine slow allowed commands fill the other slots, so the reads start only once
 * the swap is done; then read_file, list_directory and grep_search on the swapped paths. Yolo: only
 * the sandbox and the file tools stand.
 *
 * Defence: every file tool checks the object it opened (src/tools/confined-fs.ts: O_NOFOLLOW, then
 * the descriptor's real path), not the path it planned. `weaken.mjs ... open-time-check` takes the
 * check out: the reads then get the key and checkout's header.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, text } from '../support/fake-gemini.js';
import {
  assertBundle,
  assertContained,
  call,
  expectNoMarkers,
  type Hostile,
  logOf,
  openHostile,
  resultOf,
} from './harness.js';

let h: Hostile | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a folder swapped for a symlink between the check and the read, through the bundle', () => {
  it('yolo: read_file, list_directory and grep_search refuse what they opened outside; nothing of it is posted', async () => {
    h = await openHostile();
    const ssh = `${h.runner.home}/.ssh`;
    const slow = Array.from({ length: 9 }, (_, i) =>
      call('run_shell_command', { command: `sleep 3.${i}` }, `slow${i}`),
    );
    h.gemini.push(
      // Real folders first: every path of the next batch passes the check when it is prepared.
      reply([
        call(
          'run_shell_command',
          {
            command:
              'mkdir -p d e s g && echo decoy > d/id_ed25519 && echo decoy > g/config && echo decoy > e/x && echo PRIVATE > s/x',
          },
          'plant',
        ),
      ]),
      reply([
        call(
          'run_shell_command',
          { command: `rm -rf d e s g && ln -s ${ssh} d && ln -s ${ssh} e && ln -s ${ssh} s && ln -s .git g` },
          'swap',
        ),
        ...slow,
        call('read_file', { file_path: 'd/id_ed25519' }, 'r1'),
        call('read_file', { file_path: 'g/config' }, 'r2'),
        call('list_directory', { dir_path: 'e' }, 'r3'),
        call('grep_search', { pattern: 'PRIVATE|extraheader', dir_path: 's' }, 'r4'),
      ]),
      reply([text('Done.')]),
    );

    const r = await h.runComment('/agent fix', { mode: 'yolo' });

    expectNoMarkers(h);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(resultOf(h, 'swap')).not.toMatch(/error|denied/i);
    for (const id of ['r1', 'r2', 'r3', 'r4'])
      expect(resultOf(h, id), id).toMatch(/refused when opened|is now a symlink/);
    expect(resultOf(h, 'r3')).not.toContain('id_ed25519');
    assertContained(h, [r]);
  });
});
