/**
 * What the bundled CLI loads for a command (issue #16): `--version` and `--help` run from the
 * entry files and the CLI's own chunk alone, `policy check` on a plain tool runs without the model
 * client's chunk (@google/genai and what it pulls in) and without the bash grammar, and the first
 * model request declares every tool in plain JSON Schema. Each case copies
 * only the files the command may need into a fresh folder and runs the bundle there: a static import
 * that pulls the SDK, the tools or the grammar back into start-up makes the command fail. The action
 * and the CLI are one bundle (scripts/build.mjs): dist/cli/index.js imports dist/index.js, and every
 * chunk is in dist/. The CLI entry (scripts/cli-bin.mjs) keeps compiled code between runs in Node's own
 * compile cache. Build first.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
/** The SDK's Node build, with google-auth-library: Vertex AI with Google Cloud credentials only. */
const isAuthChunk = (code: string) => code.includes('google-auth-library');
const isSdkChunk = (code: string) => definesClient(code) || isAuthChunk(code);
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
  for (const f of chunksIn(DIST))
    if (chunks(f, readFileSync(join(DIST, f), 'utf8'))) copyFileSync(join(DIST, f), join(dist, f));
  // No .wasm files: the bash grammar cannot load here.
  return join(dist, 'cli/index.js');
}

const run = (cli: string, args: string[]) =>
  spawnSync(NODE24, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });

describe('the CLI bundle loads only what a command needs', () => {
  it('keeps the model client out of the entry files: the SDK is a chunk of its own, its Node build another', () => {
    for (const entry of ['index.js', 'cli/index.js'])
      expect(isSdkChunk(readFileSync(join(DIST, entry), 'utf8'))).toBe(false);
    const clients = chunksIn(DIST)
      .map((f) => readFileSync(join(DIST, f), 'utf8'))
      .filter(definesClient);
    // The fetch build for API keys, and the Node build (google-auth-library) for Vertex AI's credentials.
    expect(clients.map(isAuthChunk).sort()).toEqual([false, true]);
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
    const shell = run(cli, [
      'policy',
      'check',
      '--tool',
      'run_shell_command',
      '--args',
      '{"command":"ls && git status"}',
      '--json',
    ]);
    expect(shell.stderr).toBe('');
    expect(JSON.parse(shell.stdout)).toMatchObject({
      decision: 'deny',
      rule: null,
      reason: expect.stringContaining('cannot find web-tree-sitter.wasm'),
    });
  });

  it('sends the first model request with every tool declared in plain JSON Schema, without the Node build of the SDK', async () => {
    // An API-key run never loads google-auth-library: without its chunk the request still goes.
    const cli = layout((_f, code) => !isAuthChunk(code));
    const fake = await startFakeGemini([reply([text('Hello.')])]);
    try {
      const cwd = makeTempDir('cli-startup-work-');
      // Asynchronously: the fake model server lives in this process and must keep answering.
      const r = await runCliAt(cli, ['-p', 'hi', '-o', 'json'], {
        cwd,
        env: {
          GEMINI_API_KEY: 'k',
          GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
          XDG_STATE_HOME: makeTempDir('cli-startup-state-'),
        },
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ response: 'Hello.' });
      const declared = fake.requests[0].body.tools?.[0].functionDeclarations as Array<{
        name: string;
        parametersJsonSchema: unknown;
      }>;
      expect(declared.map((d) => d.name)).toEqual([
        'list_directory',
        'read_file',
        'glob',
        'grep_search',
        'write_file',
        'replace',
        'run_shell_command',
        'write_todos',
        'invoke_agent',
      ]);
      expect(declared[1].parametersJsonSchema).toEqual({
        type: 'object',
        required: ['file_path'],
        properties: {
          file_path: { type: 'string' },
          start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based).' },
          end_line: { type: 'integer', minimum: 1, description: 'Last line to read (1-based, inclusive).' },
          wait_for_previous: {
            type: 'boolean',
            description: "Wait for this turn's earlier calls to finish first (this call needs their output).",
          },
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
    const withCache = (env: Record<string, string>) =>
      spawnSync(NODE24, [cli, ...policyCheck], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, ...env },
      });
    const filesIn = (dir: string) =>
      readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
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

  it('keeps no compiled code with NODE_DISABLE_COMPILE_CACHE=1', () => {
    const cli = layout((_f, code) => !isSdkChunk(code));
    const cache = makeTempDir('cli-no-cache-');
    const r = spawnSync(
      NODE24,
      [cli, 'policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}', '--json'],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' },
      },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allow' });
    expect(readdirSync(cache)).toEqual([]);
  });
});
