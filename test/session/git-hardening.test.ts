/**
 * Issue #11: repository config must never make the action's own git run code. A model that can
 * write `.git/config` (where the sandbox does not hold) or a work tree's `.gitattributes` (always)
 * arms every vector git 2.39 honours with a command that creates a marker file; the action's whole
 * git battery (status, snapshot, session store, trusted config, the tools' ls-files and grep, diff,
 * restore, commit, push, fetch and rebase) runs, and no marker may appear.
 *
 * Each vector also has a control: plain git on the same repository does create its marker, so
 * every vector is live in this git and the battery's silence means something.
 */
import { compileLinearRegex } from '../../src/tools/linear-regex.js';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitWorktree, pushHead, readHasChanges, readRemoteBranchExists } from '../../src/action/publish/commits.js';
import { readTrustedConfig } from '../../src/action/trusted-config.js';
import { createGitRefStore } from '../../src/session/git-ref-store.js';
import { assertGit, runGit } from '../../src/git/git.js';
import { captureWorktree, restoreWorktree } from '../../src/session/worktree.js';
import { listFiles } from '../../src/tools/file-list.js';
import { gitGrep } from '../../src/tools/grep-engines.js';
import { GIT_IDENTITY, makeTempDir, writeFiles } from '../support/git-repo.js';
import { sampleSession, TEST_KEY } from './fixture.js';

const made: string[] = [];
const tempDir = (prefix: string) => {
  const d = makeTempDir(prefix);
  made.push(d);
  return d;
};
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** git as a person or a careless tool runs it: the repository's config fully in force. */
const plainGit = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const tryPlainGit = (cwd: string, ...args: string[]) => {
  try {
    plainGit(cwd, ...args);
  } catch {
    // The vector ran (or not) before git failed; the marker says which.
  }
};
/** git without system or global config: for setup before arming, bare repositories, and `git config`. */
const cleanGit = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-push',
  'reference-transaction',
  'post-checkout',
  'post-rewrite',
  'pre-rebase',
  'post-index-change',
  'pre-auto-gc',
  'post-merge',
];

interface Hostile {
  dir: string;
  origin: string;
  markers: string;
  marked(): string[];
}

/** One vector: how to arm it in a repository, and what plain git does to set it off. */
interface Vector {
  marker: string;
  /** Config text for .git/config (or an included file it names). */
  config?: (m: (name: string) => string, dir: string) => string;
  /** Files the vector needs (hooks, scripts, included config, alternates). */
  files?: (m: (name: string) => string, dir: string) => void;
  control: (h: Hostile) => void;
}

/** What git does when a server asks for credentials: helpers, then askpass. None come back here. */
function credentialFill(dir: string): void {
  try {
    execFileSync('git', ['credential', 'fill'], {
      cwd: dir,
      input: 'protocol=https\nhost=example.invalid\n\n',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  } catch {
    // No credential came back; the helper and askpass ran (or not) before git gave up.
  }
}

const sh = (dir: string, name: string, body: string) => {
  const p = join(dir, '.git', `${name}.sh`);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
};

const VECTORS: Vector[] = [
  {
    marker: 'fsmonitor (through include.path)',
    config: () => `[include]\n\tpath = evil-include.cfg`,
    files: (m, dir) =>
      writeFileSync(
        join(dir, '.git/evil-include.cfg'),
        `[core]\n\tfsmonitor = "${m('fsmonitor (through include.path)')}; false"\n`,
      ),
    control: (h) => tryPlainGit(h.dir, 'status', '--porcelain'),
  },
  {
    marker: 'hook-pre-commit',
    files: (m, dir) => {
      for (const hook of HOOKS) {
        writeFileSync(
          join(dir, '.git/hooks', hook),
          `#!/bin/sh\n${m(`hook-${hook}`)}\ncat >/dev/null 2>&1 || true\nexit 0\n`,
        );
        chmodSync(join(dir, '.git/hooks', hook), 0o755);
      }
    },
    control: (h) => (writeFiles(h.dir, { 'c.md': 'c\n' }), tryPlainGit(h.dir, 'commit', '-q', '-am', 'x')),
  },
  {
    marker: 'editor',
    config: (m) => `[core]\n\teditor = "${m('editor')}; true"`,
    control: (h) => tryPlainGit(h.dir, 'commit', '--allow-empty', '-q'),
  },
  {
    marker: 'ssh',
    config: (m) => `[core]\n\tsshCommand = "${m('ssh')}; false"`,
    control: (h) => tryPlainGit(h.dir, 'ls-remote', 'ssh://git@example.invalid/o/r.git'),
  },
  {
    marker: 'alternate-refs',
    config: (m) => `[core]\n\talternateRefsCommand = "${m('alternate-refs')}; true"`,
    files: (_m, dir) => {
      // Another object store named by .git/objects/info/alternates: fetch then runs core.alternateRefsCommand.
      const alt = tempDir('agent-action-alt-');
      cleanGit(alt, 'init', '-q', '-b', 'main');
      writeFiles(alt, { 'x.txt': 'x\n' });
      cleanGit(alt, 'add', '-A');
      cleanGit(alt, 'commit', '-q', '-m', 'alt');
      writeFileSync(join(dir, '.git/objects/info/alternates'), `${join(alt, '.git/objects')}\n`);
    },
    control: (h) => tryPlainGit(h.dir, 'fetch', '-q', 'origin', 'main'),
  },
  {
    marker: 'credential-helper',
    config: (m) => `[credential]\n\thelper = "!${m('credential-helper')}; true"`,
    control: (h) => credentialFill(h.dir),
  },
  {
    marker: 'askpass',
    config: (m, dir) => `[core]\n\taskPass = ${sh(dir, 'askpass', m('askpass'))}`,
    control: (h) => credentialFill(h.dir),
  },
  {
    marker: 'gpg',
    config: (m, dir) => `[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = ${sh(dir, 'gpg', `${m('gpg')}\nexit 1`)}`,
    control: (h) => tryPlainGit(h.dir, 'commit', '--allow-empty', '-q', '-m', 'x'),
  },
  {
    marker: 'filter-clean',
    config: (m) =>
      `[filter "evil"]\n\tclean = "${m('filter-clean')}; cat"\n\tsmudge = "${m('filter-smudge')}; cat"\n\trequired = true`,
    control: (h) => (writeFiles(h.dir, { 'a.txt': 'changed\n' }), tryPlainGit(h.dir, 'add', 'a.txt')),
  },
  {
    marker: 'filter-smudge',
    config: (m) =>
      `[filter "evil"]\n\tclean = "${m('filter-clean')}; cat"\n\tsmudge = "${m('filter-smudge')}; cat"\n\trequired = true`,
    control: (h) => (rmSync(join(h.dir, 'a.txt')), tryPlainGit(h.dir, 'checkout', '--', 'a.txt')),
  },
  {
    marker: 'filter-process',
    config: (m) => `[filter "proc"]\n\tprocess = "${m('filter-process')}; false"`,
    control: (h) => (writeFiles(h.dir, { 'b.dat': 'changed\n' }), tryPlainGit(h.dir, 'add', 'b.dat')),
  },
  {
    marker: 'textconv',
    config: (m) => `[diff "evil"]\n\ttextconv = "${m('textconv')}; cat"`,
    control: (h) => (writeFiles(h.dir, { 'a.txt': 'changed\n' }), tryPlainGit(h.dir, 'diff')),
  },
  {
    marker: 'diff-driver-command',
    config: (m) => `[diff "evil"]\n\tcommand = "${m('diff-driver-command')}; true"`,
    control: (h) => (writeFiles(h.dir, { 'a.txt': 'changed\n' }), tryPlainGit(h.dir, 'diff')),
  },
  {
    marker: 'diff-external (through includeIf onbranch)',
    config: () => `[includeIf "onbranch:**"]\n\tpath = evil-onbranch.cfg`,
    files: (m, dir) =>
      writeFileSync(
        join(dir, '.git/evil-onbranch.cfg'),
        `[diff]\n\texternal = "${m('diff-external (through includeIf onbranch)')}; true"\n`,
      ),
    control: (h) => (writeFiles(h.dir, { 'a.txt': 'changed\n' }), tryPlainGit(h.dir, 'diff')),
  },
  {
    marker: 'merge-driver',
    config: (m) => `[merge "evil"]\n\tdriver = "${m('merge-driver')}; true"`,
    control: (h) => {
      movedBranch(h);
      writeFiles(h.dir, { 'a.txt': 'ours\n' });
      cleanGit(h.dir, 'commit', '-qam', 'ours');
      cleanGit(h.dir, 'fetch', '-q', 'origin', 'main');
      tryPlainGit(h.dir, 'rebase', '-q', 'FETCH_HEAD');
    },
  },
  {
    marker: 'ext-transport',
    config: () => `[protocol "ext"]\n\tallow = always`,
    control: (h) => tryPlainGit(h.dir, 'ls-remote', `ext::sh -c touch% ${join(h.markers, 'ext-transport')}`),
  },
];

/**
 * A clone with a bare origin whose config arms `vectors` (default: all). The armed config is
 * written last, so the test's own setup never runs it.
 */
function hostileRepo(vectors: readonly Vector[] = VECTORS): Hostile {
  const markers = tempDir('agent-action-markers-');
  const origin = tempDir('agent-action-origin-');
  cleanGit(origin, 'init', '-q', '--bare', '-b', 'main');
  const dir = tempDir('agent-action-hostile-');
  cleanGit(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, {
    'a.txt': 'one\n',
    'b.dat': 'data\n',
    'GEMINI.md': 'memory\n',
    '.gitattributes': '*.txt filter=evil diff=evil merge=evil\n*.dat filter=proc\n',
  });
  cleanGit(dir, 'add', '-A');
  cleanGit(dir, 'commit', '-q', '-m', 'initial');
  cleanGit(dir, 'remote', 'add', 'origin', origin);
  cleanGit(dir, 'push', '-q', 'origin', 'main');
  const m = (name: string) => `touch '${join(markers, name)}'`;
  mkdirSync(join(dir, '.git/hooks'), { recursive: true });
  const config: string[] = [];
  for (const v of vectors) {
    v.files?.(m, dir);
    if (v.config) config.push(v.config(m, dir));
  }
  writeFileSync(join(dir, '.git/config'), `${readFileText(join(dir, '.git/config'))}\n${config.join('\n')}\n`);
  return { dir, origin, markers, marked: () => readdirSync(markers).sort() };
}

const readFileText = (p: string) => readFileSync(p, 'utf8');

describe('vectors are live in plain git (controls)', () => {
  it.each(VECTORS.map((v) => [v.marker, v] as const))('plain git creates the %s marker', (marker, v) => {
    const h = hostileRepo([v]);
    v.control(h);
    expect(h.marked()).toContain(marker);
  });
});

/** Someone else changes a.txt on origin's main: our next push is rejected, then fetched and rebased. */
function movedBranch(h: Hostile): void {
  const other = tempDir('agent-action-other-');
  cleanGit(other, 'clone', '-q', h.origin, '.');
  writeFiles(other, { 'a.txt': 'theirs\n' });
  cleanGit(other, 'commit', '-qam', 'theirs');
  cleanGit(other, 'push', '-q', 'origin', 'main');
}

describe("the action's git with every vector armed", () => {
  it('status, snapshot, session store, trusted config, tools, diff, restore, commit, push, fetch and rebase create no marker', async () => {
    const h = hostileRepo();
    const remote = { url: h.origin };
    const start = await assertGit(h.dir, ['rev-parse', 'HEAD']);
    writeFiles(h.dir, { 'a.txt': 'two\n', 'b.dat': 'more data\n', 'new/c.txt': 'new\n' });

    expect(await readHasChanges(h.dir)).toBe(true);
    const snap = await captureWorktree(h.dir);
    expect(Buffer.from(snap.patchBase64, 'base64').toString()).toContain('+two');

    const store = createGitRefStore({ root: h.dir, remote, key: TEST_KEY });
    const doc = sampleSession();
    const created = await store.create(doc);
    expect(created.ok).toBe(true);
    const read = await store.read(doc.id);
    expect(read?.parsed.ok).toBe(true);
    expect((await store.update(doc.id, read!.version, { ...doc, updatedAt: '2026-01-02T00:00:00.000Z' })).ok).toBe(
      true,
    );
    expect(await store.list()).toHaveLength(1);

    const trusted = await readTrustedConfig({
      workspace: h.dir,
      commit: start,
      contextFileNames: ['GEMINI.md'],
      into: makeTempDir('agent-action-snapshot-'),
    });
    expect(readdirSync(trusted.memoryRoot)).toContain('GEMINI.md');

    const signal = new AbortController().signal;
    expect(await listFiles(h.dir, h.dir, { respectGitIgnore: true, respectGeminiIgnore: false, signal })).toContain(
      'new/c.txt',
    );
    const found: string[] = [];
    await gitGrep(
      {
        root: h.dir,
        absDir: h.dir,
        regex: compileLinearRegex('pattern', 'two', false),
        ignoreCase: false,
        keepPath: () => true,
        signal,
      },
      (m) => (found.push(m.file), true),
    );

    // A caller that forgets --no-textconv/--no-ext-diff: the drivers are still inert (the diff fails instead).
    await runGit(h.dir, ['diff', 'HEAD']);
    expect(await readRemoteBranchExists(h.dir, 'main', { url: 'ssh://git@example.invalid/o/r.git' })).toBe(false);
    expect(
      await readRemoteBranchExists(h.dir, 'main', { url: `ext::sh -c touch% ${join(h.markers, 'ext-transport')}` }),
    ).toBe(false);

    await restoreWorktree(h.dir, snap);
    expect(readFileText(join(h.dir, 'a.txt'))).toBe('two\n');

    const { sha } = await commitWorktree(h.dir, { subject: 'agent-action: fix', coAuthor: 'maintainer' });
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await pushHead(h.dir, 'feature', { remote })).toEqual({ sha, rebased: false });
    expect(cleanGit(h.origin, 'rev-parse', 'feature')).toBe(sha);

    // The branch moves under us: push rejected, fetch, rebase through the armed merge driver.
    movedBranch(h);
    writeFiles(h.dir, { 'a.txt': 'ours\n' });
    await commitWorktree(h.dir, { subject: 'agent-action: more' });
    await expect(pushHead(h.dir, 'main', { remote })).rejects.toThrow(/conflict/);

    expect(h.marked()).toEqual([]);
    // No identity, key or token was written into the repository's config along the way.
    expect(readFileText(join(h.dir, '.git/config'))).not.toMatch(/extraheader|x-access-token|remote "agent-action-/i);
  });

  it('core.hooksPath pointing at a folder of hooks: committing and pushing run none of them', async () => {
    const h = hostileRepo([]);
    const hooks = tempDir('agent-action-hooks-');
    for (const hook of HOOKS) {
      writeFileSync(join(hooks, hook), `#!/bin/sh\ntouch '${join(h.markers, `hooks-path-${hook}`)}'\nexit 0\n`);
      chmodSync(join(hooks, hook), 0o755);
    }
    cleanGit(h.dir, 'config', 'core.hooksPath', hooks);
    tryPlainGit(h.dir, 'update-ref', 'refs/heads/control', 'HEAD');
    expect(h.marked()).toEqual(['hooks-path-reference-transaction']);
    rmSync(join(h.markers, 'hooks-path-reference-transaction'));

    writeFiles(h.dir, { 'c.md': 'c\n' });
    await commitWorktree(h.dir, { subject: 'x' });
    await pushHead(h.dir, 'feature', { remote: { url: h.origin } });
    expect(h.marked()).toEqual([]);
  });
});

describe('config the command scope cannot override is refused, and nothing runs', () => {
  it('remote.<name>.uploadpack (git keeps the first value): a partial clone would run it on a lazy fetch', async () => {
    const h = hostileRepo([]);
    cleanGit(h.dir, 'config', 'remote.origin.uploadpack', `touch '${join(h.markers, 'uploadpack')}'; git-upload-pack`);
    tryPlainGit(h.dir, 'fetch', '-q', 'origin');
    expect(h.marked()).toContain('uploadpack');
    for (const f of h.marked()) rmSync(join(h.markers, f));
    await expect(readHasChanges(h.dir)).rejects.toThrow(/sets remote\.origin\.uploadpack \(a command git runs\)/);
    await expect(
      createGitRefStore({ root: h.dir, remote: { url: h.origin }, key: TEST_KEY }).read('s-1'),
    ).rejects.toThrow(/remote\.origin\.uploadpack/);
    expect(h.marked()).toEqual([]);
  });

  it('core.worktree pointing elsewhere: nothing of that directory is read, committed or pushed', async () => {
    const h = hostileRepo();
    const secrets = tempDir('agent-action-home-');
    writeFiles(secrets, { '.ssh/id_rsa': 'PRIVATE KEY\n' });
    cleanGit(h.dir, 'config', 'core.worktree', secrets);
    expect(plainGit(h.dir, '-c', 'core.fsmonitor=false', 'status', '--porcelain', '--untracked-files=all')).toContain(
      '.ssh/id_rsa',
    );
    await expect(commitWorktree(h.dir, { subject: 'x' })).rejects.toThrow(
      /sets core\.worktree to .*runs git only on the checked-out work tree/,
    );
    expect(cleanGit(h.origin, 'ls-tree', '-r', '--name-only', 'main')).not.toContain('id_rsa');
  });

  it('url.<elsewhere>.insteadOf rewriting the remote: no push goes there', async () => {
    const h = hostileRepo();
    const elsewhere = tempDir('agent-action-elsewhere-');
    cleanGit(elsewhere, 'init', '-q', '--bare');
    cleanGit(h.dir, 'config', `url.${elsewhere}.insteadOf`, h.origin);
    writeFiles(h.dir, { 'c.md': 'c\n' });
    await commitWorktree(h.dir, { subject: 'x' });
    await expect(pushHead(h.dir, 'feature', { remote: { url: h.origin } })).rejects.toThrow(
      /rewrites .* \(url\..*\.insteadof = /,
    );
    expect(cleanGit(elsewhere, 'for-each-ref')).toBe('');
    // The same push with plain git lands in the other repository.
    tryPlainGit(h.dir, '-c', 'core.hooksPath=/dev/null', 'push', '-q', h.origin, 'HEAD:refs/heads/feature');
    expect(cleanGit(elsewhere, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/feature');
  });
});

describe('configuration from outside the repository, and helpers by name', () => {
  const saved = { HOME: process.env.HOME, PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("a ~/.gitconfig (or XDG config) the model wrote where the sandbox does not hold: the action's git reads none", async () => {
    const h = hostileRepo([]);
    const home = tempDir('agent-action-home-');
    writeFiles(home, {
      '.gitconfig': `[core]\n\tfsmonitor = "touch '${join(h.markers, 'global-fsmonitor')}'; false"\n`,
      '.config/git/config': `[core]\n\thooksPath = /nonexistent\n\tfsmonitor = "touch '${join(h.markers, 'xdg-fsmonitor')}'; false"\n`,
    });
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, '.config');
    execFileSync('git', ['status', '--porcelain'], {
      cwd: h.dir,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: 'ignore',
    });
    expect(h.marked()).toEqual(['global-fsmonitor']);
    rmSync(join(h.markers, 'global-fsmonitor'));
    writeFiles(h.dir, { 'a.txt': 'two\n' });
    expect(await readHasChanges(h.dir)).toBe(true);
    await captureWorktree(h.dir);
    expect(h.marked()).toEqual([]);
  });

  it('a remote helper named by the config (a partial clone whose promisor remote has vcs = <name>) is refused by protocol.allow', async () => {
    const h = hostileRepo([]);
    const bin = tempDir('agent-action-bin-');
    writeFileSync(join(bin, 'git-remote-evil'), `#!/bin/sh\ntouch '${join(h.markers, 'remote-helper')}'\nexit 1\n`);
    chmodSync(join(bin, 'git-remote-evil'), 0o755);
    process.env.PATH = `${bin}:${saved.PATH}`;
    // A blob the snapshot's diff needs is missing: git asks the promisor remote for it.
    const blob = cleanGit(h.dir, 'rev-parse', 'HEAD:a.txt');
    rmSync(join(h.dir, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    for (const [k, v] of [
      ['core.repositoryformatversion', '1'],
      ['extensions.partialClone', 'p'],
      ['remote.p.vcs', 'evil'],
      ['remote.p.url', 'x'],
      ['remote.p.promisor', 'true'],
    ])
      cleanGit(h.dir, 'config', k, v);
    writeFiles(h.dir, { 'a.txt': 'two\n' });
    tryPlainGit(h.dir, 'diff', 'HEAD', '--', 'a.txt');
    expect(h.marked()).toEqual(['remote-helper']);
    rmSync(join(h.markers, 'remote-helper'));
    await expect(captureWorktree(h.dir)).rejects.toThrow(/git diff failed/);
    expect(h.marked()).toEqual([]);
  });
});
