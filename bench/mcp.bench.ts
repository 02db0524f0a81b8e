// What MCP servers cost at start-up: the agent prepared with 0, 1 and 3 stdio servers (our
// SDK-built test server, bundled into the workspace, each in the sandbox), started eagerly (with
// the agent) or lazily (at the first model request). Two times per run, medians of BENCH_RUNS:
// - prepared: until prepareAgent returns (what a face waits for before anything else);
// - first request: until the model receives its first request (the tools must be known by then).
// Then the agent is closed (every server stopped). The fake Gemini answers at once.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareAgent } from '../src/compose/prepare-agent.js';
import { parseMcpServers } from '../src/tools/mcp/config.js';
import type { McpStartMode } from '../src/tools/mcp/manager.js';
import { createSandbox } from '../src/sandbox/sandbox.js';
import { reply, startFakeGemini, text } from '../test/support/fake-gemini.js';
import { bundleTestServer } from '../test/support/mcp-server.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'bench-mcp-')));
mkdirSync(join(ws, 'srv'));
writeFileSync(join(ws, 'README.md'), '# bench\n');
await bundleTestServer(join(ws, 'srv/server.mjs'));
const sandbox = createSandbox({ mode: 'auto', hostEnv: process.env });
const status = await sandbox.status();
console.log(
  `servers run ${status.kind === 'sandboxed' ? `in bubblewrap ${status.version}` : 'unconfined (no usable bubblewrap here)'}; medians of ${RUNS} runs\n`,
);

async function once(servers: number, start: McpStartMode): Promise<{ prepared: number; firstRequest: number }> {
  const config = Object.fromEntries(
    Array.from({ length: servers }, (_, i) => [
      `s${i}`,
      { command: 'node', args: ['srv/server.mjs', `s${i}`], trust: true },
    ]),
  );
  const { servers: parsed } = parseMcpServers(config, { source: { label: 'bench', origin: 'repository' } });
  const fake = await startFakeGemini([reply([text('done')])]);
  try {
    const t0 = performance.now();
    const agent = await prepareAgent({
      model: { name: 'gemini-2.5-flash', apiKey: 'bench-key', baseUrl: fake.baseUrl },
      workspace: { root: ws, memoryRoot: ws },
      policy: { context: 'headless', mode: 'default' },
      task: { command: 'prompt' },
      limits: { maxTurns: 2 },
      secrets: [],
      io: { channel: { decide: async () => 'defer' } },
      commands: { sandbox, baseEnv: { PATH: process.env.PATH } },
      extensions: { mcp: { servers: parsed, start } },
    });
    const prepared = performance.now() - t0;
    let firstRequest = 0;
    void fake.untilRequests(1).then(() => (firstRequest = performance.now() - t0));
    const run = await agent.start('go', () => undefined);
    await agent.close();
    if (run.outcome.status !== 'success') throw new Error(`run ended ${JSON.stringify(run.outcome)}`);
    const tools = (fake.requests[0]!.body.tools?.[0]?.functionDeclarations ?? []).filter((d) =>
      d.name.startsWith('mcp_'),
    ).length;
    if (tools !== servers * 12) throw new Error(`expected ${servers * 12} MCP tools offered, saw ${tools}`);
    return { prepared, firstRequest };
  } finally {
    await fake.close();
  }
}

const rows: string[] = ['| servers | start | prepared | first request |', '| ---: | --- | ---: | ---: |'];
for (const servers of [0, 1, 3]) {
  for (const start of servers === 0 ? (['eager'] as const) : (['eager', 'lazy'] as const)) {
    await once(servers, start); // warm: page cache, the sandbox's probe
    const prepared: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await once(servers, start);
      prepared.push(r.prepared);
      first.push(r.firstRequest);
    }
    rows.push(
      `| ${servers} | ${servers === 0 ? '-' : start} | ${median(prepared).toFixed(0)} ms | ${median(first).toFixed(0)} ms |`,
    );
  }
}
console.log(rows.join('\n'));
rmSync(ws, { recursive: true, force: true });
