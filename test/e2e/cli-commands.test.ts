/**
 * Custom commands and extensions through the bundled CLI (dist/cli/index.js), as Gemini CLI users
 * keep them: `~/.gemini/commands` (the user's), the project's `.gemini/commands` (wins by name),
 * `~/.gemini/extensions/*` and the project's `.gemini/extensions/*`; `-p "/name args"`. Build first.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../support/cli-runner.js';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

let fake: FakeGemini | undefined;
beforeAll(() => {
  if (!existsSync(join(process.cwd(), 'dist/cli/index.js')))
    throw new Error('dist/cli/index.js is missing: run `npm run build` first');
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function write(root: string, files: Record<string, string>): void {
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
}

const ALLOW_ECHO =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\npriority = 100\n';

function setup() {
  const home = makeTempDir('agent-action-cli-home-');
  write(home, {
    '.gemini/commands/sync.toml': 'prompt = "user sync"\n',
    '.gemini/commands/hello.toml': 'prompt = "Hello from the user: {{args}}"\n',
    '.gemini/extensions/style/gemini-extension.json': JSON.stringify({
      name: 'style',
      version: '0.1.0',
      contextFileName: ['STYLE.md'],
      excludeTools: ['glob', 'run_shell_command(rm)'],
    }),
    '.gemini/extensions/style/STYLE.md': 'Style: short sentences.\n',
    '.gemini/extensions/style/commands/lint/all.toml': 'prompt = "Lint everything: {{args}}"\n',
  });
  const { dir } = createRepo({ 'README.md': '# demo\n', 'notes.md': 'the notes\n' });
  write(dir, {
    '.gemini/commands/sync.toml': 'prompt = "project sync {{args}}: !{echo {{args}}} @{notes.md}"\n',
    '.gemini/policies/echo.toml': ALLOW_ECHO,
  });
  return { home, dir };
}

async function run(prompt: string, o: { home: string; dir: string }) {
  fake = await startFakeGemini([reply([text('ok')])]);
  const r = await runBuiltCli(['-p', prompt, '-o', 'json', '--cwd', o.dir, '--sandbox', 'required'], {
    env: { HOME: o.home, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
  });
  const req = fake.requests[0]?.body;
  const sent = (req?.contents.at(-1)?.parts ?? []).map((p) => p.text ?? '').join('');
  return { r, req, sent };
}

describe('agent-action -p "/name args"', () => {
  it("the project's command wins over the user's: {{args}}, !{echo {{args}}} through policy and sandbox, @{file}", async () => {
    const { r, sent } = await run('/sync a b', setup());
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe('project sync a b: a b\n the notes\n');
  });

  it("a user's command, and an extension's namespaced command; the extension's context file and excludeTools apply", async () => {
    const s = setup();
    const hello = await run('/hello there', s);
    expect(hello.r.code, hello.r.stderr).toBe(0);
    expect(hello.sent).toBe('Hello from the user: there');
    expect(JSON.stringify(hello.req?.systemInstruction)).toContain('Style: short sentences.');
    const offered = (hello.req?.tools?.[0]?.functionDeclarations ?? []).map((d) => d.name);
    expect(offered).toContain('read_file');
    expect(offered).not.toContain('glob');
    await fake?.close();

    const lint = await run('/lint:all now', s);
    expect(lint.r.code, lint.r.stderr).toBe(0);
    expect(lint.sent).toBe('Lint everything: now');
  });

  it('an unknown /name goes to the model as typed (as Gemini CLI)', async () => {
    const { r, sent } = await run('/nosuch thing', setup());
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe('/nosuch thing');
  });

  it('a !{} that policy does not allow: exit 52, nothing sent to the model, the message names the command', async () => {
    const s = setup();
    write(s.dir, { '.gemini/commands/wipe.toml': 'prompt = "!{rm -rf notes.md}"\n' });
    const { r } = await run('/wipe', s);
    expect(r.code).toBe(52);
    expect(fake!.requests).toEqual([]);
    expect(r.stdout + r.stderr).toContain(
      'custom command /wipe (.gemini/commands/wipe.toml) was not run: its !{rm -rf notes.md} policy denies it',
    );
    expect(existsSync(join(s.dir, 'notes.md'))).toBe(true);
  });
});
