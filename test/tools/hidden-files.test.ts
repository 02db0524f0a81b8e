import { generateKeyPairSync } from 'node:crypto';
import { linkSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialFilesOf, hideFromFileTools } from '../../src/tools/hidden-files.js';
import { readInjectedPath } from '../../src/commands/inject-file.js';
import { createRepo, makeTempDir, writeFiles } from '../support/git-repo.js';
import { call, makeEnv } from './helpers.js';
import type { ToolEnv } from '../../src/tools/define-tool.js';

const KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const CREDS = JSON.stringify({ type: 'service_account', project_id: 'victim-project', private_key: KEY });
/** A line of the key's body: what must never come back. */
const KEY_LINE = KEY.split('\n')[5]!;

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) hideFromFileTools(r, []);
});

/** A workspace holding the credentials file, a symlink and a hard link to it, and files that must stay visible. */
function workspace(kind: 'git' | 'plain'): { env: ToolEnv; root: string; creds: string } {
  const files = {
    'package.json': '{"name":"app"}\n',
    'notes.txt': 'BEGIN PRIVATE notes\n',
    'src/config.json': '{"private_key":"not a secret"}\n',
  };
  let root: string;
  if (kind === 'git') root = realpathSync(createRepo(files).dir);
  else {
    root = realpathSync(makeTempDir());
    writeFiles(root, files);
  }
  const creds = join(root, 'gha-creds-0123abcd.json');
  writeFileSync(creds, CREDS);
  symlinkSync('gha-creds-0123abcd.json', join(root, 'link.json'));
  linkSync(creds, join(root, 'hard.txt'));
  hideFromFileTools(root, credentialFilesOf(root, { GOOGLE_APPLICATION_CREDENTIALS: creds }, []));
  roots.push(root);
  return { env: makeEnv(root), root, creds };
}

/** What the model gets back: the output, or the refusal's message. */
async function attempt(env: ToolEnv, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    return (await call(env, name, args)).forModel;
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
}

describe('credentialFilesOf', () => {
  it('names the file the variables name and the root-level gha-creds-*.json, nothing else', () => {
    const got = credentialFilesOf(
      '/ws',
      { GOOGLE_APPLICATION_CREDENTIALS: '/ws/sa.json', GOOGLE_GHA_CREDS_PATH: 'relative.json' },
      ['gha-creds-1.json', 'sub/gha-creds-2.json', 'config.json', 'gha-creds-3.json.bak'],
    );
    expect(got).toEqual(['/ws/sa.json', '/ws/gha-creds-1.json']);
  });
});

describe.each(['git', 'plain'] as const)('the credentials file in a %s workspace', (kind) => {
  it('read_file refuses it by name, through a symlink and through a hard link', async () => {
    const { env } = workspace(kind);
    for (const file_path of ['gha-creds-0123abcd.json', 'link.json', 'hard.txt', './gha-creds-0123abcd.json']) {
      const got = await attempt(env, 'read_file', { file_path });
      expect(got, file_path).toMatch(/credentials file/);
      expect(got).not.toContain('victim');
    }
    // Narrow: other JSON, with the same key name in it, is read.
    expect(await attempt(env, 'read_file', { file_path: 'src/config.json' })).toContain('not a secret');
  });

  it('grep_search never reports a line of it, whatever the pattern', async () => {
    const { env } = workspace(kind);
    const out = await attempt(env, 'grep_search', { pattern: 'PRIVATE|service_account' });
    expect(out).toContain('notes.txt');
    expect(out).toContain('src/config.json');
    for (const hidden of ['gha-creds', 'link.json', 'hard.txt', 'victim-project', KEY_LINE])
      expect(out).not.toContain(hidden);
    const oracle = await attempt(env, 'grep_search', { pattern: KEY_LINE.slice(0, 12) });
    expect(oracle).toMatch(/no match/i);
  });

  it('glob and list_directory do not show it, its symlink or its hard link', async () => {
    const { env } = workspace(kind);
    const globbed = await attempt(env, 'glob', { pattern: '**/*' });
    const listed = await attempt(env, 'list_directory', { dir_path: '.' });
    for (const out of [globbed, listed]) {
      expect(out).toContain('package.json');
      expect(out).not.toContain('gha-creds');
      expect(out).not.toContain('link.json');
      expect(out).not.toContain('hard.txt');
    }
  });

  it('write_file and replace change none of it', async () => {
    const { env, creds } = workspace(kind);
    for (const file_path of ['gha-creds-0123abcd.json', 'link.json', 'hard.txt']) {
      const written = await attempt(env, 'write_file', { file_path, content: '{}' });
      expect(written, file_path).toMatch(/credentials file/);
      expect(written).not.toContain('victim');
      const replaced = await attempt(env, 'replace', {
        file_path,
        old_string: 'victim-project',
        new_string: 'x',
      });
      expect(replaced, file_path).toMatch(/credentials file/);
    }
    expect(readFileSync(creds, 'utf8')).toBe(CREDS);
    expect(readFileSync(join(env.root, 'hard.txt'), 'utf8')).toBe(CREDS);
  });
});

describe('@{path} in a custom command', () => {
  it('refuses the file and its links, and leaves them out of a folder', async () => {
    const { root } = workspace('plain');
    for (const given of ['gha-creds-0123abcd.json', 'link.json', 'hard.txt'])
      await expect(readInjectedPath(root, given), given).rejects.toThrow(/credentials file/);
    const folder = await readInjectedPath(root, '.');
    expect(folder).toContain('notes.txt');
    for (const hidden of ['gha-creds', 'link.json', 'hard.txt', 'victim-project']) expect(folder).not.toContain(hidden);
  });
});

describe('a workspace with nothing hidden', () => {
  it('reads a gha-creds-*.json like any file (the hiding is the face’s choice, per root)', async () => {
    const root = realpathSync(makeTempDir());
    writeFiles(root, { 'gha-creds-x.json': '{"a":1}\n' });
    expect(await attempt(makeEnv(root), 'read_file', { file_path: 'gha-creds-x.json' })).toContain('"a":1');
  });
});
