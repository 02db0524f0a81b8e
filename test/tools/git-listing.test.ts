import { execFile } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGitListing, type GitListingOptions } from '../../src/tools/git-listing.js';
import { createRepo, git, makeTempDir } from '../support/git-repo.js';
import { call, makeEnv } from './helpers.js';

/** Real git, counting the listings it was asked for (the --cached ones; the ignored-folder query aside). */
function countingGit() {
  const listings: string[] = [];
  const runGit: GitListingOptions['runGit'] = (cwd, args) => {
    if (args.includes('--cached')) listings.push(cwd);
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        args,
        { cwd, encoding: 'buffer', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } },
        (err, out) => (err ? reject(err) : resolve(out)),
      );
    });
  };
  return { listings, runGit };
}

/**
 * Waits, by writing a probe file, until the file system's clock is past every stamp taken so far:
 * the next change then gets a change time different from the one the cache recorded (changes
 * within one clock tick are the racy case the listing refuses to cache in real use; the tests that
 * exercise the cache move the listing's clock ahead instead, so they must not write within a tick).
 */
function untilFsClockMoves(): void {
  const probe = join(makeTempDir('agent-action-tick-'), 'probe');
  writeFileSync(probe, '0');
  const first = statSync(probe, { bigint: true }).ctimeNs;
  for (let i = 0; statSync(probe, { bigint: true }).ctimeNs === first; i++) writeFileSync(probe, String(i));
}

/** A listing whose clock runs a minute ahead: every stamp of a tree just made counts as old. */
function aheadListing(o: Partial<GitListingOptions> = {}) {
  const g = countingGit();
  const listing = createGitListing({ runGit: g.runGit, now: () => Date.now() + 60_000, ...o });
  return { ...g, listing };
}

async function listTwice(listing: ReturnType<typeof createGitListing>, dir: string) {
  const first = (await listing.list(dir)).sort();
  await listing.settled();
  untilFsClockMoves();
  return first;
}

const tree = () =>
  createRepo({
    '.gitignore': 'build/\n*.log\n',
    'a.ts': 'a\n',
    'src/b.ts': 'b\n',
    'src/deep/c.ts': 'c\n',
    'build/out.js': 'generated\n',
  }).dir;

describe('git listing kept between calls', () => {
  it('answers a second time from the cache while the tree stands still, and as git does', async () => {
    const dir = tree();
    writeFileSync(join(dir, 'untracked.ts'), 'u\n');
    writeFileSync(join(dir, 'noise.log'), 'n\n');
    const { listing, listings } = aheadListing();
    const first = await listTwice(listing, dir);
    expect(first).toEqual(['.gitignore', 'a.ts', 'src/b.ts', 'src/deep/c.ts', 'untracked.ts']);
    // A content change moves no folder: the same files, no git.
    appendFileSync(join(dir, 'a.ts'), 'more\n');
    expect((await listing.list(dir)).sort()).toEqual(first);
    expect(listings).toEqual([dir]);
  });

  it('sees a file the model writes, one it deletes and one it renames', async () => {
    const dir = tree();
    const { listing, listings } = aheadListing();
    await listTwice(listing, dir);
    await call(makeEnv(dir), 'write_file', { file_path: 'src/deep/new.ts', content: 'n\n' });
    expect((await listing.list(dir)).sort()).toEqual([
      '.gitignore',
      'a.ts',
      'src/b.ts',
      'src/deep/c.ts',
      'src/deep/new.ts',
    ]);
    await listing.settled();
    untilFsClockMoves();
    rmSync(join(dir, 'src/deep/new.ts')); // untracked: gone (a tracked file stays listed, from the index, as git lists it)
    expect((await listing.list(dir)).sort()).toEqual(['.gitignore', 'a.ts', 'src/b.ts', 'src/deep/c.ts']);
    await listing.settled();
    untilFsClockMoves();
    git(dir, 'mv', 'a.ts', 'src/a2.ts');
    expect((await listing.list(dir)).sort()).toEqual(['.gitignore', 'src/a2.ts', 'src/b.ts', 'src/deep/c.ts']);
    expect(listings).toHaveLength(4);
  });

  it('sees a file in a folder that was empty, and a new folder', async () => {
    const dir = tree();
    mkdirSync(join(dir, 'empty/inner'), { recursive: true });
    const { listing } = aheadListing();
    await listTwice(listing, dir);
    writeFileSync(join(dir, 'empty/inner/x.ts'), 'x\n');
    expect(await listing.list(dir)).toContain('empty/inner/x.ts');
    await listing.settled();
    untilFsClockMoves();
    mkdirSync(join(dir, 'fresh/er'), { recursive: true });
    writeFileSync(join(dir, 'fresh/er/y.ts'), 'y\n');
    expect(await listing.list(dir)).toContain('fresh/er/y.ts');
  });

  it('hides a file a changed .gitignore now ignores, in the folder searched or above it', async () => {
    const dir = tree();
    // Untracked files: a tracked one stays listed whatever .gitignore says, as git lists it.
    writeFileSync(join(dir, 'src/u1.ts'), 'u\n');
    writeFileSync(join(dir, 'src/deep/u2.ts'), 'u\n');
    writeFileSync(join(dir, 'src/deep/.gitignore'), '*.tmp\n');
    untilFsClockMoves();
    const { listing } = aheadListing();
    await listTwice(listing, join(dir, 'src'));
    appendFileSync(join(dir, 'src/deep/.gitignore'), 'u2.ts\n'); // in place: its folder does not change
    expect((await listing.list(join(dir, 'src'))).sort()).toEqual(['b.ts', 'deep/.gitignore', 'deep/c.ts', 'u1.ts']);
    await listing.settled();
    untilFsClockMoves();
    appendFileSync(join(dir, '.gitignore'), 'u1.ts\n'); // at the top, above the folder searched
    expect((await listing.list(join(dir, 'src'))).sort()).toEqual(['b.ts', 'deep/.gitignore', 'deep/c.ts']);
  });

  it('follows the index: a file added by force and one removed from it', async () => {
    const dir = tree();
    const { listing } = aheadListing();
    await listTwice(listing, dir);
    git(dir, 'add', '-f', 'build/out.js');
    expect(await listing.list(dir)).toContain('build/out.js');
    await listing.settled();
    untilFsClockMoves();
    git(dir, 'rm', '-q', '--cached', 'build/out.js');
    expect(await listing.list(dir)).not.toContain('build/out.js');
  });

  it('follows .git/info/exclude', async () => {
    const dir = tree();
    const { listing } = aheadListing();
    await listTwice(listing, dir);
    writeFileSync(join(dir, 'local.ts'), 'l\n');
    expect(await listing.list(dir)).toContain('local.ts');
    await listing.settled();
    untilFsClockMoves();
    appendFileSync(join(dir, '.git/info/exclude'), 'local.ts\n');
    expect(await listing.list(dir)).not.toContain('local.ts');
  });

  it('keeps nothing written since just before the listing (the racy case): git is asked again', async () => {
    const dir = tree();
    const g = countingGit();
    // The listing's clock stands at the moment git wrote its index: the whole tree is younger than racyMs.
    const indexWritten = Number(statSync(join(dir, '.git/index'), { bigint: true }).ctimeNs / 1_000_000n);
    const listing = createGitListing({ runGit: g.runGit, now: () => indexWritten });
    await listing.list(dir);
    await listing.settled();
    await listing.list(dir);
    expect(g.listings).toHaveLength(2);
  });

  it('keeps no listing of a tree with more folders than maxDirs', async () => {
    const dir = tree(); // the top, src, src/deep: three folders (build/ is ignored, .git is skipped)
    const { listing, listings } = aheadListing({ maxDirs: 2 });
    await listTwice(listing, dir);
    await listing.list(dir);
    expect(listings).toHaveLength(2);
    const within = aheadListing({ maxDirs: 3 });
    await listTwice(within.listing, dir);
    await within.listing.list(dir);
    expect(within.listings).toHaveLength(1);
  });

  it('keeps no listing when the repository config names another excludes file', async () => {
    const dir = tree();
    git(dir, 'config', 'core.excludesFile', join(makeTempDir(), 'ignore'));
    const { listing, listings } = aheadListing();
    await listTwice(listing, dir);
    await listing.list(dir);
    expect(listings).toHaveLength(2);
  });

  it('forgets the least recently used folder past maxEntries', async () => {
    const dir = tree();
    const { listing, listings } = aheadListing({ maxEntries: 1 });
    await listTwice(listing, dir);
    await listTwice(listing, join(dir, 'src'));
    await listing.list(join(dir, 'src'));
    await listing.list(dir);
    expect(listings).toEqual([dir, join(dir, 'src'), dir]);
  });

  it('rejects as git does outside a work tree', async () => {
    const { listing } = aheadListing();
    await expect(listing.list(makeTempDir())).rejects.toThrow();
  });
});

describe('glob through the process-wide listing', () => {
  it('lists a file the model wrote right after a glob that did not have it', async () => {
    const dir = tree();
    const env = makeEnv(dir);
    expect((await call(env, 'glob', { pattern: '**/*.ts' })).forModel).not.toContain('src/deep/new.ts');
    await call(env, 'write_file', { file_path: 'src/deep/new.ts', content: 'n\n' });
    expect((await call(env, 'glob', { pattern: '**/*.ts' })).forModel).toContain('src/deep/new.ts');
  });
});
