// npm run mutate [-- MODULE... --tests=GLOB,... --STRYKER-FLAG...]: mutation testing of the guard modules (stryker.config.mjs), then a
// per-module table printed and written to bench/mutation.md. With no arguments every guarded module
// is mutated; with arguments only those (each a file or a folder ending in /, as in GUARDED_MODULES).
// Results are kept per module in bench/mutation.json, so a partial run updates only its own rows;
// `--table` rewrites bench/mutation.md from those rows without running anything.
// Exits 1 when a module mutated in this run scores below the bar (85%).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUARDED_MODULES, globsOf } from '../stryker.config.mjs';

const BAR = 85;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = join(root, 'reports/mutation/mutation.json');
const STORE = join(root, 'bench/mutation.json');
const TABLE = join(root, 'bench/mutation.md');

/** A command-line argument as a module: folders end in `/`, paths are relative to the root. */
function moduleOf(arg) {
  const rel = relative(root, join(root, arg)).split('\\').join('/');
  if (!existsSync(join(root, rel))) {
    console.error(
      `npm run mutate: ${arg} does not exist; give files or folders under src/, e.g. src/core/retry.ts or src/policy/`,
    );
    process.exit(2);
  }
  return statSync(join(root, rel)).isDirectory() ? `${rel.replace(/\/$/, '')}/` : rel;
}

// Flags go to Stryker as they are, valued ones in `--name=value` form (`--force`, `--concurrency=1`),
// except `--tests=GLOB[,GLOB...]`: only those test files are run against the mutants (by default every
// unit test; see vitest.stryker.config.ts). Fewer tests can only kill fewer mutants, so a score with
// `--tests` is a lower bound of the full one; the table says which tests each score was measured with.
// Every other argument names a module.
const args = process.argv.slice(2);
const testsFlag = args.filter((a) => a.startsWith('--tests=')).at(-1);
const tests = testsFlag === undefined ? undefined : testsFlag.slice('--tests='.length).split(',').filter(Boolean);
if (tests !== undefined && tests.length === 0) {
  console.error('npm run mutate: --tests= needs test files or globs, e.g. --tests=test/policy/decide.test.ts');
  process.exit(2);
}
// `--no-check`: no type checker (stryker.config.mjs); mutants that would not compile are run and counted.
const typeCheck = !args.includes('--no-check');
const flags = args.filter((a) => a.startsWith('--') && !a.startsWith('--tests=') && a !== '--no-check');
const requested = args.filter((a) => !a.startsWith('--')).map(moduleOf);
const modules = (requested.length ? requested : GUARDED_MODULES).filter((m) => existsSync(join(root, m)));
if (modules.length === 0) {
  console.error('npm run mutate: none of the modules exists yet');
  process.exit(2);
}

/** StrykerJS needs Node >= 22; where the default node is older, the project's Node 24 (test/node24) runs it. */
function nodeForStryker() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const node24 = join(root, 'test/node24/node_modules/.bin/node');
  if (existsSync(node24)) return node24;
  console.error(
    `npm run mutate: StrykerJS needs Node >= 22 (this is ${process.version}); install test/node24 (cd test/node24 && npm ci) or run with a newer node`,
  );
  process.exit(2);
}

const stryker = join(root, 'node_modules/@stryker-mutator/core/bin/stryker.js');
const env = { ...process.env, MUTATE_TESTS: tests?.join(',') ?? '', MUTATE_NO_CHECK: typeCheck ? '' : '1' };
// `--report=FILE`: tabulate the incremental file an interrupted run leaves (reports/stryker-incremental.json)
// instead of running Stryker; give the same modules and options it ran with. It holds only the mutants
// tested before the stop, so those rows are marked partial: a score over part of the module's mutants.
const reportFlag = flags.find((f) => f.startsWith('--report='));
// `--table`: no run at all; rewrite bench/mutation.md from the rows already in bench/mutation.json
// (after rows measured in several worktrees were merged into it).
const tableOnly = flags.includes('--table');
if (reportFlag === undefined && !tableOnly) {
  const run = spawnSync(
    nodeForStryker(),
    [stryker, 'run', 'stryker.config.mjs', '--mutate', modules.flatMap(globsOf).join(','), ...flags],
    { cwd: root, stdio: 'inherit', env },
  );
  if (run.status !== 0) {
    console.error(`npm run mutate: stryker exited with ${run.status ?? run.signal}`);
    process.exit(run.status ?? 1);
  }
}

/** The module a mutated file counts toward: the most specific entry that contains it. */
const ownerOf = (file) =>
  modules.filter((m) => (m.endsWith('/') ? file.startsWith(m) : file === m)).sort((a, b) => b.length - a.length)[0];

const report = tableOnly
  ? { files: {} }
  : JSON.parse(readFileSync(reportFlag ? join(root, reportFlag.slice('--report='.length)) : REPORT, 'utf8'));
const fresh = tableOnly
  ? {}
  : Object.fromEntries(
      modules.map((m) => [
        m,
        { killed: 0, survived: 0, noCoverage: 0, timeout: 0, ignored: 0, errors: 0, survivors: [] },
      ]),
    );
for (const [abs, file] of Object.entries(report.files)) {
  const rel = relative(root, resolve(root, abs)).split('\\').join('/');
  const row = fresh[ownerOf(rel)];
  if (!row) continue;
  for (const m of file.mutants) {
    const at = `${rel}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}${m.replacement === undefined ? '' : ` → ${JSON.stringify(m.replacement).slice(0, 60)}`}`;
    switch (m.status) {
      case 'Killed':
        row.killed++;
        break;
      case 'Timeout':
        row.timeout++;
        break;
      case 'Survived':
        row.survived++;
        row.survivors.push(at);
        break;
      case 'NoCoverage':
        row.noCoverage++;
        row.survivors.push(`${at} (no coverage)`);
        break;
      case 'Ignored':
        row.ignored++;
        break;
      default:
        row.errors++; // CompileError, RuntimeError: not valid mutants, not in the score
    }
  }
}

// Stryker's mutation score: detected (killed + timeout) over valid (detected + survived + no coverage).
const scoreOf = (r) => {
  const valid = r.killed + r.timeout + r.survived + r.noCoverage;
  return valid === 0 ? 100 : (100 * (r.killed + r.timeout)) / valid;
};
const date = new Date().toISOString().slice(0, 10);
const store = existsSync(STORE) ? JSON.parse(readFileSync(STORE, 'utf8')) : {};
for (const [m, r] of Object.entries(fresh))
  store[m] = {
    ...r,
    score: Math.round(scoreOf(r) * 100) / 100,
    date,
    ...(tests ? { tests } : {}),
    ...(typeCheck ? {} : { typeCheck: false }),
    ...(reportFlag ? { partial: true } : {}),
  };

const header = [
  'module',
  'killed',
  'survived',
  'no coverage',
  'timeout',
  'ignored',
  'score',
  'run on',
  'type check',
  'tests',
];
const rows = Object.entries(store)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([m, r]) =>
    [
      m,
      r.killed,
      r.survived,
      r.noCoverage,
      r.timeout,
      r.ignored,
      `${r.score.toFixed(2)}%${r.partial ? ' (partial)' : ''}`,
      r.date,
      r.typeCheck === false ? 'off' : 'on',
      r.tests ? r.tests.join(' ') : 'all unit tests',
    ].map(String),
  );
// A guarded file no stored row covers (neither its own nor its folder's) is listed as not run, so a
// partial set of runs never reads as a complete one.
const covers = (m, file) => (m.endsWith('/') ? file.startsWith(m) : file === m);
const filesOf = (m) =>
  m.endsWith('/')
    ? readdirSync(join(root, m), { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile() && d.name.endsWith('.ts'))
        .map((d) =>
          relative(root, join(d.parentPath ?? d.path, d.name))
            .split('\\')
            .join('/'),
        )
    : [m];
const notRun = GUARDED_MODULES.filter((m) => existsSync(join(root, m)))
  .flatMap(filesOf)
  .filter((file) => !Object.keys(store).some((m) => covers(m, file)))
  .sort()
  .map((file) => [file, '-', '-', '-', '-', '-', 'not run', '-', '-', '-']);
rows.push(...notRun);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
const table = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');

const byLocation = (a, b) => {
  const [fa, la, ca] = a.split(' ')[0].split(':');
  const [fb, lb, cb] = b.split(' ')[0].split(':');
  return fa.localeCompare(fb) || Number(la) - Number(lb) || Number(ca) - Number(cb);
};
const survivorLines = Object.entries(store)
  .filter(([, r]) => r.survivors.length)
  .flatMap(([m, r]) => [`\n### ${m}\n`, ...[...r.survivors].sort(byLocation).map((s) => `- ${s}`)]);
writeFileSync(
  TABLE,
  [
    '# Mutation testing of the guard modules',
    '',
    'Written by `npm run mutate` (StrykerJS, config in stryker.config.mjs; unit tests only, see vitest.stryker.config.ts).',
    'Score = (killed + timeout) / (killed + timeout + survived + no coverage). Ignored mutants are the',
    'ones marked equivalent in the source with `// Stryker disable` comments, each with its reason.',
    `The bar is ${BAR}% per module. The tests column says which tests ran against the mutants: "all unit`,
    'tests" is the suite of vitest.stryker.config.ts; named files (`--tests=`) give a lower bound of that score.',
    'Type check "off" (`--no-check`): mutants that would not compile were run and counted as valid too.',
    "A partial score is over the mutants an interrupted run tested (`--report=`), not all of the module's.",
    '',
    table,
    ...(survivorLines.length ? ['', '## Surviving mutants', ...survivorLines] : []),
    '',
  ].join('\n'),
);
writeFileSync(STORE, `${JSON.stringify(store, null, 2)}\n`);

console.log(`\nMutation score per guarded module (also in ${relative(root, TABLE)}):\n\n${table}\n`);
const below = Object.entries(fresh).filter(([, r]) => scoreOf(r) < BAR);
if (below.length) {
  console.error(`below ${BAR}%: ${below.map(([m, r]) => `${m} (${scoreOf(r).toFixed(2)}%)`).join(', ')}`);
  process.exit(1);
}
