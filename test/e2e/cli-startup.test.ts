/**
 * What the bundled CLI loads for a command (issue #16): `--version` and `--help` run from the
 * entry files and the CLI's own chunk alone, `policy check` on a plain tool runs without the model
 * client's chunk (@google/genai and what it pulls in) and without the bash grammar, and the first
 * model request declares every tool in plain JSON Schema. Each case copies
 * only the files the command may need into a fresh folder and runs the bundle there: a static import
 * that pulls the SDK, the tools or the grammar back into start-up makes the command fail. The action
 * and the CLI are one bundle (scripts/build.mjs): dist/cli/index.js imports dist/index.js, and every
 * chunk is in dist/. The CLI entry (scripts/cli-bin.mjs) keeps compiled code between runs: Node's compile
 * cache, and a V8 code cache of each chunk made at the end of a run. Build first.
 */
import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCliAt } from '../support/cli-runner.js';
import { reply, startFakeGemini, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';

const ROOT = join(import.meta.dirname, '../..');
const DIST_CLI = join(ROOT, 'dist/cli');
const DIST = join(ROOT, 'dist');
const chunksIn = (dir: string) => readdirSync(dir).filter((f) => /^\d+\.index\.js$/.test(f));
const NODE24 = join(ROOT, 'test/node24/node_modules/.bin/node');

/**
 * The SDK's client class, declared (unminified) or named by esbuild's keepNames in the minified
 * build: on the class (`(this,"GoogleGenAI")`) or on the module's export getter (`,"GoogleGenAI")`).
 */
const definesClient = (code: string) => code.includes('class GoogleGenAI') || code.includes(',"GoogleGenAI")');
const isSdkChunk = (code: string) => definesClient(code) || code.includes('google-auth-library');
/** The chunk of the CLI's own entry: it holds the usage text. */
const isCliEntryChunk = (code: string) => code.includes('print the version');

/** A package folder like the installed one (package.json) whose dist/ holds the entries, the built-in policies and only `chunks`. */
function layout(chunks: (file: string, code: string) => boolean): string {
  const root = makeTempDir('cli-startup-'); // removed after this file
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'agent-action', version: '0.1.0', type: 'module' }));
  const dist = join(root, 'dist');
  cpSync(join(DIST, 'policies'), join(dist, 'policies'), { recursive: true });
  mkdirSync(join(dist, 'cli'), { recursive: true });
  for (const f of ['index.js', 'package.json', 'cli/index.js']) copyFileSync(join(DIST, f), join(dist, f));
  for (const f of chunksIn(DIST)) if (chunks(f, readFileSync(join(DIST, f), 'utf8'))) copyFileSync(join(DIST, f), join(dist, f));
  // No .wasm files: the bash grammar cannot load here.
  return join(dist, 'cli/index.js');
}

const run = (cli: string, args: string[]) => spawnSync(NODE24, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });

describe('the CLI bundle loads only what a command needs', () => {
  it('keeps the model client out of the entry files: the SDK is a chunk of its own', () => {
    for (const entry of ['index.js', 'cli/index.js']) expect(isSdkChunk(readFileSync(join(DIST, entry), 'utf8'))).toBe(false);
    expect(chunksIn(DIST).filter((f) => definesClient(readFileSync(join(DIST, f), 'utf8')))).toHaveLength(1);
  });

  it('ships every chunk once: the CLI entry is a few lines that import the one bundle', () => {
    expect(readdirSync(DIST_CLI)).toEqual(['index.js']);
    expect(readFileSync(join(DIST_CLI, 'index.js'), 'utf8')).toContain("await import('../index.js')");
    const seen = new Map<string, string>();
    for (const f of chunksIn(DIST)) {
      const code = readFileSync(join(DIST, f), 'utf8');
      const body = code.slice(code.indexOf('{')); // the same modules under another chunk id would still be a twin
      expect(seen.get(body), `${f} repeats ${seen.get(body)}`).toBeUndefined();
      seen.set(body, f);
    }
  });

  it('runs --version and --help from the entry files and the CLI entry chunk alone', () => {
    const cli = layout((_f, code) => isCliEntryChunk(code));
    const version = run(cli, ['--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout.trim()).toBe('0.1.0');
    const help = run(cli, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('policy check');
    // The control: without that chunk the CLI does not start, so the case above proves nothing else was loaded.
    expect(
      run(
        layout(() => false),
        ['--version'],
      ).status,
    ).not.toBe(0);
  });

  it('decides a plain tool with policy check without the SDK chunk or the bash grammar; a shell command needs the grammar, and is denied without it', () => {
    const cli = layout((_f, code) => !isSdkChunk(code));
    const plain = run(cli, ['policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}', '--json']);
    expect(plain.stderr).toBe('');
    expect(plain.status).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ decision: 'allow' });
    // The control: in this folder a shell command cannot be decided by its rules (it fails closed), so the case above proves the grammar was not loaded.
    const shell = run(cli, ['policy', 'check', '--tool', 'run_shell_command', '--args', '{"command":"ls && git status"}', '--json']);
    expect(shell.stderr).toBe('');
    expect(JSON.parse(shell.stdout)).toMatchObject({ decision: 'deny', rule: null, reason: expect.stringContaining('cannot find web-tree-sitter.wasm') });
  });

  it('sends the first model request with every tool declared in plain JSON Schema', async () => {
    const cli = layout(() => true);
    const fake = await startFakeGemini([reply([text('Hello.')])]);
    try {
      const cwd = makeTempDir('cli-startup-work-');
      // Asynchronously: the fake model server lives in this process and must keep answering.
      const r = await runCliAt(cli, ['-p', 'hi', '-o', 'json'], { cwd, env: { GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: makeTempDir('cli-startup-state-') } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ response: 'Hello.' });
      const declared = fake.requests[0].body.tools?.[0].functionDeclarations as Array<{ name: string; parametersJsonSchema: unknown }>;
      expect(declared.map((d) => d.name)).toEqual(['list_directory', 'read_file', 'glob', 'grep_search', 'write_file', 'replace', 'run_shell_command', 'invoke_agent']);
      expect(declared[1].parametersJsonSchema).toEqual({
        type: 'object',
        required: ['file_path'],
        properties: {
          file_path: { type: 'string' },
          start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based).' },
          end_line: { type: 'integer', minimum: 1, description: 'Last line to read (1-based, inclusive).' },
          wait_for_previous: { type: 'boolean', description: "Wait for this turn's earlier calls to finish first (this call needs their output)." },
        },
      });
    } finally {
      await fake.close();
    }
  });

  it("keeps compiled code between runs in the user's own compile cache, never in the shared temporary folder, and runs as well when the cache cannot be made", () => {
    const cli = layout((_f, code) => !isSdkChunk(code));
    const policyCheck = ['policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}', '--json'];
    // Not NODE_COMPILE_CACHE, which would turn the cache on by itself, in the folder it names.
    const root = makeTempDir('cli-compile-cache-');
    const tmp = join(root, 'tmp');
    mkdirSync(tmp);
    const withCache = (env: Record<string, string>) => spawnSync(NODE24, [cli, ...policyCheck], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, ...env } });
    const filesIn = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    const home = join(root, 'home');
    mkdirSync(home);
    const cold = withCache({ HOME: home });
    expect(cold.stderr).toBe('');
    expect(JSON.parse(cold.stdout)).toMatchObject({ decision: 'allow' });
    // Node keeps one folder per Node version and compile options, holding one file per module compiled.
    expect(filesIn(join(home, '.cache/agent-action/node-compile-cache'))).toBeGreaterThan(0);
    expect(readdirSync(tmp)).toEqual([]);
    const warm = withCache({ HOME: home });
    expect(warm.stderr).toBe('');
    expect(warm.stdout).toBe(cold.stdout);
    // XDG_CACHE_HOME, when set, is the user's cache folder.
    const xdg = join(root, 'xdg');
    expect(withCache({ HOME: home, XDG_CACHE_HOME: xdg }).stdout).toBe(cold.stdout);
    expect(filesIn(join(xdg, 'agent-action/node-compile-cache'))).toBeGreaterThan(0);
    // A cache folder below a regular file cannot be created: the command runs the same, silently.
    writeFileSync(join(root, 'file'), '');
    const broken = withCache({ HOME: join(root, 'file') });
    expect(broken.stderr).toBe('');
    expect(broken.status).toBe(0);
    expect(broken.stdout).toBe(cold.stdout);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("keeps each chunk's compiled code, made at the end of a run, for the next run, and refuses a damaged or foreign cache", async () => {
    const code = (f: string) => readFileSync(join(DIST, f), 'utf8');
    const cli = layout(() => true);
    const fake = await startFakeGemini([reply([text('One.')]), reply([text('Two.')]), reply([text('Three.')]), reply([text('Four.')])]);
    try {
      const cache = makeTempDir('cli-chunk-cache-');
      const cwd = makeTempDir('cli-startup-work-');
      const ask = async (env: Record<string, string> = {}) => {
        const r = await runCliAt(cli, ['-p', 'hi', '-o', 'json'], { cwd, env: { GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, NODE_COMPILE_CACHE: cache, ...env } });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        return JSON.parse(r.stdout).response as string;
      };
      const version = spawnSync(NODE24, ['-p', '`${process.version}-${process.arch}`'], { encoding: 'utf8' }).stdout.trim();
      const dir = join(cache, 'agent-action-chunks', version);
      // A chunk's cache: its name, byte length and CRC-32; the file starts with the CRC-32 of the rest, then
      // the number of chunks the run that made it loaded.
      const nameOf = (f: string) => `${f}-${Buffer.byteLength(code(f))}-${crc32(code(f)).toString(16)}`;
      const sdk = chunksIn(DIST).find((f) => isSdkChunk(code(f)))!;
      const entry = chunksIn(DIST).find((f) => isCliEntryChunk(code(f)))!;
      const usesImportMeta = chunksIn(DIST).filter((f) => code(f).includes('import.meta'));

      // A narrow run first: --version loads the CLI entry chunk alone, and keeps its cache.
      const narrowRun = await runCliAt(cli, ['--version'], { cwd, env: { NODE_COMPILE_CACHE: cache } });
      expect(narrowRun.code).toBe(0);
      expect(readdirSync(dir)).toEqual([nameOf(entry)]);
      const narrow = readFileSync(join(dir, nameOf(entry)));

      const asked = ask();
      await fake.untilRequests(1);
      const requested = Date.now();
      expect(await asked).toBe('One.');
      const kept = readdirSync(dir);
      expect(kept).toEqual(expect.arrayContaining([nameOf(sdk), nameOf(entry)]));
      // Every chunk a run loads is ASCII (the build escapes the rest): V8 keeps an ASCII source as a
      // one-byte string; one other character anywhere makes the whole source two bytes a character.
      for (const k of kept) expect(isAscii(readFileSync(join(DIST, k.slice(0, k.indexOf('-')))))).toBe(true);
      // A chunk a script cannot run (import.meta) is left to import() and Node's own cache.
      expect(usesImportMeta.length).toBeGreaterThan(0);
      for (const f of usesImportMeta) expect(kept.some((k) => k.startsWith(`${f}-`))).toBe(false);
      const sdkCache = join(dir, nameOf(sdk));
      const data = readFileSync(sdkCache);
      expect(data.readUInt32LE(0)).toBe(crc32(data.subarray(4)));
      // The session loaded more chunks than --version: the entry chunk's cache is made again, wider.
      const wide = readFileSync(join(dir, nameOf(entry)));
      expect(wide.readUInt32LE(4)).toBeGreaterThan(narrow.readUInt32LE(4));
      expect(wide.length).toBeGreaterThan(narrow.length);
      // Made at exit, after the request went out, so it holds the functions the run compiled, not only
      // those V8 compiles with the chunk: the CLI entry chunk's cache is well over the size of a cache
      // made before the chunk runs (the same script: the chunk's declarations returned by a function).
      expect(fake.requests).toHaveLength(1);
      expect(statSync(sdkCache).mtimeMs).toBeGreaterThanOrEqual(requested);
      const [body, id, ids, modules] = /^([\s\S]*)export\{([\w$]+) as id,([\w$]+) as ids,([\w$]+) as modules\};/.exec(code(entry))!.slice(1);
      const beforeRunning = new Script(`(function(){"use strict";${body}\nreturn{id:${id},ids:${ids},modules:${modules}}})`).createCachedData().length;
      expect(wide.length - 8).toBeGreaterThan(1.5 * beforeRunning);
      const stamps = () => new Map(readdirSync(dir).map((k) => [k, statSync(join(dir, k)).mtimeMs]));
      const first = stamps();

      // The next run, as wide, reads the caches V8 accepts and writes none. One chunk now also calls import(),
      // which a script cannot: it is left to import() (and Node's cache), so no cache is made for it.
      const other = kept.map((k) => k.replace(/-\d+-[0-9a-f]+$/, '')).find((f) => f !== sdk && f !== entry && !code(f).includes('import('))!;
      writeFileSync(
        join(cli, '../..', other),
        code(other).replace(/export\{[\w$]+ as id,/, (m) => `void(0&&import("node:path"));${m}`),
      );
      expect(await ask()).toBe('Two.');
      expect(stamps()).toEqual(first);

      // One byte changed: refused (V8 would run it), and made again at the end of the run. A cache
      // of an older build of the chunk goes with it.
      const damaged = Buffer.from(data);
      damaged[damaged.length >> 1] ^= 0xff;
      writeFileSync(sdkCache, damaged);
      writeFileSync(join(dir, `${sdk}-1-0`), data);
      expect(await ask()).toBe('Three.');
      const remade = readFileSync(sdkCache);
      expect(remade.equals(damaged)).toBe(false);
      expect(remade.readUInt32LE(0)).toBe(crc32(remade.subarray(4)));
      expect(readdirSync(dir)).not.toContain(`${sdk}-1-0`);

      // Another chunk's code under this chunk's name, its checksum right: V8 refuses it, and it is made again.
      writeFileSync(sdkCache, readFileSync(join(dir, nameOf(entry))));
      expect(await ask()).toBe('Four.');
      expect(readFileSync(sdkCache).equals(readFileSync(join(dir, nameOf(entry))))).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it('keeps no compiled code with NODE_DISABLE_COMPILE_CACHE=1', () => {
    const cli = layout((_f, code) => !isSdkChunk(code));
    const cache = makeTempDir('cli-no-cache-');
    const r = spawnSync(NODE24, [cli, 'policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}', '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allow' });
    expect(readdirSync(cache)).toEqual([]);
  });
});
