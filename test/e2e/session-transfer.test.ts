/**
 * A session crossing between the Action and the CLI, only when asked: `session import` brings a
 * suspended Action session (made by the bundled action, waiting for approval) into a developer's
 * clone, where `--resume --approve` runs the waiting call; `session export` puts a CLI session on
 * the Action's ref, where `/agent continue` (the bundled action again) resumes it. Both bundles run
 * as child processes against the same fake Gemini and GitHub servers and a bare origin.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAcpAgent } from '../support/acp-client.js';
import { runBuiltCli } from '../support/cli-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import {
  ALLOW_PREP,
  API_KEY,
  assertBundle,
  bareGit,
  FIXED,
  fingerprint,
  developerClone,
  functionResponses,
  ISSUE,
  logOf,
  openThread,
  readSessionDoc,
  runFix,
  runReply,
  type Thread,
} from './approval-support.js';

let t: Thread | undefined;
const dirs: string[] = [];
beforeAll(assertBundle);
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const FINGERPRINT_CMD = 'node scripts/fingerprint.js';

function developer(thread: Thread) {
  const clone = developerClone(thread.ws.origin);
  const state = makeTempDir('agent-action-state-');
  dirs.push(clone, state);
  const env = { GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: thread.gemini.baseUrl, XDG_STATE_HOME: state };
  return { clone, env, cli: (args: string[]) => runBuiltCli([...args, '--cwd', clone], { env }) };
}

describe('session export and import between the Action and the CLI', () => {
  it('imports a session the Action suspended, with its work tree, and approves the waiting call locally', async () => {
    t = await openThread([
      reply([
        text('Fixing the sign. '),
        call('replace', { file_path: 'src/math.js', old_string: '  return a - b;', new_string: '  return a + b;' }),
      ]),
      reply([
        call('run_shell_command', { command: 'node scripts/prep.js' }),
        call('run_shell_command', { command: FINGERPRINT_CMD }),
      ]),
      reply([text('The fingerprint matches; done here.')]),
    ]);
    const first = await runFix(t, { policy: ALLOW_PREP });
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id']!;
    const suspendedTree = fingerprint(t.ws.dir);

    const dev = developer(t);
    const imported = await dev.cli(['session', 'import', id, '--restore-worktree']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(
      `Imported session ${id} (fix on octo/hello#${ISSUE}) from origin. Continue it with: agent-action --resume ${id}. It waits for an answer to: run \`${FINGERPRINT_CMD}\``,
    );
    // The clone now holds exactly what the Action's run left: the edit, the binary file, the deletion.
    expect(fingerprint(dev.clone)).toBe(suspendedTree);
    expect((await dev.cli(['--list-sessions'])).stdout).toMatch(
      new RegExp(`  1\\. fix on octo/hello#${ISSUE} \\(.*, waiting for approval\\) \\[${id}\\]\\n$`),
    );

    const resumed = await dev.cli(['--resume', id, '--approve', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      session_id: id,
      response: 'The fingerprint matches; done here.',
    });
    // The model's request: the Action's history verbatim, then the waiting batch's results.
    const prior = t.gemini.requests[1]!.body.contents;
    const local = t.gemini.requests[2]!.body;
    expect(local.contents.slice(0, prior.length)).toEqual(prior);
    const results = functionResponses(local);
    expect(results.map((r) => [r.name, r.id])).toEqual([
      ['replace', undefined],
      ['run_shell_command', undefined],
      ['run_shell_command', undefined],
    ]);
    // The approved command ran here, on the restored work tree.
    expect(JSON.stringify(results[2]!.response)).toContain(JSON.stringify(suspendedTree).slice(1, -1));
    expect(readFileSync(join(dev.clone, 'ran.txt'), 'utf8')).toBe('the approved command ran\n');
    // Only asked for: the Action's session is untouched, still open for a maintainer.
    expect(readSessionDoc(t.ws.origin, id).request.status).toBe('open');
  });

  it("asks an imported session's waiting call again in an editor that loads it, then goes on with the new prompt", async () => {
    t = await openThread([
      reply([call('run_shell_command', { command: FINGERPRINT_CMD })]),
      reply([text('Ran it, and noted your message.')]),
    ]);
    const first = await runFix(t);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id']!;
    const dev = developer(t);
    expect((await dev.cli(['session', 'import', id])).code).toBe(0);

    const ed = await startAcpAgent({ env: dev.env, cwd: dev.clone });
    try {
      await ed.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      await ed.agent.request('session/load', { sessionId: id, cwd: dev.clone, mcpServers: [] });
      // The replay shows the waiting call as pending.
      expect(ed.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call')).toMatchObject({
        toolCallId: 'call-1-0',
        status: 'pending',
        title: `run \`${FINGERPRINT_CMD}\``,
      });
      ed.permissions.answer(() => 'proceed_once');
      const r = await ed.agent.request('session/prompt', {
        sessionId: id,
        prompt: [{ type: 'text', text: 'go ahead' }],
      });
      expect(r.stopReason).toBe('end_turn');
    } finally {
      await ed.close();
    }
    expect(ed.permissions.asked.map((a) => a.toolCall.toolCallId)).toEqual(['call-1-0']);
    const last = t.gemini.requests[1]!.body.contents.at(-1)!;
    expect(last.parts.map((p) => Object.keys(p)[0])).toEqual(['functionResponse', 'text']);
    expect(last.parts[1]).toEqual({ text: 'go ahead' });
    expect(JSON.stringify(last.parts[0])).toContain('FINGERPRINT-BEGIN');
  });

  it('exports a CLI session to the Action, and `/agent continue` resumes it there and publishes the fix', async () => {
    t = await openThread([
      reply([call('read_file', { file_path: 'src/math.js' })]),
      reply([text('add() subtracts: it should add.')]),
      reply([
        call('replace', { file_path: 'src/math.js', old_string: '  return a - b;', new_string: '  return a + b;' }),
      ]),
      reply([text('Fixed add().')]),
    ]);
    const dev = developer(t);
    const asked = await dev.cli(['-p', 'why does add(2, 2) return 0?', '--approval-mode', 'auto_edit', '-o', 'json']);
    expect(asked.code, asked.stderr).toBe(0);
    const id = JSON.parse(asked.stdout).session_id as string;

    const exported = await dev.cli([
      'session',
      'export',
      'latest',
      '--thread',
      String(ISSUE),
      '--repo',
      'octo/hello',
      '-p',
      'fix it and open a pull request',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(
      `Exported session ${id} to origin as refs/agent-action/sessions/${id}.\nReply "/agent continue" in octo/hello#${ISSUE} and the Action resumes it.\n`,
    );
    const onRef = readSessionDoc(t.ws.origin, id);
    expect(onRef).toMatchObject({
      id,
      thread: { number: ISSUE, kind: 'issue' },
      trigger: { command: 'prompt' },
      mode: 'autoEdit',
      request: { status: 'claimed' },
    });
    expect(onRef.state.history.at(-1)).toEqual({ role: 'user', parts: [{ text: 'fix it and open a pull request' }] });

    const second = await runReply(t, '/agent continue');
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(second.outputs['session-id']).toBe(id);
    // The Action's first request is the CLI's conversation, then the exported message.
    expect(t.gemini.requests[2]!.body.contents).toEqual(onRef.state.history);
    expect(bareGit(t.ws.origin, 'show', `${second.outputs.branch}:src/math.js`) + '\n').toBe(FIXED);
    expect(readSessionDoc(t.ws.origin, id).request.status).toBe('finished');
  });

  it('refuses to export a session whose model spoke last without a next message, or to a thread it cannot name', async () => {
    t = await openThread([reply([text('Nothing to do.')])]);
    const dev = developer(t);
    expect((await dev.cli(['-p', 'hello'])).code).toBe(0);
    expect(await dev.cli(['session', 'export', 'latest', '--thread', '7', '--repo', 'octo/hello'])).toMatchObject({
      code: 42,
      stderr: expect.stringContaining('the model spoke last in session'),
    });
    expect(await dev.cli(['session', 'export', 'latest', '--thread', 'seven'])).toMatchObject({
      code: 42,
      stderr: expect.stringContaining('--thread needs the number'),
    });
    expect(await dev.cli(['session', 'export', 'latest', '--thread', '7', '-p', 'go'])).toMatchObject({
      code: 42,
      stderr: expect.stringContaining('does not name a GitHub repository: pass --repo OWNER/NAME'),
    });
    expect(await dev.cli(['session', 'import', 'no-such-session'])).toMatchObject({
      code: 42,
      stderr: 'Error: there is no session no-such-session on origin (refs/agent-action/sessions/no-such-session)\n',
    });
    expect(bareGit(t.ws.origin, 'for-each-ref', 'refs/agent-action/')).toBe('');
  });
});
