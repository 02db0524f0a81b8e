// npm run bench: runs every bench/*.ts section in one process each, one after another, so the
// figures each section prints are measured side by side on the same machine in the same run. The
// sections hand their headline figures over (bench/support/figures.ts); when the side-by-side
// section ran, they are written to bench/results.md (ours, Gemini CLI and the floor in one table).
// `npm run bench -- side policy` runs only the sections whose file names contain those words;
// `--baseline DIR` adds DIR's built CLI (a checkout of an earlier commit) to the side-by-side
// section, and a before-and-after table to bench/results.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderResults } from '../bench/support/results.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const at = argv.indexOf('--baseline');
if (at >= 0 && !argv[at + 1]) {
  console.error('npm run bench: --baseline needs a folder, a checkout whose dist/ is built');
  process.exit(2);
}
const baseline = at >= 0 ? resolve(argv[at + 1]) : undefined;
const only = at >= 0 ? argv.filter((_, i) => i !== at && i !== at + 1) : argv;
const sections = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const figures = mkdtempSync(join(tmpdir(), 'agent-action-bench-figures-'));
let failed = 0;
try {
  for (const file of sections) {
    console.log(`\n## ${file.replace('.bench.ts', '')}\n`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file)], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, BENCH_FIGURES: figures, ...(baseline ? { BENCH_BASELINE: baseline } : {}) },
    });
    if (r.status !== 0) failed++;
  }
  const md = renderResults(figures, {
    date: new Date().toISOString().slice(0, 10),
    command: ['npm run bench', ...(argv.length ? ['--', ...argv] : [])].join(' '),
  });
  if (md) {
    writeFileSync(join(root, 'bench/results.md'), md);
    console.log('\nbench/results.md written.');
  }
} finally {
  rmSync(figures, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
