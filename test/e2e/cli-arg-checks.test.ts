/**
 * A valid call to a built-in tool is checked without TypeBox's validator (issue #16): the bundled CLI
 * runs a read_file session from a copy of dist/ without the validator's chunks (typebox/value and the
 * schema engine under it), so a run that loaded them would fail. The control: in that copy an
 * invalid call cannot be explained, while the whole bundle refuses it in the validator's words, as
 * before the generated checks (src/tools/arg-checks.generated.ts). Build first.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliAt } from '../support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';

const ROOT = join(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const chunks = readdirSync(DIST).filter((f) => /^\d+\.index\.js$/.test(f));
const codeOf = (f: string) => readFileSync(join(DIST, f), 'utf8');
/** Error texts only typebox/value (its delta module) and the schema engine (its JSON pointer) hold. */
const isValueChunk = (f: string) => codeOf(f).includes('Cannot create diffs for objects with symbols keys');
const isSchemaEngineChunk = (f: string) => codeOf(f).includes('Pointer contains unsafe property key');

/** A package folder like the installed one whose dist/ lacks the chunks `leaveOut` picks; its CLI entry. */
function layout(leaveOut: (chunk: string) => boolean): string {
  const root = makeTempDir('cli-arg-checks-'); // removed after this file
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'agent-action', version: '0.1.0', type: 'module' }));
  cpSync(join(ROOT, 'policies'), join(root, 'policies'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  cpSync(DIST, join(root, 'dist'), { recursive: true, filter: (src) => !chunks.includes(src.slice(DIST.length + 1)) || !leaveOut(src.slice(DIST.length + 1)) });
  return join(root, 'dist/cli/index.js');
}

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** One read_file call with `args`, then "done"; what the model got back for the call. */
async function readFileSession(cli: string, args: Record<string, unknown>) {
  const work = makeTempDir('cli-arg-checks-work-');
  writeFileSync(join(work, 'f1.txt'), 'hello from f1\n');
  fake = await startFakeGemini([reply([call('read_file', args)]), reply([text('done')])]);
  const r = await runCliAt(cli, ['-p', 'read f1.txt', '-o', 'json', '-m', 'gemini-2.5-flash', '--cwd', work], { env: { GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: fake.baseUrl } });
  const answer = fake.requests[1]?.body.contents.at(-1)?.parts?.[0] as { functionResponse?: { response?: Record<string, unknown> } } | undefined;
  return { ...r, response: answer?.functionResponse?.response };
}

describe('a valid built-in call does not load the validator', () => {
  it('the markers still find the validator chunks (else this file would prove nothing)', () => {
    expect(chunks.filter(isValueChunk)).toHaveLength(1);
    expect(chunks.filter(isSchemaEngineChunk)).toHaveLength(1);
  });

  it('reads a file with valid arguments from a bundle without the validator chunks', async () => {
    const cli = layout((f) => isValueChunk(f) || isSchemaEngineChunk(f));
    const r = await readFileSession(cli, { file_path: 'f1.txt', start_line: 1 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.stringify(r.response)).toContain('hello from f1');
    expect(JSON.parse(r.stdout)).toMatchObject({ response: 'done' });
  });

  it('the control: there, an invalid call cannot be explained; the whole bundle refuses it in the same words as ever', async () => {
    const without = await readFileSession(
      layout((f) => isValueChunk(f) || isSchemaEngineChunk(f)),
      { file_path: 3 },
    );
    // The call fails on the missing chunk (what the model is told), not with the validator's words.
    expect(without.response).toEqual({ error: expect.stringMatching(/^Cannot find module '.*\/dist\/\d+\.index\.js'/) });
    const whole = await readFileSession(
      layout(() => false),
      { file_path: 3 },
    );
    expect(whole.code).toBe(0);
    expect(whole.response).toEqual({ error: 'invalid arguments for read_file: /file_path must be string' });
  });
});
