/**
 * MCP servers as users write them, through the bundled action: a workflow's `mcp-servers` input
 * naming a server by an absolute path outside the workspace (`node /abs/server.mjs`), started in
 * the sandbox without network; a `$VAR` that resolves empty is named in a warning; a call no rule
 * allows is denied, and the log and the job summary say so with the rule that would allow it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { asUser, BUNDLE, examplePayload, retarget } from '../support/e2e-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

let world: ActionWorld | undefined;
let script: string;
beforeAll(async () => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
  // Under /tmp, outside the workspace: a folder the sandbox binds only because the server names it.
  script = join(makeTempDir('agent-action-e2e-mcp-forms-'), 'server.mjs');
  await bundleTestServer(script);
});
afterEach(() => world?.close());

const POLICY = '[[rule]]\nmcpName = "tools"\ntoolName = "echo"\ndecision = "allow"\npriority = 100\n';

describe('the bundled action: MCP servers in the forms users write them', () => {
  it('node /abs/server.mjs starts; an empty $VAR is named; a denied call shows its rule in the log and summary', async () => {
    world = await startActionWorld({
      files: { 'src/a.js': 'export const a = 1;\n' },
      pulls: [{ number: 5, head: 'feature/x', files: { 'src/a.js': 'export const a = 2;\n' }, title: 'Change a' }],
      event: { name: 'pull_request', pull: 5 },
      script: [
        reply([call('mcp_tools_echo', { text: 'from outside' }), call('mcp_tools_env', { names: ['TOKEN'] })]),
        reply([text('Reviewed.')]),
      ],
    });
    const payload = retarget(examplePayload('pull_request', 'opened'), 'octo/hello');
    payload.number = 5;
    payload.pull_request.number = 5;
    asUser(payload.sender, 'contributor');
    const servers = { tools: { command: 'node', args: [script, 'tools'], env: { TOKEN: '$MISSING_TOKEN' } } };

    const r = await world.run({
      eventName: 'pull_request',
      payload,
      inputs: { 'gemini-api-key': 'AIza-e2e-mcp-forms-0000', 'mcp-servers': JSON.stringify(servers), policy: POLICY },
    });
    // A warning's lines travel as one workflow command (%0A for each newline).
    const log = (r.stdout + r.stderr).replace(/%0A/g, '\n');
    expect(r.code, log).toBe(0);

    // The server by its absolute path answered the allowed call.
    const back = JSON.stringify(world.gemini.requests[1]!.body.contents.at(-1));
    expect(back, log).toContain('tools says: from outside');
    // The empty reference, with the server, the field and the fix.
    expect(log).toContain(
      "MCP server tools (input 'mcp-servers'): $MISSING_TOKEN in env.TOKEN is empty, so the server gets empty text there; set MISSING_TOKEN in this step's `env:`",
    );
    // The denied call: in the log at once, and in the job summary, each with the rule that would allow it.
    expect(log).toContain(
      'MCP call mcp_tools_env (server tools) was denied: mcp_tools_env was not run: policy denied it.',
    );
    expect(log).toContain('mcpName = "tools"\ntoolName = "env"\ndecision = "allow"');
    expect(r.summary).toContain('### Denied MCP calls');
    expect(r.summary).toContain('- `mcp_tools_env` (server `tools`)');
    expect(r.summary).toContain(
      '  ```toml\n  [[rule]]\n  mcpName = "tools"\n  toolName = "env"\n  decision = "allow"\n  priority = 100\n  ```',
    );
  });
});
