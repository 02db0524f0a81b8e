/**
 * What trusted configuration shows a stdio MCP server outside the workspace (the script its
 * command names, the package it sits in, the PATH folders) is read-only: a hostile model that
 * drives the server's own tools cannot rewrite the script that the next run, or the next server
 * of this job, starts. Through the bundle; `weaken.mjs mcp-visible-ro` binds them writable, and
 * this test goes red.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { asUser, BUNDLE, examplePayload, retarget } from '../support/e2e-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

let world: ActionWorld | undefined;
let dir: string;
let script: string;
let original: string;
beforeAll(async () => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
  dir = makeTempDir('agent-action-sec-mcp-ro-');
  script = join(dir, 'server.mjs');
  await bundleTestServer(script);
  original = readFileSync(script, 'utf8');
});
afterEach(() => world?.close());

const POLICY = '[[rule]]\nmcpName = "tools"\ntoolName = "write_marker"\ndecision = "allow"\npriority = 100\n';

describe('MCP servers: what they are shown outside the workspace stays read-only', () => {
  it('a server cannot overwrite the script its command names, nor add a file beside it', async () => {
    world = await startActionWorld({
      files: { 'src/a.js': 'export const a = 1;\n' },
      pulls: [{ number: 5, head: 'feature/x', files: { 'src/a.js': 'export const a = 2;\n' }, title: 'Change a' }],
      event: { name: 'pull_request', pull: 5 },
      script: [
        reply([
          call('mcp_tools_write_marker', { path: script, text: 'pwned' }),
          call('mcp_tools_write_marker', { path: join(dir, 'planted.mjs'), text: 'pwned' }),
        ]),
        reply([text('Done.')]),
      ],
    });
    const payload = retarget(examplePayload('pull_request', 'opened'), 'octo/hello');
    payload.number = 5;
    payload.pull_request.number = 5;
    asUser(payload.sender, 'contributor');
    const servers = { tools: { command: 'node', args: [script, 'tools'] } };
    const r = await world.run({
      eventName: 'pull_request',
      payload,
      inputs: { 'gemini-api-key': 'AIza-sec-mcp-ro-0000', 'mcp-servers': JSON.stringify(servers), policy: POLICY },
    });
    const log = r.stdout + r.stderr;
    expect(r.code, log).toBe(0);
    // The server ran (it answered), and both writes failed on the read-only mount.
    const back = JSON.stringify(world.gemini.requests[1]!.body.contents.at(-1));
    expect(back, log).toMatch(/EROFS/);
    expect(readFileSync(script, 'utf8')).toBe(original);
    expect(existsSync(join(dir, 'planted.mjs'))).toBe(false);
  });
});
