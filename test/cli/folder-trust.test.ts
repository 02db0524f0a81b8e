/**
 * The CLI's folder-trust rule: which entry of trustedFolders.json decides, what a folder no entry
 * names gets, and that a trust file that cannot be read trusts nothing.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distrustFolder, readFolderTrust, untrustedNote } from '../../src/cli/folder-trust.js';
import { makeTempDir } from '../support/git-repo.js';

let dir: string;
let file: string;
const env = () => ({ GEMINI_CLI_TRUSTED_FOLDERS_PATH: file });
const write = (entries: unknown) =>
  writeFileSync(file, typeof entries === 'string' ? entries : JSON.stringify(entries));
beforeEach(() => {
  dir = makeTempDir('agent-action-trust-');
  file = join(dir, 'trustedFolders.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readFolderTrust', () => {
  it.each([
    ['no entry (folder trust off by default)', {}, '/w/p', true],
    ['TRUST_FOLDER of the folder', { '/w/p': 'TRUST_FOLDER' }, '/w/p', true],
    ['TRUST_FOLDER of an ancestor', { '/w': 'TRUST_FOLDER' }, '/w/p/q', true],
    ['TRUST_PARENT of a sibling', { '/w/other': 'TRUST_PARENT' }, '/w/p', true],
    ['DO_NOT_TRUST of the folder', { '/w/p': 'DO_NOT_TRUST' }, '/w/p', false],
    [
      'DO_NOT_TRUST below a trusted ancestor: the deeper entry wins',
      { '/w': 'TRUST_FOLDER', '/w/p': 'DO_NOT_TRUST' },
      '/w/p',
      false,
    ],
    ['TRUST_FOLDER below a distrusted ancestor', { '/w': 'DO_NOT_TRUST', '/w/p': 'TRUST_FOLDER' }, '/w/p', true],
    ['a name prefix is no ancestor', { '/w/p': 'DO_NOT_TRUST' }, '/w/pp', true],
    ['an unknown level counts for nothing', { '/w/p': 'MAYBE' }, '/w/p', true],
  ])('%s', (_name, entries, root, trusted) => {
    write(entries);
    expect(readFolderTrust(root, env()).trusted).toBe(trusted);
  });

  it('a trust file that is not JSON trusts nothing, and says which file', () => {
    write('{ nope');
    const t = readFolderTrust('/w/p', env());
    expect(t.trusted).toBe(false);
    expect(t.warning).toContain(`${file} cannot be read`);
  });
});

describe('distrustFolder and the note', () => {
  it('keeps the other entries, marks the folder, and the note says how to trust it when there is a .gemini/', () => {
    write({ '/w': 'TRUST_FOLDER' });
    const root = join(dir, 'p');
    mkdirSync(join(root, '.gemini'), { recursive: true });
    distrustFolder(root, env());
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ '/w': 'TRUST_FOLDER', [root]: 'DO_NOT_TRUST' });
    const trust = readFolderTrust(root, env());
    expect(untrustedNote(root, trust)).toBe(
      `this folder is not trusted (${root} is DO_NOT_TRUST in ${file}). To trust it, review its .gemini/ and set "${root}": "TRUST_FOLDER" in ${file}. Until then its .gemini/ settings (hooks, MCP servers, agent and loop settings), agents and policies are not used.`,
    );
    expect(untrustedNote(dir, readFolderTrust(dir, env()))).toBeUndefined();
  });
});
