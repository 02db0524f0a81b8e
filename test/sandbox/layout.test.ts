/**
 * The host paths a sandbox plan is made of, looked at on disk (src/sandbox/layout.ts): real
 * folders, files and symlinks made for each test, and the literal paths each function must give.
 * The folders live where the toolchain rules allow (test/support/bindable-dir.ts), never under
 * /tmp or /home: the rules refuse those, which is what some of these tests check.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { makeBindableDir } from '../support/bindable-dir.js';
import {
  chooseToolchainDirs,
  chooseWritableDirs,
  readHiddenEntries,
  readProtectedLayout,
  readResolvConfTarget,
  readSystemEntries,
  readToolchainDirs,
} from '../../src/sandbox/layout.js';

let root: string;
beforeAll(() => {
  root = makeBindableDir('layout-test-');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh folder under root holding `files` (path -> content, or `{ link }` for a symlink, or `{}` for a folder). */
function tree(name: string, files: Record<string, string | { link: string } | Record<string, never>>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [path, what] of Object.entries(files)) {
    const abs = join(dir, path);
    mkdirSync(join(abs, '..'), { recursive: true });
    if (typeof what === 'string') writeFileSync(abs, what);
    else if ('link' in what) symlinkSync(what.link, abs);
    else mkdirSync(abs, { recursive: true });
  }
  return dir;
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('readSystemEntries', () => {
  it('gives each system folder under the root as found: folders, files and symlinks (not followed); absent ones are left out', async () => {
    const d = tree('system-all', {
      usr: {},
      bin: { link: 'usr/bin' },
      sbin: { link: 'usr/sbin' },
      lib: { link: 'usr/lib' },
      lib32: {},
      lib64: { link: 'usr/lib64' },
      libx32: {},
      etc: {},
      opt: 'a file',
      nix: {},
      home: {},
      root: {},
      tmp: {},
      var: {},
      run: {},
    });
    expect(await readSystemEntries(d)).toEqual([
      { path: `${d}/usr`, kind: 'dir' },
      { path: `${d}/bin`, kind: 'symlink', target: 'usr/bin' },
      { path: `${d}/sbin`, kind: 'symlink', target: 'usr/sbin' },
      { path: `${d}/lib`, kind: 'symlink', target: 'usr/lib' },
      { path: `${d}/lib32`, kind: 'dir' },
      { path: `${d}/lib64`, kind: 'symlink', target: 'usr/lib64' },
      { path: `${d}/libx32`, kind: 'dir' },
      { path: `${d}/etc`, kind: 'dir' },
      { path: `${d}/opt`, kind: 'file' },
      { path: `${d}/nix`, kind: 'dir' },
    ]);
    const sparse = tree('system-sparse', { usr: {}, etc: {} });
    expect(await readSystemEntries(sparse)).toEqual([
      { path: `${sparse}/usr`, kind: 'dir' },
      { path: `${sparse}/etc`, kind: 'dir' },
    ]);
  });

  it('by default looks at / itself', async () => {
    const entries = await readSystemEntries();
    expect(entries.find((e) => e.path === '/usr')).toEqual({ path: '/usr', kind: 'dir' });
    expect(entries.find((e) => e.path === '/etc')).toEqual({ path: '/etc', kind: 'dir' });
  });
});

describe('chooseToolchainDirs', () => {
  const o = { bound: [] as string[], home: '/u/me', hidden: ['/r/_temp'], workspace: '/w/repo' };

  it.each([
    '/home',
    '/root',
    '/tmp',
    '/var',
    '/run',
    '/proc',
    '/sys',
    '/dev',
    '/mnt',
    '/media',
    '/srv',
    '/boot',
    '/lost+found',
  ])('never binds a PATH folder under %s', (top) => {
    expect(chooseToolchainDirs(`${top}/tools/bin:/snap/bin`, o)).toEqual(['/snap/bin']);
    expect(chooseToolchainDirs(top, o)).toEqual([]);
  });

  it('never binds the home, the workspace, a hidden path or anything inside them; normalizes and deduplicates the rest', () => {
    expect(
      chooseToolchainDirs('/u/me/.cargo/bin:/u/me:/w/repo/node_modules/.bin:/w/repo:/r/_temp/bin:/r/_temp', o),
    ).toEqual([]);
    expect(chooseToolchainDirs('/u/mine/bin:/w/repository/bin:/r/_temporary', o)).toEqual([
      '/u/mine/bin',
      '/w/repository/bin',
      '/r/_temporary',
    ]);
    expect(chooseToolchainDirs('/a//b/../c/:/a/c:/a/c///', o)).toEqual(['/a/c']);
    expect(chooseToolchainDirs('//:/x', o)).toEqual(['/x']);
    expect(chooseToolchainDirs(undefined, o)).toEqual([]);
    expect(chooseToolchainDirs('/usr/local/bin:/usr', { ...o, bound: ['/usr'] })).toEqual([]);
    expect(chooseToolchainDirs('/usrx/bin', { ...o, bound: ['/usr'] })).toEqual(['/usrx/bin']);
  });
});

describe('chooseWritableDirs', () => {
  it.each(['/', '/proc', '/sys', '/dev', '/etc', '/usr', '/tmp', '/home', '/root', '/run', '/var'])(
    'refuses %s itself',
    (dir) => {
      expect(chooseWritableDirs([dir, `${dir}/`], { home: '/u/me', hidden: [] }).refused).toEqual([dir, `${dir}/`]);
    },
  );

  it('a folder related to any one of several hidden paths is refused', () => {
    expect(chooseWritableDirs(['/r/a/x', '/r/b', '/r/c'], { home: '/u/me', hidden: ['/r/a', '/r/b/y'] })).toEqual({
      allowed: ['/r/c'],
      refused: ['/r/a/x', '/r/b'],
    });
  });

  it('allows a folder inside them, normalized; refuses the home and above, a hidden path, inside or above it', () => {
    const r = chooseWritableDirs(
      [
        '/proc/x',
        '/etc/cache/',
        '/var//cache/npm',
        '/u',
        '/u/me',
        '/u/me/.npm',
        '/r/_temp/x',
        '/r',
        '/rx/_temp',
        'rel/x',
      ],
      { home: '/u/me', hidden: ['/r/_temp'] },
    );
    expect(r).toEqual({
      allowed: ['/proc/x', '/etc/cache', '/var/cache/npm', '/u/me/.npm', '/rx/_temp'],
      refused: ['/u', '/u/me', '/r/_temp/x', '/r', 'rel/x'],
    });
  });
});

describe('readToolchainDirs', () => {
  it('keeps real folders by their real paths, once; drops files, absent entries and links into a forbidden place', async () => {
    const d = tree('toolchains', {
      'tools/bin/x': 'x',
      'tools/file': 'x',
      'ws/bin/x': 'x',
      'other/bin': {},
      'link-to-tools': { link: 'tools/bin' },
      'link-into-ws': { link: 'ws/bin' },
      'link-to-file': { link: 'tools/file' },
    });
    const o = { bound: [], home: '/u/me', hidden: [], workspace: `${d}/ws` };
    const path = [
      `${d}/tools/bin`,
      `${d}/link-to-tools`,
      `${d}/absent`,
      `${d}/tools/file`,
      `${d}/link-into-ws`,
      `${d}/link-to-file`,
      `${d}/other/bin`,
      '/tmp',
    ].join(':');
    expect(await readToolchainDirs(path, o)).toEqual([`${d}/tools/bin`, `${d}/other/bin`]);
    expect(await readToolchainDirs(`${d}/link-to-tools`, o)).toEqual([`${d}/tools/bin`]);
  });
});

describe('readProtectedLayout', () => {
  it('present folders and files by kind, absent ones by path, and a regular .git/config to sanitize', async () => {
    const d = tree('protected-1', {
      '.git/config': '[core]\n',
      '.github/workflows/ci.yml': 'on: push\n',
      'README.md': 'x',
    });
    expect(await readProtectedLayout(d)).toEqual({
      present: [
        { path: `${d}/.git`, kind: 'dir' },
        { path: `${d}/.github`, kind: 'dir' },
      ],
      absent: [`${d}/.gemini`],
      gitConfig: `${d}/.git/config`,
    });
  });

  it('a .git file (a worktree) and a .gemini file: present as files, no config to replace', async () => {
    const d = tree('protected-2', { '.git': 'gitdir: /elsewhere\n', '.gemini': 'x', '.github/x': 'y' });
    expect(await readProtectedLayout(d)).toEqual({
      present: [
        { path: `${d}/.git`, kind: 'file' },
        { path: `${d}/.gemini`, kind: 'file' },
        { path: `${d}/.github`, kind: 'dir' },
      ],
      absent: [],
    });
  });

  it('a .git folder without config, or with a folder named config: nothing to replace', async () => {
    expect(await readProtectedLayout(tree('protected-3', { '.git/HEAD': 'x' }))).not.toHaveProperty('gitConfig');
    expect(await readProtectedLayout(tree('protected-4', { '.git/config/x': 'x' }))).not.toHaveProperty('gitConfig');
  });

  it("an empty workspace: all three absent; a config under .gemini is not git's", async () => {
    const d = tree('protected-empty', {});
    expect(await readProtectedLayout(d)).toEqual({
      present: [],
      absent: [`${d}/.git`, `${d}/.gemini`, `${d}/.github`],
    });
    const g = tree('protected-gemini-config', { '.gemini/config': 'x' });
    expect(await readProtectedLayout(g)).toEqual({
      present: [{ path: `${g}/.gemini`, kind: 'dir' }],
      absent: [`${g}/.git`, `${g}/.github`],
    });
  });

  it.each(['.git', '.gemini', '.github'])('refuses %s as a symlink, naming it', async (name) => {
    const d = tree(`protected-link${name}`, { target: {}, [name]: { link: 'target' } });
    const e = await rejection(readProtectedLayout(d));
    expect(isAgentError(e) && e.kind).toBe('config');
    expect((e as Error).message).toBe(
      `${d}/${name} is a symbolic link: the sandbox cannot protect it (replace it with a folder)`,
    );
    expect(isAgentError(e) && e.site).toEqual({ file: `${d}/${name}` });
  });

  it('refuses a .git/config that is a symlink (the copy would be read through it)', async () => {
    const d = tree('protected-config-link', { '.git/real': '[core]\n', '.git/config': { link: 'real' } });
    const e = await rejection(readProtectedLayout(d));
    expect(isAgentError(e) && e.kind).toBe('config');
    expect((e as Error).message).toBe(
      `${d}/.git/config is a symbolic link: the sandbox cannot replace it with a sanitized copy`,
    );
    expect(isAgentError(e) && e.site).toEqual({ file: `${d}/.git/config` });
  });
});

describe('readHiddenEntries', () => {
  it('gives each existing path by its real path and kind, and leaves out what does not exist', async () => {
    const d = tree('hidden', {
      temp: {},
      'env-file': 'x',
      'link-to-temp': { link: 'temp' },
      dangling: { link: 'nowhere' },
    });
    expect(
      await readHiddenEntries([`${d}/temp`, `${d}/env-file`, `${d}/link-to-temp`, `${d}/absent`, `${d}/dangling`]),
    ).toEqual([
      { path: `${d}/temp`, kind: 'dir' },
      { path: `${d}/env-file`, kind: 'file' },
      { path: `${d}/temp`, kind: 'dir' },
    ]);
  });
});

describe('readResolvConfTarget', () => {
  it("is the file's real path only when that lies outside /etc (Ubuntu's /run/systemd/resolve/stub-resolv.conf)", async () => {
    const d = tree('resolv', {
      'run/stub-resolv.conf': 'nameserver 127.0.0.53\n',
      'resolv.conf': { link: 'run/stub-resolv.conf' },
      'etc-link': { link: '/etc/hostname' },
      dangling: { link: 'nowhere' },
    });
    expect(await readResolvConfTarget(`${d}/resolv.conf`)).toBe(`${d}/run/stub-resolv.conf`);
    expect(await readResolvConfTarget(`${d}/etc-link`)).toBeUndefined();
    expect(await readResolvConfTarget('/etc/hostname')).toBeUndefined();
    expect(await readResolvConfTarget(`${d}/dangling`)).toBeUndefined();
    expect(await readResolvConfTarget(`${d}/absent`)).toBeUndefined();
  });
});
