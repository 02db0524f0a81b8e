/**
 * Gemini CLI's settings.json read by the built CLI (dist/cli/index.js -p), end to end against the
 * fake Gemini: the user's `~/.gemini/settings.json` (HOME is a test folder) and the project's
 * `.gemini/settings.json`. Each case checks the effect a user sees, as Gemini CLI documents it:
 * `model.maxSessionTurns` stops the session with exit 53 (FatalTurnLimitedError), `tools.core` and
 * `tools.exclude` decide which tools the first request declares, `context.fileName` names the
 * context file loaded, and a malformed file is named with its line before any request is sent.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Setup {
  user?: unknown;
  project?: unknown;
  /** Raw text for the user's file instead of `user`. */
  userText?: string;
  files?: Record<string, string>;
}

async function setup(script: FakeReply[], o: Setup) {
  const root = createRepo({ 'README.md': '# demo\n', ...o.files }).dir;
  const home = makeTempDir('agent-action-home-');
  const fake: FakeGemini = await startFakeGemini(script);
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => rmSync(home, { recursive: true, force: true }),
    () => fake.close(),
  );
  mkdirSync(join(home, '.gemini'));
  if (o.userText !== undefined || o.user !== undefined)
    writeFileSync(join(home, '.gemini', 'settings.json'), o.userText ?? JSON.stringify(o.user, null, 2));
  if (o.project !== undefined) {
    mkdirSync(join(root, '.gemini'), { recursive: true });
    writeFileSync(join(root, '.gemini', 'settings.json'), JSON.stringify(o.project, null, 2));
  }
  const env = { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, HOME: home };
  const cli = (args: string[]) => runBuiltCli([...args, '--cwd', root], { env });
  return { root, home, fake, cli };
}

/** The function names the request declares to the model. */
function declared(body: { tools?: Array<{ functionDeclarations?: Array<{ name: string }> }> }): string[] {
  return (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));
}

const readme = () => call('read_file', { file_path: 'README.md' });

describe('the built CLI reads settings.json', () => {
  it("model.maxSessionTurns: the session stops at the limit with exit 53 and Gemini CLI's message", async () => {
    const { fake, cli } = await setup([reply([readme()]), reply([readme()]), reply([text('never')])], {
      user: { model: { maxSessionTurns: 2 } },
    });
    const r = await cli(['-p', 'read it twice']);
    expect(r.code, r.stderr).toBe(53);
    expect(fake.requests).toHaveLength(2);
    expect(r.stderr).toContain('Reached max session turns for this session.');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('tools.core and tools.exclude: a tool left out is not declared in the first request', async () => {
    const { fake, cli } = await setup([reply([text('ok')])], {
      user: { tools: { core: ['read_file', 'list_directory', 'run_shell_command'] } },
      project: { tools: { exclude: ['run_shell_command'] } },
    });
    const r = await cli(['-p', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    const names = declared(fake.requests[0]!.body);
    expect(names).toContain('read_file');
    expect(names).toContain('list_directory');
    expect(names).not.toContain('run_shell_command');
    expect(names).not.toContain('write_file');
    expect(names).not.toContain('glob');
  });

  it('context.fileName: the file it names is loaded, GEMINI.md is not', async () => {
    const { fake, cli } = await setup([reply([text('ok')])], {
      project: { context: { fileName: 'AGENTS.md' } },
      files: { 'AGENTS.md': 'Always answer in French (agents-marker).\n', 'GEMINI.md': 'gemini-marker\n' },
    });
    const r = await cli(['-p', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.stringify(fake.requests[0]!.body);
    expect(sent).toContain('agents-marker');
    expect(sent).not.toContain('gemini-marker');
  });

  it('an unknown key is named once on stderr, and the run goes on', async () => {
    const { fake, cli } = await setup([reply([text('ok')])], {
      user: { model: { maxSessionTurns: 5 }, modle: { name: 'x' } },
    });
    const r = await cli(['-p', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(r.stderr.match(/modle/g)).toHaveLength(1);
    expect(r.stderr).toContain('~/.gemini/settings.json');
  });

  it('a malformed settings.json is named with file and line; the run stops before any request', async () => {
    const { fake, cli } = await setup([reply([text('never')])], {
      userText: '{\n  "model": {\n    "maxSessionTurns": 3\n  ,,\n}\n',
    });
    const r = await cli(['-p', 'hi']);
    expect(r.code, r.stdout + r.stderr).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain('settings.json');
    expect(r.stderr).toContain('not valid JSON: expected double-quoted property name at line 5, column 1');
    expect(r.stderr).toContain('Please fix the configuration file(s) and try again.');
    expect(r.code).toBe(52);
    expect(r.stderr.match(/not valid JSON/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fake.requests).toHaveLength(0);
  });
});
