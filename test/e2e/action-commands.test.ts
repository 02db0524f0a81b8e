/**
 * Gemini CLI's custom commands and extensions through the bundled action: `/agent <name> args` in
 * a comment, `prompt: /<name> args` in a workflow, `/agent help`, with every expansion (`{{args}}`,
 * a namespace, `@{path}` inside and outside the workspace, `!{cmd}` allowed and denied by policy),
 * and an extension of the trusted commit bringing a context file, an MCP server, a command and
 * `excludeTools`. What the model got is read off the fake Gemini's requests.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startActionWorld, type ActionWorld, type WorldSpec } from '../support/action-world.js';
import { assertBundle, asUser, examplePayload, retarget } from '../support/e2e-runner.js';
import { call, reply, text, type FakeReply } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

let world: ActionWorld | undefined;
let serverScript: Buffer;
beforeAll(async () => {
  assertBundle();
  const out = join(makeTempDir('agent-action-e2e-cmd-'), 'server.mjs');
  await bundleTestServer(out);
  serverScript = readFileSync(out);
});
afterEach(() => world?.close());

const KEY = { 'gemini-api-key': 'AIza-e2e-commands-0000' };
const SHELL_POLICY = [
  '[[rule]]',
  'toolName = "run_shell_command"',
  'commandPrefix = "echo"',
  'decision = "allow"',
  'priority = 100',
  '',
  '[[rule]]',
  'toolName = "run_shell_command"',
  'commandPrefix = "curl"',
  'decision = "deny"',
  'priority = 200',
  'deny_message = "no network calls from commands"',
  '',
].join('\n');

const COMMANDS = {
  '.gemini/commands/git/commit.toml':
    'description = "Write a commit message"\nprompt = """\nSubject for: {{args}}\nGuide:\n@{docs/guide.md}\nEcho: !{echo {{args}}}\n"""\n',
  '.gemini/commands/changelog.toml': 'prompt = "Update the changelog."\n',
  '.gemini/commands/fetch.toml':
    'description = "Fetch a page"\nprompt = "Page: !{curl -s https://example.invalid/{{args}}}"\n',
  '.gemini/commands/leak.toml': 'prompt = "A: @{../outside.txt}\\nB: @{docs/link.md}\\nC: @{/etc/hostname}"\n',
  '.gemini/commands/fix.toml': 'description = "A fix of our own"\nprompt = "our fix"\n',
  '.gemini/policies/shell.toml': SHELL_POLICY,
  'docs/guide.md': 'Use the imperative mood.\n',
};

async function commentWorld(body: string, script: FakeReply[], files: WorldSpec['files'] = COMMANDS) {
  world = await startActionWorld({ files, event: { name: 'issue_comment' }, script });
  const { gh } = world;
  gh.addIssue({ number: 1, title: 'Release notes' });
  const trigger = gh.addComment(1, body, { login: 'maintainer' });
  const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  payload.issue.number = 1;
  payload.comment.id = trigger.id;
  payload.comment.body = body;
  asUser(payload.comment.user, 'maintainer');
  asUser(payload.sender, 'maintainer');
  return { world, payload };
}

/** The first user message the model got. */
const firstPrompt = (w: ActionWorld): string => JSON.stringify(w.gemini.requests[0]!.body.contents[0]);
const userText = (w: ActionWorld): string =>
  (w.gemini.requests[0]!.body.contents[0]!.parts ?? []).map((p) => p.text ?? '').join('');

describe('the bundled action: custom commands', () => {
  it('/agent git:commit <args>: {{args}} raw, @{file} injected, !{echo {{args}}} run with the args as one shell word', async () => {
    const args = `it's "quoted" $HOME; touch markers-pwned`;
    const { payload } = await commentWorld(`/agent git:commit ${args}`, [reply([text('feat: quote things')])]);
    const r = await world!.run({ eventName: 'issue_comment', payload, inputs: KEY });
    const log = r.stdout + r.stderr;
    expect(r.code, log).toBe(0);
    expect(r.outputs.status, log).toBe('success');
    const prompt = userText(world!);
    expect(prompt).toContain(`Subject for: ${args}\nGuide:\nUse the imperative mood.\n\nEcho: ${args}\n`);
    // One word: the quote, the $HOME and the ; reached echo as text; nothing was touched.
    expect(existsSync(join(world!.ws.dir, 'markers-pwned'))).toBe(false);
    // The template has {{args}}: the invocation is not appended.
    expect(prompt).not.toContain('/git:commit');
    expect(log).toContain('custom command /git:commit (.gemini/commands/git/commit.toml)');
  });

  it('a template without {{args}} gets the invocation appended after a blank line', async () => {
    const { payload } = await commentWorld('/agent changelog 1.2.0 added "New feature"', [reply([text('done')])]);
    const r = await world!.run({ eventName: 'issue_comment', payload, inputs: KEY });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
    expect(userText(world!).endsWith('Update the changelog.\n\n/changelog 1.2.0 added "New feature"')).toBe(true);
  });

  it('!{curl ...} denied by a rule: nothing runs, no model request, the reply names the rule and why', async () => {
    const { payload } = await commentWorld('/agent fetch page', [reply([text('never asked')])]);
    const r = await world!.run({ eventName: 'issue_comment', payload, inputs: KEY });
    expect(r.outputs.status).toBe('failed');
    expect(world!.gemini.requests).toEqual([]);
    const answer = world!.gh.state.comments.at(-1)!.body;
    expect(answer).toContain('custom command /fetch');
    expect(answer).toContain("!{curl -s https://example.invalid/'page'}");
    expect(answer).toContain('policy denies it');
    expect(answer).toContain('.gemini/policies/shell.toml:7');
    expect(answer).toContain('no network calls from commands');
  });

  it('@{path} out of the workspace (../, a symlink, an absolute path): the placeholder stays, nothing of the file reaches the model', async () => {
    const outside = makeTempDir('agent-action-e2e-outside-');
    const { payload } = await commentWorld('/agent leak', [reply([text('ok')])]);
    const ws = world!.ws.dir;
    const parent = join(ws, '..', 'outside.txt');
    writeFileSync(parent, 'SECRET-PARENT\n');
    onTestFinished(() => rmSync(parent, { force: true }));
    writeFileSync(join(outside, 'secret.txt'), 'SECRET-LINKED\n');
    mkdirSync(join(ws, 'docs'), { recursive: true });
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'docs', 'link.md'));
    const r = await world!.run({ eventName: 'issue_comment', payload, inputs: KEY });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
    const prompt = firstPrompt(world!);
    expect(prompt).not.toContain('SECRET-');
    expect(userText(world!)).toContain('A: @{../outside.txt}\nB: @{docs/link.md}\nC: @{/etc/hostname}');
    const progress = world!.gh.state.comments.find((c) => c.body.includes('agent-action'))!.body;
    expect(progress).toContain('@{docs/link.md} was not injected');
    expect(progress).toContain('outside the workspace');
  });

  it('/agent help lists the commands; one named like a built-in (fix) says how it is reached', async () => {
    const { payload } = await commentWorld('/agent help', []);
    const r = await world!.run({ eventName: 'issue_comment', payload, inputs: KEY });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
    const help = world!.gh.state.comments.at(-1)!.body;
    expect(help).toContain("This repository's custom commands");
    expect(help).toContain('- `/agent git:commit [args]`: Write a commit message');
    expect(help).toContain('- `/agent changelog [args]`: Custom command from changelog.toml');
    expect(help).toContain('- `/agent fetch [args]`: Fetch a page');
    expect(help).toMatch(/- `\/fix`: A fix of our own \(only as the workflow's `prompt: \/fix`/);
    expect(world!.gemini.requests).toEqual([]);
  });
});

describe('the bundled action: prompt: /<name> in a workflow', () => {
  it('workflow_dispatch with prompt "/git:commit tidy" expands the command; an unknown /name goes as written with a warning', async () => {
    world = await startActionWorld({
      files: COMMANDS,
      event: { name: 'workflow_dispatch' },
      script: [reply([text('ok')]), reply([text('ok')])],
    });
    const payload = retarget(examplePayload('workflow_dispatch'), 'octo/hello');
    const r = await world.run({
      eventName: 'workflow_dispatch',
      payload,
      inputs: { ...KEY, prompt: '/git:commit tidy' },
    });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
    expect(userText(world)).toBe('Subject for: tidy\nGuide:\nUse the imperative mood.\n\nEcho: tidy\n\n');

    const r2 = await world.run({
      eventName: 'workflow_dispatch',
      payload,
      inputs: { ...KEY, prompt: '/nosuch thing' },
    });
    expect(r2.outputs.status).toBe('success');
    const second = world.gemini.requests[1]!.body.contents[0]!.parts!.map((p) => p.text).join('');
    expect(second).toBe('/nosuch thing');
    expect(r2.stdout).toContain('no custom command of that name (.gemini/commands/nosuch.toml)');
  });
});

describe('the bundled action: an extension of the trusted commit', () => {
  it('brings its context file to memory, its MCP server (${extensionPath}), its command, and excludeTools drops tools', async () => {
    const manifest = {
      name: 'team-tools',
      version: '1.0.0',
      contextFileName: 'TEAM.md',
      mcpServers: {
        team: { command: 'node', args: ['${extensionPath}/server.mjs', 'team'], trust: true },
      },
      // A built-in, an MCP tool by its server's name and one by our full name, and a shell prefix.
      excludeTools: ['glob', 'huge', 'mcp_team_write_marker', 'run_shell_command(rm)'],
    };
    const files = {
      '.gemini/extensions/team-tools/gemini-extension.json': JSON.stringify(manifest),
      '.gemini/extensions/team-tools/TEAM.md': 'Team rule: tabs, never spaces.\n',
      '.gemini/extensions/team-tools/server.mjs': serverScript,
      '.gemini/extensions/team-tools/commands/deploy.toml':
        'description = "Deploy it"\nprompt = "Deploy {{args}} now."\n',
      // The extension's /changelog meets the project's: it becomes /team-tools:changelog.
      '.gemini/extensions/team-tools/commands/changelog.toml': 'prompt = "The extension changelog."\n',
      '.gemini/commands/changelog.toml': 'prompt = "Update the changelog."\n',
    };
    const script = [
      reply([call('mcp_team_huge', { chars: 20 }), call('run_shell_command', { command: 'rm -f TEAM.md' })]),
      reply([text('deployed')]),
    ];
    const { payload } = await commentWorld('/agent deploy staging', script, files);
    const r = await world!.run({ eventName: 'issue_comment', payload, inputs: KEY });
    const log = r.stdout + r.stderr;
    expect(r.outputs.status, log).toBe('success');
    const req = world!.gemini.requests[0]!.body;
    expect(userText(world!).endsWith('Deploy staging now.')).toBe(true);
    expect(JSON.stringify(req.systemInstruction)).toContain('Team rule: tabs, never spaces.');
    const offered = (req.tools?.[0]?.functionDeclarations ?? []).map((d) => d.name);
    expect(offered, log).toContain('mcp_team_echo');
    expect(offered).toContain('read_file');
    expect(offered).toContain('run_shell_command');
    for (const gone of ['glob', 'mcp_team_huge', 'mcp_team_write_marker']) expect(offered).not.toContain(gone);
    // A left-out tool cannot be called; the shell prefix is a deny of the policy engine, named.
    const answers = JSON.stringify(world!.gemini.requests[1]!.body.contents.at(-1));
    expect(answers).toContain('mcp_team_huge');
    expect(answers).not.toContain('HEADxxxx');
    expect(answers).toMatch(/team-tools\/gemini-extension\.json excludeTools/);
    // trust: true is dropped from an extension's server: no allow rule comes with it.
    expect(log).not.toContain('mcpServers.team.trust');

    // The same world: /agent help shows the renamed extension command.
    const help = await commentWorld('/agent help', [], files);
    const h = await world!.run({ eventName: 'issue_comment', payload: help.payload, inputs: KEY });
    expect(h.outputs.status).toBe('success');
    const listed = world!.gh.state.comments.at(-1)!.body;
    expect(listed).toContain('- `/agent deploy [args]`: [team-tools] Deploy it');
    expect(listed).toContain('- `/agent team-tools:changelog [args]`: [team-tools] Custom command from changelog.toml');
    expect(listed).toContain('- `/agent changelog [args]`: Custom command from changelog.toml');
  });
});
