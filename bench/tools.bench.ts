// grep_search and glob against the tools people would otherwise run by hand (`git grep`, `find`),
// on two real trees: the typescript package from node_modules (large files) and a generated tree
// (many small files). Each row is measured side by side in this one process; medians of N runs.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolEnv } from '../src/tools/define-tool.js';
import { createDefaultTools } from '../src/tools/default-tools.js';
import { createToolRegistry } from '../src/tools/registry.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const here = dirname(fileURLToPath(import.meta.url));
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
  GIT_CONFIG_NOSYSTEM: '1',
};
const sh = (cwd: string, cmd: string, args: string[]) =>
  execFileSync(cmd, args, { cwd, env: gitEnv, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 });
const gitInit = (dir: string) => {
  sh(dir, 'git', ['init', '-q', '-b', 'main']);
  sh(dir, 'git', ['add', '-A']);
  sh(dir, 'git', ['commit', '-q', '-m', 'bench']);
};

function typescriptTree(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bench-ts-')));
  cpSync(join(here, '..', 'node_modules', 'typescript', 'lib'), join(dir, 'lib'), { recursive: true });
  gitInit(dir);
  return dir;
}

function generatedTree(files = 10_000): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bench-gen-')));
  writeFileSync(join(dir, '.gitignore'), 'build/\n');
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `pkg${i % 40}`, `mod${i % 25}`);
    if (i < 1000) mkdirSync(sub, { recursive: true });
    writeFileSync(
      join(sub, `file${i}.${i % 3 === 0 ? 'ts' : 'js'}`),
      `export function f${i}(x) {\n  return x + ${i}; // ${i % 97 === 0 ? 'NEEDLE' : 'hay'}\n}\n`,
    );
  }
  gitInit(dir);
  return dir;
}

async function median(fn: () => Promise<unknown> | unknown): Promise<number> {
  await fn(); // warm: page cache, git index
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const registry = createToolRegistry(createDefaultTools());
const envFor = (root: string): ToolEnv => ({ root, secrets: [], baseEnv: process.env, shellTimeoutMs: 60_000 });
async function tool(root: string, name: string, args: Record<string, unknown>) {
  const p = await registry.prepareCall(name, args, envFor(root));
  const out = await p.run({ signal: new AbortController().signal });
  if (out.error) throw new Error(`${name}: ${out.error.message}`);
  return out;
}

interface Row {
  tree: string;
  task: string;
  ours: number;
  direct: number;
  directName: string;
}

async function main() {
  const trees = [
    ['typescript lib', typescriptTree()],
    ['generated 10k files', generatedTree()],
  ] as const;
  const rows: Row[] = [];
  try {
    for (const [name, dir] of trees) {
      rows.push({
        tree: name,
        task: 'grep rare regex (all matches)',
        ours: await median(() =>
          tool(dir, 'grep_search', { pattern: 'NEEDLE|createSourceFile\\(', total_max_matches: 1000 }),
        ),
        direct: await median(() =>
          sh(dir, 'git', [
            'grep',
            '-n',
            '-I',
            '-i',
            '-P',
            '--untracked',
            '-e',
            'NEEDLE|createSourceFile\\(',
            '--',
            '.',
          ]),
        ),
        directName: 'git grep',
      });
      rows.push({
        tree: name,
        task: 'grep common word (capped at 100)',
        ours: await median(() => tool(dir, 'grep_search', { pattern: 'return' })),
        direct: await median(() =>
          sh(dir, 'git', ['grep', '-n', '-I', '-i', '-P', '--untracked', '-e', 'return', '--', '.']),
        ),
        directName: 'git grep (uncapped)',
      });
      rows.push(await globRow(name, dir, '**/*.ts', ['.', '-name', '*.ts', '-not', '-path', './.git/*']));
      if (name.startsWith('generated')) rows.push(await globRow(name, dir, 'pkg1/**/*.ts', ['pkg1', '-name', '*.ts']));
      rows.push({
        tree: name,
        task: 'grep outside git (system grep)',
        ours: await outsideGit(dir),
        direct: await median(() =>
          sh(dir, 'grep', ['-rnIi', '--exclude-dir=.git', '-E', 'NEEDLE|createSourceFile\\(', '.']),
        ),
        directName: 'grep -r',
      });
    }
  } finally {
    for (const [, dir] of trees) rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Medians of ${RUNS} runs after one warm-up; ratio = ours / direct (lower is better).\n`);
  console.log('| tree | task | ours (ms) | direct | direct (ms) | ratio |');
  console.log('| --- | --- | ---: | --- | ---: | ---: |');
  for (const r of rows)
    console.log(
      `| ${r.tree} | ${r.task} | ${r.ours.toFixed(1)} | ${r.directName} | ${r.direct.toFixed(1)} | ${(r.ours / r.direct).toFixed(2)}x |`,
    );
}

/** Up to 200 matches glob lists newest first (a stat each); past that, the first 200 by path (no dates). */
async function globRow(tree: string, dir: string, pattern: string, findArgs: string[]): Promise<Row> {
  const found = Number(/^Found (\d+)/.exec((await tool(dir, 'glob', { pattern })).forModel)?.[1] ?? 0);
  return {
    tree,
    task: `glob ${pattern} (${found} files: ${found > 200 ? 'first 200 by path' : 'newest first'})`,
    ours: await median(() => tool(dir, 'glob', { pattern })),
    direct: await median(() => sh(dir, 'find', findArgs)),
    directName: 'find -name',
  };
}

/** The same tree copied without .git, so grep_search takes its path outside git (the system's grep). */
async function outsideGit(dir: string): Promise<number> {
  const plain = realpathSync(mkdtempSync(join(tmpdir(), 'bench-plain-')));
  try {
    const gitDir = join(dir, '.git');
    cpSync(dir, plain, { recursive: true, filter: (src) => src !== gitDir && !src.startsWith(`${gitDir}/`) });
    return await median(() =>
      tool(plain, 'grep_search', { pattern: 'NEEDLE|createSourceFile\\(', total_max_matches: 1000 }),
    );
  } finally {
    rmSync(plain, { recursive: true, force: true });
  }
}

await main();
