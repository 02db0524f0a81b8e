/**
 * What the bundled CLI loads for a command (issue #16): `--version` and `--help` run from
 * dist/cli/index.js alone, `policy check` on a plain tool runs without the model client's chunk
 * (@google/genai and what it pulls in) and without the bash grammar. Each case copies only the
 * files the command may need into a fresh folder and runs the bundle there: a static import that
 * pulls the SDK, the tools or the grammar back into start-up makes the command fail. The CLI loads
 * the chunks it shares with the action from dist/ (scripts/build.mjs), so both folders' chunks are
 * candidates. The entry turns on Node's compile cache for the chunks it loads. Build first.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/git-repo.js';

const ROOT = join(import.meta.dirname, '../..');
const DIST_CLI = join(ROOT, 'dist/cli');
const DIST = join(ROOT, 'dist');
/** Chunk files the CLI can load: its own, and the ones it shares with the action one folder up. */
const chunkDirs = [DIST_CLI, DIST];
const chunksIn = (dir: string) => readdirSync(dir).filter((f) => /^\d+\.index\.js$/.test(f));
const NODE24 = join(ROOT, 'test/node24/node_modules/.bin/node');

/**
 * The SDK's client class, declared (unminified) or named by esbuild's keepNames in the minified
 * build: on the class (`(this,"GoogleGenAI")`) or on the module's export getter (`,"GoogleGenAI")`).
 */
const definesClient = (code: string) => code.includes('class GoogleGenAI') || code.includes(',"GoogleGenAI")');
const isSdkChunk = (code: string) => definesClient(code) || code.includes('google-auth-library');

/** A package folder like the installed one (package.json, policies/) whose dist/cli holds only `chunks`. */
function layout(chunks: (file: string, code: string) => boolean): string {
  const root = makeTempDir('cli-startup-'); // removed after this file
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'agent-action', version: '0.1.0', type: 'module' }));
  cpSync(join(ROOT, 'policies'), join(root, 'policies'), { recursive: true });
  const cli = join(root, 'dist/cli');
  mkdirSync(cli, { recursive: true });
  copyFileSync(join(DIST_CLI, 'package.json'), join(cli, 'package.json'));
  copyFileSync(join(DIST_CLI, 'index.js'), join(cli, 'index.js'));
  for (const [from, to] of [
    [DIST_CLI, cli],
    [DIST, join(root, 'dist')],
  ] as const) {
    for (const f of chunksIn(from)) if (chunks(f, readFileSync(join(from, f), 'utf8'))) copyFileSync(join(from, f), join(to, f));
  }
  // No .wasm files: the bash grammar cannot load here.
  return join(cli, 'index.js');
}

const run = (cli: string, args: string[]) => spawnSync(NODE24, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });

describe('the CLI bundle loads only what a command needs', () => {
  it('keeps the model client out of the entry file: the SDK is a chunk of its own', () => {
    const entry = readFileSync(join(DIST_CLI, 'index.js'), 'utf8');
    expect(isSdkChunk(entry)).toBe(false);
    const sdk = chunkDirs.flatMap((dir) => chunksIn(dir).filter((f) => isSdkChunk(readFileSync(join(dir, f), 'utf8'))));
    expect(sdk.length).toBeGreaterThan(0);
  });

  it('ships each chunk the two bundles share once: the SDK lives in dist/, where the action and the CLI load it from', () => {
    const twins = chunksIn(DIST_CLI).filter((f) => chunksIn(DIST).includes(f) && readFileSync(join(DIST_CLI, f)).equals(readFileSync(join(DIST, f))));
    // The only twins kept: chunks that resolve paths against their own file (web-tree-sitter's), which the build leaves beside the CLI.
    expect(twins.filter((f) => !readFileSync(join(DIST_CLI, f), 'utf8').includes('import.meta'))).toEqual([]);
    const client = (dir: string) => chunksIn(dir).filter((f) => definesClient(readFileSync(join(dir, f), 'utf8')));
    expect(client(DIST)).toHaveLength(1);
    // Known gap (issue #16): since the SDK's fetch build, the CLI bundle has fewer than ~1,000
    // modules, so webpack's deterministic module ids are a digit shorter there than in the action's
    // and the SDK chunk comes out the same but for its ids: it ships twice (~450 KB). A copy beside
    // the CLI is tolerated only when it is that: the action's chunk with other numbers.
    const digitless = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8').replace(/\d+/g, '#');
    for (const f of client(DIST_CLI)) expect(client(DIST).some((g) => digitless(DIST, g) === digitless(DIST_CLI, f))).toBe(true);
  });

  it('runs --version and --help from the entry file alone', () => {
    const cli = layout(() => false);
    const version = run(cli, ['--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout.trim()).toBe('0.1.0');
    const help = run(cli, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('policy check');
  });

  it('decides a plain tool with policy check without the SDK chunk or the bash grammar; a shell command needs the grammar', () => {
    const cli = layout((_f, code) => !isSdkChunk(code));
    const plain = run(cli, ['policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}', '--json']);
    expect(plain.stderr).toBe('');
    expect(plain.status).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ decision: 'allow' });
    // The control: in this folder a shell command cannot be decided, so the case above proves the grammar was not loaded.
    const shell = run(cli, ['policy', 'check', '--tool', 'run_shell_command', '--args', '{"command":"ls && git status"}', '--json']);
    expect(shell.status).not.toBe(0);
    expect(shell.stdout + shell.stderr).toContain('tree-sitter');
  });

  it('keeps compiled code between runs in the compile cache, and runs as well when the cache cannot be made', () => {
    const cli = layout((_f, code) => !isSdkChunk(code));
    const policyCheck = ['policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}', '--json'];
    // The cache lives in the temporary folder (not NODE_COMPILE_CACHE, which would turn it on by itself).
    const withCache = (tmpdir: string) => spawnSync(NODE24, [cli, ...policyCheck], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir } });
    const tmp = makeTempDir('cli-compile-cache-');
    const cold = withCache(tmp);
    expect(cold.stderr).toBe('');
    expect(JSON.parse(cold.stdout)).toMatchObject({ decision: 'allow' });
    // Node keeps one folder per Node version and compile options, holding one file per module compiled.
    const cached = readdirSync(join(tmp, 'node-compile-cache'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(cached.length).toBeGreaterThan(0);
    const warm = withCache(tmp);
    expect(warm.stderr).toBe('');
    expect(warm.stdout).toBe(cold.stdout);
    // A cache folder below a regular file cannot be created: the command runs the same, silently.
    writeFileSync(join(tmp, 'file'), '');
    const broken = withCache(join(tmp, 'file'));
    expect(broken.stderr).toBe('');
    expect(broken.status).toBe(0);
    expect(broken.stdout).toBe(cold.stdout);
  });
});
