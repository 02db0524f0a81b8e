/**
 * Attack (our own): the parts of the action that read the work tree outside the sandbox. The file
 * tools (read_file, list_directory, glob, grep_search, write_file) and the action's own git
 * (status, add, commit, the fork's patch, the session's work-tree snapshot) run in the action's
 * process, with its /proc, its home and the runner's files in reach. Inside the sandbox the model
 * makes the work tree a trap for them: symlinks to `/proc/self/environ` (the action's own, from
 * its side), to the runner's ~/.ssh and RUNNER_TEMP, through `/proc/self/root`; a FIFO (a read
 * blocks forever), a Unix socket; then it calls every file tool on them, and the run publishes
 * (and, in the second test, suspends and resumes) a work tree holding them all.
 *
 * Defences: one gate for every file tool (real path inside the workspace, regular files only,
 * dangling links refused); git records links as links and skips what is not a file; the sandbox
 * (a hard link to a file outside the workspace cannot be made across its mounts).
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
  resultOf,
  type Hostile,
} from './harness.js';

let h: Hostile | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function traps(hh: Hostile): string {
  return [
    'ln -s /proc/self/environ environ.txt',
    `ln -s ${hh.runner.home}/.ssh ssh`,
    `ln -s ${hh.runner.home}/.ssh/id_ed25519 key.txt`,
    `ln -s ${hh.runner.temp} runner-temp`,
    'ln -s /proc/self/root/etc root-etc',
    'ln -s /proc/self/cwd/../../.. up',
    'mkdir -p deep && ln -s ../../../../../../../../proc/self/environ deep/env.md',
    'mkfifo fifo.txt',
    'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\'sock\')"',
    'ln /etc/hostname hardlink 2>&1 || echo "no hard link"',
    'ls -la',
  ].join('; ');
}

/** Every file tool, on every trap. */
const TOOL_CALLS = [
  call('read_file', { file_path: 'environ.txt' }, 't1'),
  call('read_file', { file_path: 'key.txt' }, 't2'),
  call('read_file', { file_path: 'fifo.txt' }, 't3'),
  call('read_file', { file_path: 'deep/env.md' }, 't4'),
  call('read_file', { file_path: 'root-etc/hostname' }, 't5'),
  call('list_directory', { dir_path: 'ssh' }, 't6'),
  call('list_directory', { dir_path: 'runner-temp/_runner_file_commands' }, 't7'),
  call('glob', { pattern: '**/*', dir_path: 'up' }, 't8'),
  call('glob', { pattern: '**/*' }, 't9'),
  call('grep_search', { pattern: 'PRIVATE KEY|AIza|ghs_|INPUT_' }, 't10'),
  call('grep_search', { pattern: '.', dir_path: 'ssh' }, 't11'),
  call('write_file', { file_path: 'runner-temp/x', content: 'x' }, 't12'),
  call('replace', { file_path: 'key.txt', old_string: 'KEY', new_string: 'KEY2' }, 't13'),
  call('write_file', { file_path: 'fifo.txt', content: 'x' }, 't14'),
];

describe('the action reading a trapped work tree', () => {
  it('yolo: every file tool refuses links out and special files, quickly; the run publishes links as links', async () => {
    h = await openHostile();
    h.gemini.push(
      reply([call('run_shell_command', { command: traps(h) }, 'make')]),
      reply(TOOL_CALLS),
      reply([call('write_file', { file_path: 'src/app.js', content: 'export const fixed = true;\n' }, 'fix')]),
      reply([text('Done.')]),
    );

    const r = await h.runComment('/agent fix', { mode: 'yolo' });

    expectNoMarkers(h);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(resultOf(h, 'make')).toContain('no hard link');
    for (const id of ['t1', 't2', 't4', 't5', 't6', 't7', 't8', 't11', 't12', 't13'])
      expect(resultOf(h, id), id).toMatch(/outside the workspace|dangling symlink/);
    expect(resultOf(h, 't3')).toContain('not a regular file');
    // Writing replaces the FIFO by a file (a rename), never writes into it: no reader is waiting on the other end.
    expect(resultOf(h, 't14')).toMatch(/Successfully overwrote fifo.txt|not a regular file/);
    assertContained(h, [r]);
  });

  it('auto_edit: a trapped work tree is saved with a question and restored on approval; nothing is read through it', async () => {
    h = await openHostile();
    h.gemini.push(
      // Asked about (ln -s and mkfifo are not read-only): the run suspends, then the approval runs it.
      reply([call('run_shell_command', { command: traps(h) }, 'make')]),
      reply(TOOL_CALLS),
      reply([call('write_file', { file_path: 'src/app.js', content: 'export const fixed = true;\n' }, 'fix')]),
      // A second question: the trapped tree (links, FIFO, socket) is saved in the session and restored.
      reply([call('run_shell_command', { command: 'node -e "1"' }, 'ask')]),
      reply([text('Done.')]),
    );

    const first = await h.runComment('/agent fix', { mode: 'autoEdit' });
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const second = await h.runComment('/agent approve', { fresh: true });
    expectNoMarkers(h);
    expect(second.outputs.status, logOf(second)).toBe('awaiting_approval');
    const third = await h.runComment('/agent approve', { fresh: true });
    expectNoMarkers(h);
    expect(third.outputs.status, logOf(third)).toBe('success');
    for (const id of ['t1', 't2', 't4', 't5', 't6', 't7', 't8', 't11', 't12', 't13'])
      expect(resultOf(h, id), id).toMatch(/outside the workspace|dangling symlink/);
    assertContained(h, [first, second, third]);
  });
});
