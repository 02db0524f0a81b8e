/**
 * The `settings` input end to end, through the bundled action against the fakes: Gemini CLI's
 * settings.json schema as a workflow writes it, merged above the trusted commit's
 * .gemini/settings.json. What the model is offered is read off the fake Gemini's requests; what is
 * published off the origin's git state.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { assertBundle, asUser, examplePayload, retarget } from '../support/e2e-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

const API_KEY = 'AIza-e2e-settings-key-0000';
const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
const REPO_SETTINGS = JSON.stringify({ tools: { exclude: ['mcp_team_huge'] }, general: { vimMode: true } });

let world: ActionWorld | undefined;
let serverScript: Buffer;
beforeAll(async () => {
  assertBundle();
  const out = join(makeTempDir('agent-action-e2e-settings-'), 'server.mjs');
  await bundleTestServer(out);
  serverScript = readFileSync(out);
});
afterEach(() => world?.close());

function commentPayload(thread: number, commentId: number, body: string, login: string) {
  const p = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  p.issue.number = thread;
  delete p.issue.pull_request;
  p.comment.id = commentId;
  p.comment.body = body;
  asUser(p.comment.user, login);
  asUser(p.sender, login);
  return p;
}

/** `/agent fix` on issue 5 of a world with these files, the settings input, and this script. */
async function fixRun(
  files: Record<string, string | Buffer>,
  settings: unknown,
  script: Parameters<typeof startActionWorld>[0]['script'],
  beforeRun?: (dir: string) => void,
) {
  world = await startActionWorld({
    files: { 'src/math.js': BUGGY, ...files },
    event: { name: 'issue_comment' },
    script,
  });
  const { gh, ws } = world;
  gh.addIssue({ number: 5, title: 'add() subtracts', body: 'add(2, 2) returns 0.', user: { login: 'reporter' } });
  const trigger = gh.addComment(5, '/agent fix', { login: 'maintainer' });
  beforeRun?.(ws.dir);
  const r = await world.run({
    eventName: 'issue_comment',
    payload: commentPayload(5, trigger.id, trigger.body, 'maintainer'),
    inputs: { 'gemini-api-key': API_KEY, settings: JSON.stringify(settings) },
  });
  return { r, log: r.stdout + r.stderr, world };
}

const declared = (w: ActionWorld, i = 0) =>
  (w.gemini.requests[i]!.body.tools?.[0]?.functionDeclarations ?? []).map((d) => d.name);
const gitOut = (gitDir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).trim();

describe('the bundled action: the settings input', () => {
  it('offers a server, the tools.core tools and context.fileName; tools.allowed and exclude hold; one warning lists unused keys; a step-written settings.json is ignored and not committed', async () => {
    const settings = {
      mcpServers: { team: { command: 'node', args: ['tools/server.mjs', 'team'] } },
      tools: { core: ['read_file', 'replace', 'run_shell_command(git)'], allowed: ['mcp_team_echo'] },
      context: { fileName: ['AGENTS.md'] },
      ui: { theme: 'Dracula' },
    };
    const {
      r,
      log,
      world: w,
    } = await fixRun(
      {
        'tools/server.mjs': serverScript,
        'AGENTS.md': 'Agents: always write tests.\n',
        'GEMINI.md': 'Gemini: not the context file here.\n',
        '.gemini/settings.json': REPO_SETTINGS,
      },
      settings,
      [
        reply([
          call('mcp_team_echo', { text: 'hello' }),
          call('run_shell_command', { command: 'ls' }),
          call('replace', { file_path: 'src/math.js', old_string: '  return a - b;', new_string: '  return a + b;' }),
        ]),
        reply([text('Fixed.')]),
      ],
      // An earlier step writes a settings file (as run-gemini-cli's workflows do).
      (dir) => writeFileSync(join(dir, '.gemini/settings.json'), JSON.stringify({ tools: { core: ['write_file'] } })),
    );
    expect(r.code, log).toBe(0);
    expect(r.outputs.status, log).toBe('success');

    // tools.core: only those built-ins; the server's tools (less the excluded one); no ask_user.
    const offered = declared(w);
    expect(
      offered.filter((n) => !n.startsWith('mcp_') && !['set_labels', 'reply', 'add_review_comment'].includes(n)).sort(),
      log,
    ).toEqual(['read_file', 'replace', 'run_shell_command']);
    expect(offered, log).toContain('mcp_team_echo');
    expect(offered).not.toContain('mcp_team_huge');
    // context.fileName: AGENTS.md is the memory, GEMINI.md is not.
    const system = JSON.stringify(w.gemini.requests[0]!.body.systemInstruction);
    expect(system).toContain('Agents: always write tests.');
    expect(system).not.toContain('Gemini: not the context file here.');

    // tools.allowed let the MCP call through (nothing else allows it); tools.core's git-only shell denied ls.
    const back = JSON.stringify(w.gemini.requests[1]!.body.contents.at(-1));
    expect(back).toContain('team says: hello');
    expect(back).toMatch(/"ls".*denied|denied.*tools\.core/);

    // One warning names the keys nobody uses, with their scope.
    expect(log.match(/settings agent-action does not use, ignored/g), log).toHaveLength(1);
    expect(log).toMatch(
      /general\.vimMode \(\.gemini\/settings\.json \(commit [0-9a-f]{12}\)\), ui\.theme \(input 'settings'\)/,
    );
    // The step-written file: named, why, and what to do; the fix's commit leaves it out.
    expect(log).toContain('.gemini/settings.json in the work tree was written or changed by an earlier step');
    expect(log).toContain('`settings` input');
    const branch = 'agent-action/issue-5-add-subtracts';
    expect(gitOut(w.ws.origin, 'diff', '--name-only', 'main', branch)).toBe('src/math.js');
    expect(gitOut(w.ws.origin, 'show', `${branch}:.gemini/settings.json`)).toBe(REPO_SETTINGS);
    const progress = w.gh.state.comments.find((c) => c.body.includes('<!-- agent-action:progress'));
    expect(progress?.body).toContain('was written or changed by an earlier step');
  });

  it('model.maxSessionTurns 1 stops the run after one turn, below max-turns', async () => {
    const {
      r,
      log,
      world: w,
    } = await fixRun({}, { model: { maxSessionTurns: 1 } }, [
      reply([call('read_file', { file_path: 'src/math.js' })]),
      reply([call('read_file', { file_path: 'src/math.js' })]),
      reply([text('Done.')]),
    ]);
    expect(r.outputs.status, log).toBe('failed');
    expect(w.gemini.requests, log).toHaveLength(1);
    expect(log).toContain('Reached max session turns for this session.');
  });

  it('bad JSON in the input fails naming the input and where', async () => {
    world = await startActionWorld({ files: { 'src/math.js': BUGGY }, event: { name: 'issue_comment' }, script: [] });
    const { gh } = world;
    gh.addIssue({ number: 5, title: 't', body: 'b', user: { login: 'reporter' } });
    const trigger = gh.addComment(5, '/agent fix', { login: 'maintainer' });
    const r = await world.run({
      eventName: 'issue_comment',
      payload: commentPayload(5, trigger.id, trigger.body, 'maintainer'),
      inputs: { 'gemini-api-key': API_KEY, settings: '{\n  "tools": {"core": ["read_file"]\n}' },
    });
    const log = r.stdout + r.stderr;
    expect(r.code, log).not.toBe(0);
    expect(log).toMatch(/input 'settings' is not valid JSON: .* at line 3, column 2/);
    expect(log).not.toMatch(/\n\s+at .+\.js:\d+/);
    expect(world.gemini.requests).toHaveLength(0);
  });
});
