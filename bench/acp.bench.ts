/**
 * The ACP server (`dist/cli/index.js --acp`) as an editor sees it, driven by the ACP SDK's own
 * client over real stdio, beside the `-o stream-json` path of the same bundle, both against the
 * fake Gemini server at zero latency:
 * - first update: from sending `session/prompt` to the first `session/update` (a warm session);
 *   for stream-json, from its `init` line (the loop's start) to its first `message` line;
 * - per update: one model reply streamed as 200 text chunks, from the first update to the last,
 *   divided by 199 (ACP notifications read by the client vs stream-json lines read from stdout).
 * Medians of several runs. Build first (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAcpAgent } from '../test/support/acp-client.js';
import { NODE } from '../test/support/cli-runner.js';
import { reply, startFakeGemini, text, type FakeReply } from '../test/support/fake-gemini.js';

const CLI = join(process.cwd(), 'dist/cli/index.js');
if (!existsSync(CLI)) {
  console.error('dist/cli/index.js is missing: run npm run build first');
  process.exit(1);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CHUNKS = 200;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(2)} ms`;
const us = (n: number) => `${(n * 1000).toFixed(1)} µs`;

const work = mkdtempSync(join(tmpdir(), 'agent-action-bench-acp-'));
const state = mkdtempSync(join(tmpdir(), 'agent-action-bench-state-'));
writeFileSync(join(work, 'README.md'), '# bench\n');

const short = (): FakeReply => reply([text('hello')]);
const long = (): FakeReply => reply(Array.from({ length: CHUNKS }, (_, i) => text(`chunk ${i} `)));

/** One ACP process, one session: `runs` short prompts, then `runs` prompts of 200 chunks. */
async function acp(): Promise<{ first: number[]; perUpdate: number[] }> {
  const fake = await startFakeGemini([...Array.from({ length: RUNS }, short), ...Array.from({ length: RUNS }, long)]);
  const ed = await startAcpAgent({
    env: { GEMINI_API_KEY: 'bench-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: state },
    cwd: work,
  });
  try {
    await ed.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await ed.agent.request('session/new', { cwd: work, mcpServers: [] });
    const first: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const seen = ed.updates.length;
      const t0 = performance.now();
      const done = ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `short ${i}` }] });
      await ed.waitForUpdate(() => ed.updates.length > seen);
      first.push(performance.now() - t0);
      await done;
    }
    const perUpdate: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const times: number[] = [];
      const before = ed.updates.length;
      const stop = ed.onUpdate(() => times.push(performance.now()));
      await ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `long ${i}` }] });
      stop();
      if (ed.updates.length - before !== CHUNKS)
        throw new Error(`expected ${CHUNKS} updates, got ${ed.updates.length - before}`);
      perUpdate.push((times.at(-1)! - times[0]!) / (CHUNKS - 1));
    }
    return { first, perUpdate };
  } finally {
    await ed.close();
    await fake.close();
  }
}

/** One `-p -o stream-json` process: when its lines arrive, by type. */
function streamJson(baseUrl: string): Promise<Array<{ type: string; at: number }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, '-p', 'bench', '-o', 'stream-json', '--cwd', work], {
      env: { ...process.env, GEMINI_API_KEY: 'bench-key', GOOGLE_GEMINI_BASE_URL: baseUrl, XDG_STATE_HOME: state },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Array<{ type: string; at: number }> = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      const at = performance.now();
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const e = JSON.parse(line) as { type: string; role?: string };
        lines.push({ type: e.type === 'message' ? `message:${e.role}` : e.type, at });
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(lines) : reject(new Error(`stream-json run exited ${code}`))));
  });
}

async function streamJsonRuns(): Promise<{ first: number[]; perUpdate: number[] }> {
  const fake = await startFakeGemini([...Array.from({ length: RUNS }, short), ...Array.from({ length: RUNS }, long)]);
  try {
    const first: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const lines = await streamJson(fake.baseUrl);
      first.push(lines.find((l) => l.type === 'message:assistant')!.at - lines.find((l) => l.type === 'init')!.at);
    }
    const perUpdate: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const chunks = (await streamJson(fake.baseUrl)).filter((l) => l.type === 'message:assistant');
      if (chunks.length !== CHUNKS) throw new Error(`expected ${CHUNKS} message lines, got ${chunks.length}`);
      perUpdate.push((chunks.at(-1)!.at - chunks[0]!.at) / (CHUNKS - 1));
    }
    return { first, perUpdate };
  } finally {
    await fake.close();
  }
}

try {
  const a = await acp();
  const s = await streamJsonRuns();
  console.log(`| measure (median of ${RUNS}) | ACP (--acp) | stream-json (-p) |`);
  console.log('| --- | --- | --- |');
  console.log(
    `| prompt to first update (ACP: session/prompt sent -> first session/update; stream-json: init -> first message) | ${ms(median(a.first))} | ${ms(median(s.first))} |`,
  );
  console.log(
    `| per update, ${CHUNKS} streamed chunks (first to last / ${CHUNKS - 1}) | ${us(median(a.perUpdate))} | ${us(median(s.perUpdate))} |`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
}
