/**
 * `agent-action --acp` as an editor drives it: the ACP SDK's own client side over the real stdin
 * and stdout of the built CLI (dist/cli/index.js, under Node 24 when installed), against the fake
 * Gemini server. Build first (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, watch } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { projectSessionsDir } from '../../src/session/file-store.js';
import {
  agentText,
  clientCapabilitiesOf,
  startAcpAgent,
  type AcpAgentOptions,
  type AcpAgentProcess,
} from '../support/acp-client.js';
import {
  call,
  fault,
  reply,
  startFakeGemini,
  text,
  thought,
  type FakeGemini,
  type FakeReply,
} from '../support/fake-gemini.js';
import { bundleTestServer } from '../support/mcp-server.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface World {
  root: string;
  state: string;
  fake: FakeGemini;
  env: Record<string, string>;
}

async function world(
  script: FakeReply[],
  files: Record<string, string> = { 'README.md': '# demo\n', 'src/app.ts': 'export const answer = 41;\n' },
): Promise<World> {
  const root = createRepo(files).dir;
  const state = makeTempDir('agent-action-state-');
  const fake = await startFakeGemini(script);
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => rmSync(state, { recursive: true, force: true }),
    () => fake.close(),
  );
  return {
    root,
    state,
    fake,
    env: { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: state },
  };
}

async function editor(w: World, o: Omit<AcpAgentOptions, 'env'> = {}): Promise<AcpAgentProcess> {
  const ed = await startAcpAgent({ env: w.env, cwd: w.root, ...o });
  cleanups.push(async () => {
    if (ed.child.exitCode === null && ed.child.signalCode === null) await ed.close();
  });
  const init = await ed.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: clientCapabilitiesOf(o),
  });
  expect(init.protocolVersion).toBe(1);
  return ed;
}

async function newSession(ed: AcpAgentProcess, w: World, extra: { mcpServers?: never[] } = {}) {
  return ed.agent.request('session/new', { cwd: w.root, mcpServers: extra.mcpServers ?? [] });
}

const prompt = (ed: AcpAgentProcess, sessionId: string, t: string) =>
  ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: t }] });

const sessionFile = (w: World, id: string) =>
  join(projectSessionsDir(join(w.state, 'agent-action'), w.root), `${id}.json`);
const readSession = (w: World, id: string) => JSON.parse(readFileSync(sessionFile(w, id), 'utf8'));

const forCall = (ed: AcpAgentProcess, id: string) =>
  ed.updates.map((n) => n.update).filter((u) => 'toolCallId' in u && u.toolCallId === id);
const isUpdate = (id: string, status: string) => (u: SessionUpdate) =>
  u.sessionUpdate === 'tool_call_update' && u.toolCallId === id && u.status === status;

/** Resolves once the session's file holds a document that passes `test` (each save renames a new file in). */
function sessionSaved(w: World, id: string, test: (doc: { state: { history: unknown[] } }) => boolean): Promise<void> {
  const file = sessionFile(w, id);
  return new Promise((resolve) => {
    const check = () => {
      if (existsSync(file) && test(readSession(w, id))) {
        watcher.close();
        resolve();
      }
    };
    const watcher = watch(join(file, '..'), check);
    check();
  });
}

/** Resolves once `path` exists and is not empty (a file the test's command writes). */
function fileAppears(path: string): Promise<string> {
  const dir = join(path, '..');
  return new Promise((resolve) => {
    const check = () => {
      const t = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
      if (t) {
        watcher.close();
        resolve(t);
      }
    };
    const watcher = watch(dir, check);
    check();
  });
}

/**
 * The host pid of the one process whose command line is exactly `argv`. Commands run in the
 * sandbox's own pid namespace, so the pid a command prints is not the host's: find it here instead.
 */
async function hostPidOf(argv: string[]): Promise<number> {
  const want = `${argv.join('\0')}\0`;
  // The shell may print $! before its child has exec'd the command: poll until it has (the test's
  // own timeout bounds this).
  for (;;) {
    const found = pidsWithCmdline(want);
    if (found.length > 0) {
      expect(found, `one process running ${argv.join(' ')}`).toHaveLength(1);
      return Number(found[0]);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

function pidsWithCmdline(want: string): string[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8') === want;
      } catch {
        return false;
      }
    });
}

/**
 * A FIFO at `path` and a promise that settles once every process holding its write end has closed
 * it: a command that keeps the FIFO open (`3>path`) reports its own death as an event, with no
 * polling. The read end is opened now, so the command's open of the write end does not block.
 */
function closedByWriters(path: string): Promise<void> {
  execFileSync('mkfifo', [path]);
  return new Promise((resolve, reject) => {
    const stream = createReadStream(path);
    stream.on('data', () => undefined);
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
}

/** A process is gone when signalling it fails, or it is a zombie waiting to be reaped. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const status = existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, 'utf8') : '';
  return /^State:\s+Z/m.test(status);
}

describe('agent-action --acp over stdio', () => {
  it('initializes, creates a session, streams thoughts, text, a read and an asked edit with its diff, and saves the session', async () => {
    const w = await world([
      reply([
        thought('Looking at the app first.'),
        text('Reading it. '),
        call('read_file', { file_path: 'src/app.ts' }),
      ]),
      reply([call('replace', { file_path: 'src/app.ts', old_string: 'answer = 41', new_string: 'answer = 42' })]),
      reply([text('Done: the answer is 42.')]),
    ]);
    const ed = await startAcpAgent({ env: w.env, cwd: w.root });
    cleanups.push(() => ed.close().then(() => undefined));
    const init = await ed.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: 'agent-action' },
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      },
    });
    const session = await newSession(ed, w);
    expect(session.modes).toEqual({
      currentModeId: 'default',
      availableModes: [
        { id: 'default', name: 'Default', description: 'Prompts for approval' },
        { id: 'autoEdit', name: 'Auto Edit', description: 'Auto-approves edit tools' },
        { id: 'yolo', name: 'YOLO', description: 'Auto-approves all tools' },
        { id: 'plan', name: 'Plan', description: 'Read-only mode' },
      ],
    });
    ed.permissions.answer(() => 'proceed_once');

    const r = await prompt(ed, session.sessionId, 'make the answer 42');
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(w.root, 'src/app.ts'), 'utf8')).toBe('export const answer = 42;\n');

    expect(ed.updates[0]!.update).toEqual({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text: 'Looking at the app first.' },
    });
    expect(ed.updates[1]!.update).toEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'Reading it. ' },
    });
    const app = join(w.root, 'src/app.ts');
    expect(forCall(ed, 'call-1-2')).toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'call-1-2',
        title: 'read_file src/app.ts',
        kind: 'read',
        status: 'pending',
        rawInput: { file_path: 'src/app.ts' },
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1-2',
        title: 'read src/app.ts',
        kind: 'read',
        locations: [{ path: app }],
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'call-1-2', status: 'in_progress' },
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1-2',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'read src/app.ts (1 lines)' } }],
      }),
    ]);
    const diff = {
      type: 'diff',
      path: app,
      oldText: 'export const answer = 41;\n',
      newText: 'export const answer = 42;\n',
      _meta: { kind: 'modify' },
    };
    expect(forCall(ed, 'call-2-0').map((u) => ('status' in u ? u.status : undefined))).toEqual([
      'pending',
      undefined,
      'in_progress',
      'completed',
    ]);
    expect(forCall(ed, 'call-2-0').at(-1)).toMatchObject({ status: 'completed', content: [diff] });
    // The edit was asked about (default mode), with the diff and Gemini CLI's three options.
    expect(ed.permissions.asked).toHaveLength(1);
    expect(ed.permissions.asked[0]).toMatchObject({
      sessionId: session.sessionId,
      toolCall: {
        toolCallId: 'call-2-0',
        title: 'edit src/app.ts (+1 -1)',
        kind: 'edit',
        status: 'pending',
        locations: [{ path: app }],
        content: [diff],
      },
      options: [
        { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
        { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
      ],
    });
    expect(agentText(ed.updates)).toBe('Reading it. Done: the answer is 42.');
    // The model got the file's content back, with the call's id.
    expect(JSON.stringify(w.fake.requests[1]!.body.contents.at(-1))).toContain('export const answer = 41;');

    const saved = readSession(w, session.sessionId);
    expect(saved).toMatchObject({
      origin: 'local',
      id: session.sessionId,
      root: w.root,
      title: 'make the answer 42',
      status: 'idle',
      trigger: { command: 'acp' },
    });
    expect(saved.state.history).toHaveLength(6);
  });

  it('asks again after "allow once", not after "allow always", and keeps the always rule with the session', async () => {
    const w = await world([
      reply([call('run_shell_command', { command: 'touch one.txt' })]),
      reply([call('run_shell_command', { command: 'touch two.txt' })]),
      reply([call('run_shell_command', { command: 'touch three.txt' })]),
      reply([text('Made three files.')]),
    ]);
    const ed = await editor(w);
    const { sessionId } = await newSession(ed, w);
    ed.permissions.answer((req) => (req.toolCall.toolCallId === 'call-1-0' ? 'proceed_once' : 'proceed_always'));
    expect((await prompt(ed, sessionId, 'make three files')).stopReason).toBe('end_turn');
    expect(ed.permissions.asked.map((a) => a.toolCall.toolCallId)).toEqual(['call-1-0', 'call-2-0']);
    for (const f of ['one.txt', 'two.txt', 'three.txt']) expect(existsSync(join(w.root, f))).toBe(true);
    // The same narrowed Workspace-tier rule `/agent approve always` adds: this command's prefix, this mode and the more permissive ones.
    expect(readSession(w, sessionId).state.addedRules).toEqual([
      { toolName: 'run_shell_command', commandPrefix: 'touch', modes: ['default', 'autoEdit', 'yolo'] },
    ]);
  });

  it('tells the model when the person rejects a call, and runs nothing', async () => {
    const w = await world([
      reply([call('run_shell_command', { command: 'touch nope.txt' })]),
      reply([text('Understood, I will not.')]),
    ]);
    const ed = await editor(w);
    const { sessionId } = await newSession(ed, w);
    ed.permissions.answer(() => 'cancel');
    expect((await prompt(ed, sessionId, 'make a file')).stopReason).toBe('end_turn');
    expect(existsSync(join(w.root, 'nope.txt'))).toBe(false);
    expect(w.fake.requests[1]!.body.contents.at(-1)!.parts[0]).toEqual({
      functionResponse: {
        name: 'run_shell_command',
        response: { error: 'run_shell_command was not run: it was denied. Reason: the user rejected it in the editor' },
      },
    });
    expect(forCall(ed, 'call-1-0').at(-1)).toMatchObject({ status: 'failed' });
  });

  it('cancels a turn while the model is still streaming, and the session goes on', async () => {
    const w = await world([fault.hang([text('Thinking about it')]), reply([text('Here is the second answer.')])]);
    const ed = await editor(w);
    const { sessionId } = await newSession(ed, w);
    const first = prompt(ed, sessionId, 'first question');
    await ed.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk');
    await ed.agent.notify('session/cancel', { sessionId });
    expect((await first).stopReason).toBe('cancelled');
    expect((await prompt(ed, sessionId, 'second question')).stopReason).toBe('end_turn');
    expect(agentText(ed.updates)).toBe('Thinking about itHere is the second answer.');
    // The second request carries both questions (the cancelled turn left no model reply behind).
    expect(w.fake.requests[1]!.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'first question' }, { text: 'second question' }] },
    ]);
  });

  it('cancels a turn during a long command: its processes are killed and the model hears it was cancelled', async () => {
    const w = await world([
      reply([call('run_shell_command', { command: 'sleep 3001 3>sleep.fifo & echo $! > sleep.pid; wait' })]),
      reply([text('Noted.')]),
    ]);
    // The sleep holds the FIFO open until it dies: the test waits for that, not for a clock.
    const sleepDied = closedByWriters(join(w.root, 'sleep.fifo'));
    const ed = await editor(w);
    const { sessionId } = await newSession(ed, w);
    await ed.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    const turn = prompt(ed, sessionId, 'run the slow thing');
    await fileAppears(join(w.root, 'sleep.pid'));
    const pid = await hostPidOf(['sleep', '3001']);
    await ed.waitForUpdate(isUpdate('call-1-0', 'in_progress'));
    expect(isGone(pid)).toBe(false);
    await ed.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    await sleepDied;
    expect(isGone(pid)).toBe(true);
    expect(ed.permissions.asked).toHaveLength(0); // yolo: nothing asked
    expect(forCall(ed, 'call-1-0').at(-1)).toMatchObject({ status: 'failed' });
    expect((await prompt(ed, sessionId, 'what happened?')).stopReason).toBe('end_turn');
    expect(JSON.stringify(w.fake.requests[1]!.body.contents)).toContain('run_shell_command was cancelled');
  });

  it('loads a session after its process was killed mid-turn: replays the history, then continues it', async () => {
    const w = await world([
      reply([text('Let me read it.'), call('read_file', { file_path: 'README.md' })]),
      fault.hang([]),
    ]);
    const first = await editor(w);
    const { sessionId } = await newSession(first, w);
    void prompt(first, sessionId, 'what is in the readme?').catch(() => undefined);
    // The second model request hangs. The batch before it settled: its save (a safe point), which
    // overlaps that request, lands while the model "thinks".
    await w.fake.untilRequests(2);
    await sessionSaved(w, sessionId, (doc) => doc.state.history.length === 3);
    first.child.kill('SIGKILL');
    await first.exited;

    w.fake.push(reply([text('It is a demo project.')]));
    const second = await editor(w);
    const loaded = await second.agent.request('session/load', { sessionId, cwd: w.root, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('default');
    expect(second.updates.map((n) => n.update)).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'what is in the readme?' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Let me read it.' } },
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        toolCallId: 'call-1-1',
        kind: 'read',
        status: 'completed',
        title: 'read_file README.md',
      }),
    ]);
    expect((await prompt(second, sessionId, 'and in one word?')).stopReason).toBe('end_turn');
    // The model sees the whole conversation, the new message joined to the tool's response.
    const contents = w.fake.requests[2]!.body.contents;
    expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(contents[0]).toEqual({ role: 'user', parts: [{ text: 'what is in the readme?' }] });
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: 'read_file', response: { output: '# demo' } } },
      { text: 'and in one word?' },
    ]);
  });

  it('kills the running command and exits when the client disconnects mid-turn, saving the session', async () => {
    const w = await world([reply([call('run_shell_command', { command: 'sleep 3002 & echo $! > sleep.pid; wait' })])]);
    const ed = await editor(w);
    const { sessionId } = await newSession(ed, w);
    await ed.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    void prompt(ed, sessionId, 'run the slow thing').catch(() => undefined);
    await fileAppears(join(w.root, 'sleep.pid'));
    const pid = await hostPidOf(['sleep', '3002']);
    expect(isGone(pid)).toBe(false);
    expect(await ed.close()).toBe(0);
    expect(isGone(pid)).toBe(true);
    const saved = readSession(w, sessionId);
    expect(saved).toMatchObject({ status: 'idle', mode: 'yolo' });
    expect(JSON.stringify(saved.state.history)).toContain('run_shell_command was cancelled');
  });

  it("asks the model's own question through the editor's form and returns the answer", async () => {
    const w = await world([
      reply([
        call('ask_user', {
          questions: [{ question: 'Which colour should the button be?', header: 'Colour', type: 'text' }],
        }),
      ]),
      reply([text('Blue it is.')]),
    ]);
    const ed = await editor(w, { elicit: () => ({ action: 'accept', content: { answer: 'blue' } }) });
    const { sessionId } = await newSession(ed, w);
    expect((await prompt(ed, sessionId, 'style the button')).stopReason).toBe('end_turn');
    expect(ed.elicitations).toEqual([
      expect.objectContaining({
        mode: 'form',
        sessionId,
        toolCallId: 'call-1-0',
        message: 'Which colour should the button be?',
        requestedSchema: expect.objectContaining({ required: ['answer'] }),
      }),
    ]);
    expect(w.fake.requests[1]!.body.contents.at(-1)!.parts[0]).toEqual({
      functionResponse: { name: 'ask_user', response: { output: 'blue' } },
    });
  });

  it("offers a question's choices as permission options when the editor has no forms", async () => {
    const w = await world([
      reply([
        call('ask_user', {
          questions: [
            {
              question: 'Which database?',
              header: 'DB',
              type: 'choice',
              options: [
                { label: 'Postgres', description: '' },
                { label: 'SQLite', description: 'a file' },
              ],
            },
          ],
        }),
      ]),
      reply([text('SQLite then.')]),
    ]);
    const ed = await editor(w);
    const { sessionId } = await newSession(ed, w);
    ed.permissions.answer(() => 'choice-2');
    expect((await prompt(ed, sessionId, 'pick a database')).stopReason).toBe('end_turn');
    expect(ed.permissions.asked[0]!.options.map((o) => o.name)).toEqual(['Postgres', 'SQLite: a file', "Don't answer"]);
    expect(w.fake.requests[1]!.body.contents.at(-1)!.parts[0]).toMatchObject({
      functionResponse: { response: { output: 'SQLite: a file' } },
    });
  });

  it('reads and writes files through the editor when it offers fs: unsaved buffers are seen, the disk is left to the editor', async () => {
    const w = await world([
      reply([call('read_file', { file_path: 'src/app.ts' })]),
      reply([call('replace', { file_path: 'src/app.ts', old_string: 'answer = 41', new_string: 'answer = 43' })]),
      reply([text('Changed.')]),
    ]);
    const app = join(w.root, 'src/app.ts');
    const buffers = new Map([[app, 'export const answer = 41; // unsaved edit\n']]);
    const ed = await editor(w, { fs: { buffers } });
    const { sessionId } = await newSession(ed, w);
    ed.permissions.answer(() => 'proceed_once');
    expect((await prompt(ed, sessionId, 'bump it')).stopReason).toBe('end_turn');
    expect(JSON.stringify(w.fake.requests[1]!.body.contents.at(-1))).toContain('// unsaved edit');
    expect(ed.fsCalls.filter((c) => c.method === 'write')).toEqual([
      { method: 'write', path: app, content: 'export const answer = 43; // unsaved edit\n' },
    ]);
    expect(ed.permissions.asked[0]!.toolCall.content).toEqual([
      {
        type: 'diff',
        path: app,
        oldText: 'export const answer = 41; // unsaved edit\n',
        newText: 'export const answer = 43; // unsaved edit\n',
        _meta: { kind: 'modify' },
      },
    ]);
    expect(readFileSync(app, 'utf8')).toBe('export const answer = 41;\n');
  });

  it("starts the editor's MCP servers in the sandbox, offers their tools, and stores them without their secret values", async () => {
    const w = await world([reply([call('mcp_docs_echo', { text: 'hi' })]), reply([text('Hello.')])]);
    mkdirSync(join(w.root, 'srv'));
    await bundleTestServer(join(w.root, 'srv/server.mjs'));
    const ed = await editor(w);
    const { sessionId } = await ed.agent.request('session/new', {
      cwd: w.root,
      mcpServers: [
        {
          name: 'docs',
          command: 'node',
          args: ['srv/server.mjs', 'docs'],
          env: [{ name: 'DOCS_TOKEN', value: 's3cret-token' }],
        },
      ],
    });
    await ed.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    expect((await prompt(ed, sessionId, 'hi')).stopReason).toBe('end_turn');
    const declared = (w.fake.requests[0]!.body.tools ?? [])
      .flatMap((t) => t.functionDeclarations ?? [])
      .map((d) => d.name);
    expect(declared).toContain('mcp_docs_echo');
    expect(JSON.stringify(w.fake.requests[1]!.body.contents)).toContain('docs says: hi');
    expect(forCall(ed, 'call-1-0').at(-1)).toMatchObject({ status: 'completed' });
    expect(readSession(w, sessionId).mcpServers).toEqual([
      { name: 'docs', transport: 'stdio', command: 'node', args: ['srv/server.mjs', 'docs'], envNames: ['DOCS_TOKEN'] },
    ]);
    expect(readFileSync(sessionFile(w, sessionId), 'utf8')).not.toContain('s3cret-token');
  });

  it('answers bad requests with JSON-RPC errors that say what is wrong', async () => {
    const w = await world([]);
    const ed = await editor(w);
    await expect(ed.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('cwd must be an absolute path, not "relative/dir"'),
    });
    await expect(prompt(ed, 'no-such-session', 'hi')).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('no session no-such-session'),
    });
    await expect(
      ed.agent.request('session/load', { sessionId: 'missing', cwd: w.root, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
    const { sessionId } = await newSession(ed, w);
    await expect(ed.agent.request('session/set_mode', { sessionId, modeId: 'turbo' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown mode "turbo"'),
    });
  });
});
