// What the open-time check costs the file tools (issue 26). Each call of read_file, list_directory
// and write_file opens with O_NOFOLLOW and checks the descriptor's real path (/proc/self/fd/N)
// before it reads, lists or writes (src/tools/confined-fs.ts). Side by side in this one process:
// - the whole tool call, through the registry as the scheduler makes it (prepare, then run);
// - the confined open and read alone;
// - the check as it was before: the path resolved once (realpath), then a plain read of it.
// Medians of many calls after a warm-up, in microseconds per call.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordFigures } from './support/figures.js';
import { closeOpened, openDirIn, openFileIn, readOpenedSync, writeFileIn } from '../src/tools/confined-fs.js';
import { createDefaultTools } from '../src/tools/default-tools.js';
import type { ToolEnv } from '../src/tools/define-tool.js';
import { createToolRegistry } from '../src/tools/registry.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

function medianMicros(fn: () => unknown): number {
  for (let i = 0; i < 200; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

async function medianMicrosAsync(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < CALLS / 4; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-file-tools-')));
mkdirSync(join(root, 'src', 'lib'), { recursive: true });
const file = join(root, 'src', 'lib', 'module.ts');
writeFileSync(file, 'export const x = 1;\n'.repeat(200));
for (let i = 0; i < 50; i++) writeFileSync(join(root, 'src', `f${i}.ts`), `export const f${i} = ${i};\n`);
const folder = join(root, 'src');

const registry = createToolRegistry(createDefaultTools());
const env: ToolEnv = { root, secrets: [], baseEnv: process.env, shellTimeoutMs: 60_000 };
async function tool(name: string, args: Record<string, unknown>) {
  const p = await registry.prepareCall(name, args, env);
  const out = await p.run({ signal: new AbortController().signal });
  if (out.error) throw new Error(`${name}: ${out.error.message}`);
}

const rows: { what: string; tool: number; confined: number; plain: number }[] = [];
try {
  rows.push({
    what: 'read_file (a 4 KB file)',
    tool: await medianMicrosAsync(() => tool('read_file', { file_path: 'src/lib/module.ts' })),
    confined: medianMicros(() => {
      const f = openFileIn(root, file, { shown: 'src/lib/module.ts' });
      try {
        return readOpenedSync(f);
      } finally {
        closeOpened(f);
      }
    }),
    plain: medianMicros(() => readFileSync(realpathSync(file))),
  });
  rows.push({
    what: 'list_directory (50 entries)',
    tool: await medianMicrosAsync(() => tool('list_directory', { dir_path: 'src' })),
    confined: medianMicros(() => {
      const d = openDirIn(root, folder, { shown: 'src' });
      try {
        return readdirSync(d.path, { withFileTypes: true });
      } finally {
        closeOpened(d);
      }
    }),
    plain: medianMicros(() => readdirSync(realpathSync(folder), { withFileTypes: true })),
  });
  mkdirSync(join(root, 'out'));
  const bytes = Buffer.from('hello\n');
  let n = 0;
  rows.push({
    what: 'write_file (a new small file)',
    tool: await medianMicrosAsync(() => tool('write_file', { file_path: `out/t${n++}.txt`, content: 'hello\n' })),
    confined: medianMicros(() => writeFileIn(root, join(root, 'out', `c${n++}.txt`), { bytes, shown: 'out/c.txt' })),
    plain: medianMicros(() => writeFileSync(join(realpathSync(join(root, 'out')), `p${n++}.txt`), bytes)),
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}

const us = (n: number) => `${n.toFixed(1)} µs`;
console.log(`Medians of ${CALLS} calls (tool calls: ${CALLS / 4}) after a warm-up, per call.\n`);
console.log(
  '| call | whole tool call | confined open and read/list/write | before: realpath, then a plain read/list/write | the check adds |',
);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows)
  console.log(`| ${r.what} | ${us(r.tool)} | ${us(r.confined)} | ${us(r.plain)} | ${us(r.confined - r.plain)} |`);
recordFigures(
  'file-tools',
  Object.fromEntries(
    rows.flatMap((r, i) => [
      [`${i}.what`, r.what],
      [`${i}.tool`, r.tool],
      [`${i}.confined`, r.confined],
      [`${i}.plain`, r.plain],
    ]),
  ),
);
