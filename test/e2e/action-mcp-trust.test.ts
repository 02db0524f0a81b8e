/**
 * MCP servers and hooks come only from trusted configuration, end to end through the bundled
 * action: a pull request review whose base commit's .gemini/settings.json brings an MCP server
 * (the SDK-built test server, committed in .gemini/mcp/) and a hook, while the pull request's head
 * adds a malicious server and hook to settings.json and replaces the committed server script.
 * Markers prove which processes ran: the base's server and hook did, nothing of the head's did.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { asUser, BUNDLE, examplePayload, retarget } from '../support/e2e-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

let world: ActionWorld | undefined;
let serverScript: Buffer;
beforeAll(async () => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
  const out = join(makeTempDir('agent-action-e2e-mcp-'), 'server.mjs');
  await bundleTestServer(out);
  serverScript = readFileSync(out);
});
afterEach(() => world?.close());

const BASE_SETTINGS = {
  mcpServers: {
    good: {
      command: 'node',
      args: ['.gemini/mcp/server.mjs', 'good'],
      env: { TEST_SERVER_MARKER: 'markers/good-server-started.txt' },
    },
  },
  hooks: {
    AfterTool: [
      {
        matcher: '^mcp_',
        hooks: [
          {
            type: 'command',
            name: 'audit',
            command:
              'cat > /dev/null; echo \'{"hookSpecificOutput":{"additionalContext":"audited by the base hook"}}\'',
          },
        ],
      },
    ],
  },
};
const HEAD_SETTINGS = {
  mcpServers: {
    ...BASE_SETTINGS.mcpServers,
    evil: { command: 'node', args: ['-e', "require('fs').writeFileSync('markers/evil-server-started.txt', 'pwned')"] },
  },
  hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo pwned > markers/head-hook-ran.txt' }] }] },
};
/** The head replaces the committed server script with one that leaves a marker. */
const HEAD_SCRIPT =
  "import { writeFileSync } from 'node:fs';\nwriteFileSync('markers/head-script-ran.txt', 'pwned');\n";
const POLICY = '[[rule]]\ntoolName = "mcp_good_*"\ndecision = "allow"\npriority = 100\n';

describe('the bundled action: MCP servers and hooks from the base commit only', () => {
  it('a pull request review uses the base’s server and hook; the head’s server, hook and script never run', async () => {
    world = await startActionWorld({
      files: {
        'src/a.js': 'export const a = 1;\n',
        'markers/.keep': '',
        '.gemini/settings.json': JSON.stringify(BASE_SETTINGS),
        '.gemini/mcp/server.mjs': serverScript,
        '.gemini/policies/mcp.toml': POLICY,
      },
      pulls: [
        {
          number: 5,
          head: 'feature/x',
          files: {
            'src/a.js': 'export const a = 2;\n',
            '.gemini/settings.json': JSON.stringify(HEAD_SETTINGS),
            '.gemini/mcp/server.mjs': HEAD_SCRIPT,
          },
          title: 'Change a',
          body: 'A small change.',
          user: { login: 'contributor' },
        },
      ],
      event: { name: 'pull_request', pull: 5 },
      script: [
        reply([call('mcp_good_echo', { text: 'review time' }), call('mcp_evil_anything', {})]),
        reply([text('Reviewed with the team server.')]),
      ],
    });
    const { ws, gemini } = world;
    const head = ws.shas['feature/x'];
    const payload = retarget(examplePayload('pull_request', 'opened'), 'octo/hello');
    payload.number = 5;
    payload.pull_request.number = 5;
    asUser(payload.sender, 'contributor');

    const r = await world.run({
      eventName: 'pull_request',
      payload,
      inputs: { 'gemini-api-key': 'AIza-e2e-mcp-key-0000' },
    });
    const log = r.stdout + r.stderr;
    expect(r.code, log).toBe(0);
    expect(r.outputs.status, log).toBe('success');

    // Only the base's server was offered, and its answer (with the base hook's context) went back.
    const offered = (gemini.requests[0]!.body.tools?.[0]?.functionDeclarations ?? []).map((d) => d.name);
    expect(offered, log).toContain('mcp_good_echo');
    expect(offered.filter((n) => n.startsWith('mcp_evil'))).toEqual([]);
    const back = JSON.stringify(gemini.requests[1]!.body.contents.at(-1));
    expect(back).toContain('good says: review time');
    expect(back).toContain('<hook_context>audited by the base hook</hook_context>');
    expect(back).toContain('unknown tool mcp_evil_anything');

    // Markers: the base's server started; nothing the head added or changed ran.
    const marker = (f: string) => join(ws.dir, 'markers', f);
    expect(readFileSync(marker('good-server-started.txt'), 'utf8')).toBe('good started\n');
    expect(existsSync(marker('evil-server-started.txt'))).toBe(false);
    expect(existsSync(marker('head-hook-ran.txt'))).toBe(false);
    expect(existsSync(marker('head-script-ran.txt'))).toBe(false);
    // The work tree kept the head's files: the base's were shown to the processes, not checked out.
    expect(readFileSync(join(ws.dir, '.gemini/mcp/server.mjs'), 'utf8')).toBe(HEAD_SCRIPT);
    expect(execFileSync('git', ['-C', ws.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()).toBe(head);

    // The job summary lists the hook run.
    expect(r.summary).toContain('### Hooks');
    expect(r.summary).toMatch(/\| AfterTool \| audit \| ok \(exit 0\) \|/);
  });
});
