/**
 * CLI sessions on disk through the built CLI (dist/cli/index.js), one process per step, as a user
 * runs them: `-p` keeps a session, `--resume` continues it in another process, `--list-sessions`
 * and `--delete-session` manage them (Gemini CLI's names and wording), and a damaged file is named
 * without hiding the others. XDG_STATE_HOME points at a temporary folder.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectSessionsDir } from '../../src/session/file-store.js';
import { runBuiltCli } from '../support/cli-runner.js';
import {
  call,
  fakeSignature,
  fault,
  gated,
  reply,
  startFakeGemini,
  text,
  usage,
  type FakeGemini,
  type FakeReply,
} from '../support/fake-gemini.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(script: FakeReply[]) {
  const root = createRepo({ 'README.md': '# demo\n' }).dir;
  const state = makeTempDir('agent-action-state-');
  const fake: FakeGemini = await startFakeGemini(script);
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => rmSync(state, { recursive: true, force: true }),
    () => fake.close(),
  );
  const env = { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: state };
  const cli = (args: string[]) => runBuiltCli([...args, '--cwd', root], { env });
  const dir = projectSessionsDir(join(state, 'agent-action'), root);
  return { root, state, fake, cli, dir };
}

const jsonLines = (s: string) =>
  s
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('CLI sessions', () => {
  it("continues the first process's conversation in a second one: the model sees the whole history, the totals carry on", async () => {
    const { fake, cli, dir } = await setup([
      reply([call('read_file', { file_path: 'README.md' })], { usage: usage(100, 10) }),
      reply([text('Noted: the word is apple.')], { usage: usage(120, 6) }),
      reply([text('The word was apple.')], { usage: usage(200, 5) }),
    ]);
    const first = await cli(['-p', 'remember the word apple, and read the readme', '-o', 'stream-json']);
    expect(first.code, first.stderr).toBe(0);
    const id = jsonLines(first.stdout)[0].session_id as string;
    expect(readdirSync(dir)).toEqual([`${id}.json`]);

    const second = await cli(['--resume', 'latest', '-p', 'which word?', '-o', 'stream-json']);
    expect(second.code, second.stderr).toBe(0);
    const events = jsonLines(second.stdout);
    expect(events[0]).toMatchObject({ type: 'init', session_id: id });
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      status: 'success',
      stats: { input_tokens: 200, output_tokens: 5 },
    });
    expect(fake.requests[2]!.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'remember the word apple, and read the readme' }] },
      // As the API sent it (no id, a thought signature), and answered without an id.
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'read_file', args: { file_path: 'README.md' } },
            thoughtSignature: fakeSignature('read_file'),
          },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: '# demo' } } }] },
      { role: 'model', parts: [{ text: 'Noted: the word is apple.' }] },
      { role: 'user', parts: [{ text: 'which word?' }] },
    ]);
    const doc = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8'));
    expect(doc).toMatchObject({ status: 'idle', title: 'remember the word apple, and read the readme' });
    expect(doc.state).toMatchObject({ turns: 3, usage: { inputTokens: 420, outputTokens: 21 } });
  });

  it('keeps the plan (write_todos) across --resume: the saved list stays until a later write_todos replaces it', async () => {
    const item = (description: string, status: string) => ({ description, status });
    const planned = [item('Read the readme', 'in_progress'), item('Answer', 'pending')];
    const done = [item('Read the readme', 'completed'), item('Answer', 'completed')];
    const { fake, cli, dir } = await setup([
      reply([call('write_todos', { todos: planned })]),
      reply([text('Planned.')]),
      reply([text('Still on the readme.')]),
      reply([call('write_todos', { todos: done })]),
      reply([text('All done.')]),
    ]);
    const first = await cli(['-p', 'plan it', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).session_id as string;
    const saved = () => JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')).state.todos;
    expect(saved()).toEqual(planned);

    // A resumed turn without write_todos leaves the plan as it was; the model sees its own list.
    const second = await cli(['--resume', 'latest', '-p', 'where are you?', '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    expect(saved()).toEqual(planned);
    expect(JSON.stringify(fake.requests[2]!.body.contents)).toContain('"Read the readme"');

    // A later write_todos in a resumed run replaces it.
    const third = await cli(['--resume', id, '-p', 'finish', '-o', 'json']);
    expect(third.code, third.stderr).toBe(0);
    expect(saved()).toEqual(done);
  });

  it('lists, picks by number and deletes sessions as Gemini CLI does, oldest first', async () => {
    const { cli } = await setup([reply([text('one')]), reply([text('two')]), reply([text('two again')])]);
    expect(await cli(['--list-sessions'])).toEqual({
      code: 0,
      stdout: 'No previous sessions found for this project.\n',
      stderr: '',
    });
    const a = JSON.parse((await cli(['-p', 'first task', '-o', 'json'])).stdout).session_id;
    const b = JSON.parse((await cli(['-p', 'second task', '-o', 'json'])).stdout).session_id;
    const list = await cli(['--list-sessions']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `^\\nAvailable sessions for this project \\(2\\):\\n  1\\. first task \\((Just now|\\d+ minutes? ago)\\) \\[${a}\\]\\n  2\\. second task \\((Just now|\\d+ minutes? ago)\\) \\[${b}\\]\\n$`,
      ),
    );
    const resumed = await cli(['--resume', '2', '-p', 'again', '-o', 'json']);
    expect(JSON.parse(resumed.stdout).session_id).toBe(b);
    const deleted = await cli(['--delete-session', '1']);
    expect(deleted).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Deleted session 1: first task \((Just now|\d+ minutes? ago)\)\n$/),
    });
    expect((await cli(['--list-sessions'])).stdout).toContain(`  1. second task`);
    const bad = await cli(['--resume', '7', '-p', 'x']);
    expect(bad).toMatchObject({
      code: 42,
      stderr:
        'Error: Invalid session identifier "7". Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.\n',
    });
  });

  it('names a damaged session file and why, and still lists and resumes the others', async () => {
    const { cli, dir } = await setup([reply([text('one')]), reply([text('two')]), reply([text('two, continued')])]);
    const a = JSON.parse((await cli(['-p', 'first task', '-o', 'json'])).stdout).session_id;
    const b = JSON.parse((await cli(['-p', 'second task', '-o', 'json'])).stdout).session_id;
    const file = join(dir, `${a}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 40));

    const list = await cli(['--list-sessions']);
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(
      new RegExp(
        `^Error: session file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} cannot be read: session document is not JSON: .+\\. It is left out; delete it with --delete-session ${a}\\.\\n$`,
      ),
    );
    expect(list.stdout).toMatch(
      new RegExp(`Available sessions for this project \\(1\\):\\n  1\\. second task .*\\[${b}\\]\\n$`),
    );

    const resumeBroken = await cli(['--resume', a, '-p', 'x']);
    expect(resumeBroken.code).toBe(42);
    expect(resumeBroken.stderr).toContain(
      `Error: session ${a} cannot be used: its file ${file} is damaged (session document is not JSON:`,
    );
    expect((await cli(['--resume', 'latest', '-p', 'go on', '-o', 'json'])).code).toBe(0);
    expect(await cli(['--delete-session', a])).toMatchObject({
      code: 0,
      stdout: `Deleted session ${a} (damaged file ${file})\n`,
    });
    expect(readdirSync(dir)).toEqual([`${b}.json`]);
  });

  it('writes the session before the first request, and saves it again as the run goes on', async () => {
    let release!: () => void;
    const answer = new Promise<void>((r) => (release = r));
    const { fake, cli, dir } = await setup([
      gated(answer, reply([call('read_file', { file_path: 'README.md' })])),
      reply([text('read it')]),
    ]);
    const run = cli(['-p', 'read the readme', '-o', 'json']);
    await fake.untilRequests(1);
    // The request is out and its answer held: the session was saved first (before the prompt joins).
    const [first] = readdirSync(dir);
    const before = JSON.parse(readFileSync(join(dir, first!), 'utf8'));
    expect({ status: before.status, turns: before.state.history.length }).toEqual({ status: 'running', turns: 0 });
    release();
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    const [file] = readdirSync(dir);
    const doc = JSON.parse(readFileSync(join(dir, file!), 'utf8'));
    expect({ status: doc.status, turns: doc.state.history.length }).toEqual({ status: 'idle', turns: 4 });
  });

  it('keeps the session of a run whose first request fails, so it can be resumed', async () => {
    const { cli, dir } = await setup([fault.status(400, { message: 'bad request' })]);
    const r = await cli(['-p', 'read the readme', '-o', 'json']);
    expect(r.code).not.toBe(0);
    const [file] = readdirSync(dir);
    const doc = JSON.parse(readFileSync(join(dir, file!), 'utf8'));
    expect(doc.state.history[0]).toEqual({ role: 'user', parts: [{ text: 'read the readme' }] });
  });

  it('runs on, with one warning, when the session cannot be saved', async () => {
    const { root, state, fake } = await setup([
      reply([call('read_file', { file_path: 'README.md' })]),
      reply([text('It is a demo.')]),
    ]);
    const notADir = join(state, 'file');
    writeFileSync(notADir, '');
    const r = await runBuiltCli(['-p', 'what is this?', '--cwd', root], {
      env: { GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: notADir },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('It is a demo.\n');
    expect(r.stderr).toMatch(
      /^Warning: ENOTDIR: not a directory, mkdir '[^']+'; this run goes on without saving its session\.\n$/,
    );
  });

  it('refuses --approve on a session that waits for nothing, and says so', async () => {
    const { cli } = await setup([reply([text('done')])]);
    expect((await cli(['-p', 'a task'])).code).toBe(0);
    expect(await cli(['--resume', 'latest', '--approve'])).toMatchObject({
      code: 42,
      stderr: 'Error: --approve: this session has no call waiting for an answer\n',
    });
  });
});
