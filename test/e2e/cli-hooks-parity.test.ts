/**
 * Hooks against Gemini CLI itself: the same project settings (a SessionStart hook that adds
 * context, a BeforeTool hook that records its input) and the same scripted session through the
 * pinned Gemini CLI and through our built CLI. Compared: the stream-json event types (neither emits
 * hook events), where the SessionStart context lands in the first request, and the fields a
 * BeforeTool hook receives. Build first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBuiltCli, runGeminiCli } from '../support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';

const LOG_HOOK = `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>require('fs').appendFileSync('hook-log.jsonl',s.trim()+'\\\\n'))"`;
const SETTINGS = {
  hooks: {
    SessionStart: [
      {
        hooks: [
          {
            type: 'command',
            name: 'ctx',
            command: `echo '{"hookSpecificOutput":{"additionalContext":"The team uses tabs."}}'`,
          },
        ],
      },
    ],
    BeforeTool: [{ matcher: 'read_file', hooks: [{ type: 'command', name: 'log', command: LOG_HOOK }] }],
  },
};
const script = () => [reply([call('read_file', { file_path: 'notes.txt' })]), reply([text('The notes say 42.')])];

const fakes: FakeGemini[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
});

function workspace(): string {
  const ws = makeTempDir('agent-action-hooks-parity-');
  writeFiles(ws, { 'notes.txt': 'the answer is 42\n', '.gemini/settings.json': JSON.stringify(SETTINGS) });
  return ws;
}

describe('hooks: our CLI and Gemini CLI', () => {
  it('same stream-json events (no hook events), SessionStart context in the same place, the same BeforeTool input fields', async () => {
    if (!existsSync(join(process.cwd(), 'dist/cli/index.js')))
      throw new Error('dist/cli/index.js is missing: run `npm run build` first');
    const args = ['-p', 'What do the notes say?', '-o', 'stream-json', '-m', 'gemini-2.5-flash'];

    const theirs = await startFakeGemini(script());
    fakes.push(theirs);
    const gws = workspace();
    const g = await runGeminiCli([...args, '--yolo'], {
      baseUrl: theirs.baseUrl,
      cwd: gws,
      home: makeTempDir('agent-action-hooks-parity-home-'),
      settings: { hooksConfig: { enabled: true } },
    });
    expect(g.code, g.stderr).toBe(0);

    const mine = await startFakeGemini(script());
    fakes.push(mine);
    const ows = workspace();
    const o = await runBuiltCli([...args, '--yolo', '--cwd', ows], {
      env: {
        GEMINI_API_KEY: 'test-key',
        GOOGLE_GEMINI_BASE_URL: mine.baseUrl,
        HOME: makeTempDir('agent-action-hooks-parity-home-'),
      },
    });
    expect(o.code, o.stderr).toBe(0);

    const types = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types(o.stdout)).toEqual(types(g.stdout));
    expect(types(o.stdout)).not.toContain('hook');

    const firstUserText = (f: FakeGemini) =>
      f.requests[0]!.body.contents.filter((c) => c.role === 'user')
        .map((c) => c.parts.map((p) => String(p.text ?? '')).join(''))
        .join('\n');
    expect(firstUserText(theirs)).toContain(
      '<hook_context>The team uses tabs.</hook_context>\n\nWhat do the notes say?',
    );
    expect(firstUserText(mine)).toContain('<hook_context>The team uses tabs.</hook_context>\n\nWhat do the notes say?');

    const logged = (ws: string) =>
      readFileSync(join(ws, 'hook-log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [gi] = logged(gws);
    const [oi] = logged(ows);
    expect(Object.keys(oi!).sort()).toEqual(Object.keys(gi!).sort());
    expect(oi).toMatchObject({ hook_event_name: 'BeforeTool', tool_name: 'read_file', tool_input: gi!.tool_input });
  });
});
