/**
 * The file tools against a folder swapped for a symlink while they run (issue 26, first attack).
 * A call is checked when it is prepared and runs later, beside the model's commands, so the check
 * that counts is the one on what was opened (src/tools/confined-fs.ts).
 *
 * Each case runs twice over. First the attack itself, made deterministic: the call is prepared,
 * then its folder is renamed and replaced by a symlink to a folder outside the workspace (or to
 * `.git/`), then it runs; it must refuse. Then a swapper thread flips the folder between itself
 * and the link as fast as it can while the call, prepared while the folder is itself, runs, again
 * and again; every answer must be the inside content, `outside_workspace`, or `not_found` (the
 * instant the folder is renamed away), and never a byte or a name from outside or from `.git/`.
 *
 * Red without the open-time check: the deterministic half reads the outside file, the `.git/config`
 * line, the outside folder's names and its matching lines.
 */
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/tools/define-tool.js';
import { createRepo, git, makeTempDir, writeFiles } from '../support/git-repo.js';
import { makeEnv, prepare } from './helpers.js';

/** Attacks made deterministic, and calls raced against the swapper, per case. */
const DETERMINISTIC = 40;
const RACED = 300;

const OUTSIDE_MARK = `OUTSIDE-${randomUUID()}`;
const GIT_MARK = `GITSECRET-${randomUUID()}`;

const INSIDE_FILES = {
  'd/victim.txt': 'inside victim\n',
  'g/config': 'inside config\n',
  'e/inside-entry.txt': 'entry\n',
  'p/e/inside-entry.txt': 'entry\n',
  's/a.txt': 'needle inside\n',
  's/deeper/b.txt': 'needle deeper\n',
};

/** A workspace (a git work tree, or a plain folder with a `.git/` beside) and a folder outside it. */
function world(kind: 'git' | 'plain'): { root: string; outside: string } {
  const outside = makeTempDir('race-out-');
  writeFiles(outside, {
    'victim.txt': `${OUTSIDE_MARK} victim\n`,
    config: `${OUTSIDE_MARK} config\n`,
    'a.txt': `needle ${OUTSIDE_MARK}\n`,
    [`named-${OUTSIDE_MARK}.txt`]: `needle ${OUTSIDE_MARK}\n`,
    [`e/named-${OUTSIDE_MARK}.txt`]: `needle ${OUTSIDE_MARK}\n`,
    'deeper/b.txt': `needle ${OUTSIDE_MARK}\n`,
  });
  if (kind === 'git') {
    const { dir } = createRepo(INSIDE_FILES);
    git(dir, 'config', 'agentcanary.secret', `${GIT_MARK} needle`);
    return { root: dir, outside };
  }
  const root = makeTempDir('race-plain-');
  writeFiles(root, INSIDE_FILES);
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git/config'), `[agentcanary]\n\tsecret = ${GIT_MARK} needle\n`);
  return { root, outside };
}

function swap(root: string, folder: string, target: string): void {
  renameSync(join(root, folder), join(root, `${folder}.real`));
  symlinkSync(target, join(root, folder));
}

function restore(root: string, folder: string): void {
  const at = join(root, folder);
  if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(at);
  if (!existsSync(at) && existsSync(`${at}.real`)) renameSync(`${at}.real`, at);
}

/**
 * Flips `folder` between itself and a link to `target` (rename away, link, unlink, rename back) as
 * fast as it can, on its own thread, beside the calls: truly at the same time on another core.
 * Controlled through shared memory: PAUSE ends the cycle it is in (the folder is itself again) and
 * waits; every step bumps a counter. No timers anywhere: each side waits for the other's event.
 */
const SWAPPER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { at, target, ctl } = workerData;
for (;;) {
  const cmd = Atomics.load(ctl, 0);
  if (cmd === 2) break;
  if (cmd === 1) {
    Atomics.store(ctl, 1, 1);
    Atomics.notify(ctl, 1);
    Atomics.wait(ctl, 0, 1);
    Atomics.store(ctl, 1, 0);
    continue;
  }
  for (const step of [() => fs.renameSync(at, at + '.real'), () => fs.symlinkSync(target, at), () => fs.unlinkSync(at), () => fs.renameSync(at + '.real', at)]) {
    step();
    Atomics.add(ctl, 2, 1);
    Atomics.notify(ctl, 2);
  }
}`;

const RUN = 0;
const PAUSE = 1;
const STOP = 2;

/** A guard against a swapper that died, not a wait: it answers in microseconds. */
const SWAPPER_GUARD_MS = 30_000;

interface Swapper {
  /** Returns once the folder is itself and the swapper waits. */
  pause(): void;
  /** Lets it flip again; returns once it has made a step (`afterStep`), or at once. */
  resume(afterStep: boolean): void;
  stop(): Promise<void>;
}

function startSwapper(root: string, folder: string, target: string): Swapper {
  const ctl = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(SWAPPER, { eval: true, workerData: { at: join(root, folder), target, ctl } });
  // Blocks until slot i moves off `from` (the swapper's event); Node lets the main thread wait on shared memory.
  const until = (i: number, from: number) => {
    if (Atomics.wait(ctl, i, from, SWAPPER_GUARD_MS) === 'timed-out')
      throw new Error('the swapper thread stopped answering');
  };
  const command = (c: number) => {
    Atomics.store(ctl, 0, c);
    Atomics.notify(ctl, 0);
  };
  return {
    pause() {
      command(PAUSE);
      until(1, 0);
    },
    resume(afterStep) {
      const steps = Atomics.load(ctl, 2);
      command(RUN);
      if (afterStep) until(2, steps);
    },
    async stop() {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      command(STOP);
      await exited;
      restore(root, folder);
    },
  };
}

interface Case {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** The folder swapped, and where its link points. */
  folder: string;
  to: 'outside' | '.git';
  /** A successful answer is the inside content. */
  inside: (forModel: string) => boolean;
  /** The same while the swapper flips it, when that may also answer less (default: inside). */
  racedInside?: (forModel: string) => boolean;
  /** The swap is below the folder the call names: the call answers, with the inside content only. */
  answersInside?: boolean;
}

/** Listing lines (after the header) are only these names. */
const listsOnly =
  (names: string[]) =>
  (text: string): boolean =>
    text.startsWith('Directory listing for ') &&
    text
      .split('\n')
      .slice(1)
      .filter((l) => !l.startsWith('(') && l !== '')
      .every((l) => names.includes(l));

/** glob's file lines are only these paths (or it found none in the instant the folder was away). */
const globsOnly =
  (paths: string[]) =>
  (text: string): boolean =>
    text.startsWith('No files found') ||
    text
      .split('\n')
      .slice(1)
      .every((l) => paths.includes(l));

/** grep_search's matches are only inside lines. */
const grepsOnly = (text: string): boolean =>
  /^Found \d+ match/.test(text) &&
  text
    .split('\n')
    .filter((l) => /^L\d+: /.test(l))
    .every((l) => /^L1: needle (inside|deeper)$/.test(l));

/**
 * While the folder flips, git grep may also find nothing: git walks from the work tree's top by
 * path, so a folder that is away (or a link) when git gets to it is not searched. Less, never more:
 * every line it prints is confirmed against the file opened here.
 */
const grepsOnlyOrNone = (text: string): boolean => text.startsWith('No matches found') || grepsOnly(text);

const READ_AND_LIST: Case[] = [
  {
    name: 'read_file through a swapped folder',
    tool: 'read_file',
    args: { file_path: 'd/victim.txt' },
    folder: 'd',
    to: 'outside',
    inside: (t) => t === 'inside victim',
  },
  {
    name: 'read_file through a folder swapped for .git',
    tool: 'read_file',
    args: { file_path: 'g/config' },
    folder: 'g',
    to: '.git',
    inside: (t) => t === 'inside config',
  },
  {
    name: 'list_directory of a swapped folder',
    tool: 'list_directory',
    args: { dir_path: 'e' },
    folder: 'e',
    to: 'outside',
    inside: listsOnly(['inside-entry.txt']),
  },
  {
    name: 'list_directory below a swapped folder',
    tool: 'list_directory',
    args: { dir_path: 'p/e' },
    folder: 'p',
    to: 'outside',
    inside: listsOnly(['inside-entry.txt']),
  },
  {
    name: 'list_directory of a folder swapped for .git',
    tool: 'list_directory',
    args: { dir_path: 'g' },
    folder: 'g',
    to: '.git',
    inside: listsOnly(['config']),
  },
  {
    name: 'glob in a swapped folder',
    tool: 'glob',
    args: { pattern: '**/*', dir_path: 'e' },
    folder: 'e',
    to: 'outside',
    inside: globsOnly(['e/inside-entry.txt']),
  },
  {
    name: 'glob below a swapped folder',
    tool: 'glob',
    args: { pattern: '**/*', dir_path: 'p/e' },
    folder: 'p',
    to: 'outside',
    inside: globsOnly(['p/e/inside-entry.txt']),
  },
];

const GREP: Case[] = [
  {
    name: 'grep_search in a swapped folder',
    tool: 'grep_search',
    args: { pattern: 'needle', dir_path: 's' },
    folder: 's',
    to: 'outside',
    inside: grepsOnly,
    racedInside: grepsOnlyOrNone,
  },
  {
    name: 'grep_search in a folder swapped for .git',
    tool: 'grep_search',
    args: { pattern: 'needle', dir_path: 's' },
    folder: 's',
    to: '.git',
    inside: grepsOnly,
    racedInside: grepsOnlyOrNone,
  },
  {
    name: 'grep_search above a swapped folder',
    tool: 'grep_search',
    args: { pattern: 'needle', dir_path: 's' },
    folder: 's/deeper',
    to: 'outside',
    inside: grepsOnly,
    racedInside: grepsOnlyOrNone,
    answersInside: true,
  },
];

/** Nothing from outside or from .git in anything the call answered. */
function expectNothingOut(what: unknown): void {
  const text = JSON.stringify(what);
  expect(text).not.toContain(OUTSIDE_MARK.slice(0, 12));
  expect(text).not.toContain(GIT_MARK.slice(0, 12));
}

async function attackOnce(root: string, target: string, c: Case): Promise<ToolOutput> {
  const env = makeEnv(root);
  const p = await prepare(env, c.tool, c.args);
  swap(root, c.folder, target);
  try {
    return await p.run({ signal: new AbortController().signal });
  } finally {
    restore(root, c.folder);
  }
}

/**
 * One call prepared while the folder is itself, then run while the swapper flips it: at once, or
 * once it has made a step (so the run meets it in any state). What it came to.
 */
async function racedOnce(root: string, c: Case, swapper: Swapper, afterStep: boolean): Promise<string> {
  swapper.pause();
  const p = await prepare(makeEnv(root), c.tool, c.args);
  swapper.resume(afterStep);
  const out = await p.run({ signal: new AbortController().signal });
  expectNothingOut(out);
  if (!out.error) {
    expect((c.racedInside ?? c.inside)(out.forModel), out.forModel).toBe(true);
    return 'inside';
  }
  expect(['outside_workspace', 'not_found'], out.forModel).toContain(out.error.code);
  return out.error.code;
}

function runCases(kind: 'git' | 'plain', cases: Case[]) {
  describe.each(cases)(`$name (${kind} workspace)`, (c) => {
    it(`${c.answersInside ? 'answers only the inside content' : 'refuses'} when the folder was swapped after the call was checked, ${DETERMINISTIC} times`, async () => {
      const { root, outside } = world(kind);
      const target =
        c.to === '.git'
          ? join(root, '.git')
          : join(outside, c.folder.includes('/') ? c.folder.slice(c.folder.indexOf('/') + 1) : '');
      for (let i = 0; i < DETERMINISTIC; i++) {
        const out = await attackOnce(root, target, c);
        expectNothingOut(out);
        if (c.answersInside) expect(c.inside(out.forModel), out.forModel).toBe(true);
        else expect(out.error?.code, out.forModel).toBe('outside_workspace');
      }
      expect(readdirSync(root).sort()).toEqual(['.git', 'd', 'e', 'g', 'p', 's']);
    });

    it(`answers the inside content or refuses while a swapper flips the folder, ${RACED} times`, async () => {
      const { root, outside } = world(kind);
      const target =
        c.to === '.git'
          ? join(root, '.git')
          : join(outside, c.folder.includes('/') ? c.folder.slice(c.folder.indexOf('/') + 1) : '');
      const swapper = startSwapper(root, c.folder, target);
      const seen = new Map<string, number>();
      try {
        for (let i = 0; i < RACED; i++) {
          const what = await racedOnce(root, c, swapper, i % 2 === 1);
          seen.set(what, (seen.get(what) ?? 0) + 1);
        }
      } finally {
        await swapper.stop();
      }
      console.log(c.name, JSON.stringify([...seen]));
      expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(RACED);
    });
  });
}

describe('file tools confine what they opened, not what they planned to open', () => {
  runCases('git', [...READ_AND_LIST, ...GREP]);
  // Outside a work tree grep_search goes through the walker and the system's grep.
  runCases('plain', [...READ_AND_LIST.filter((c) => c.tool !== 'read_file'), ...GREP]);
});
