// Renders bench/results.md from the figures the sections recorded (bench/support/figures.ts) in one
// `npm run bench`: the side-by-side table (ours, Gemini CLI, floor), then the policy engine's and the
// action's figures when those sections ran. Plain JavaScript: scripts/bench.mjs imports it without a loader.
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const read = (dir, section) => {
  const file = join(dir, `${section}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
};
const f1 = (n, unit) => (typeof n === 'number' ? `${n.toFixed(1)} ${unit}` : 'n/a');
const int = (n) => (typeof n === 'number' ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' && b !== 0 ? `${(a / b).toFixed(2)}x` : 'n/a');

/** The whole file, or undefined when the side-by-side section did not run (nothing to compare). */
export function renderResults(dir, { date, command }) {
  const side = read(dir, 'side-by-side');
  if (!side) return undefined;
  const g = (who, k) => side[`${who}.${k}`];
  const COLD = 'ours, cold cache';
  const both = (a, b) => `${a} / ${b}`;
  const row = (label, k, fmt, vsFloor = true) =>
    `| ${label} | ${fmt(g('ours', k))} | ${fmt(g(COLD, k))} | ${fmt(g('Gemini CLI', k))} | ${fmt(g('floor', k))} | ${vsFloor ? both(ratio(g('ours', k), g('floor', k)), ratio(g(COLD, k), g('floor', k))) : '—'} | ${both(ratio(g('ours', k), g('Gemini CLI', k)), ratio(g(COLD, k), g('Gemini CLI', k)))} |`;
  const out = [
    '# Benchmark results',
    '',
    `Written by \`${command}\` on ${date}: Node ${side.node}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}).`,
    'Every figure below comes from this one run. Loopback servers at zero latency: a shared or busy',
    'machine inflates the times (all three programs alike); bytes and ratios carry over better than milliseconds.',
    '',
    `## Ours, Gemini CLI, floor (medians of ${side.runs} runs; bench/side-by-side.bench.ts)`,
    '',
    "Ours: `dist/cli/index.js -p`, twice: with a warm compile cache (the CLI keeps Node's compile cache between runs:",
    'every run after the first on a machine) and with a cold one (an empty cache folder each run: a first run, a',
    'CI job); ratios are warm / cold. Gemini CLI: the pinned @google/gemini-cli bundle, headless `-p`. Floor: a',
    'plain Node fetch loop doing the same requests (bench/support/floor-client.mjs). The same scripted sessions:',
    'each turn one read_file call, then a closing text.',
    '',
    '| figure | ours, warm cache | ours, cold cache | Gemini CLI | floor | ours / floor | ours / Gemini CLI |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('process start to first model request', 'firstMs', (n) => f1(n, 'ms')),
    row('1-turn session, whole process', 'oneMs', (n) => f1(n, 'ms')),
    row('20-turn session, whole process', 'twentyMs', (n) => f1(n, 'ms')),
    row('per-turn overhead ((20-turn - 1-turn) / 19)', 'perTurnMs', (n) => f1(n, 'ms')),
    row('peak RSS, 20-turn session', 'rssMiB', (n) => f1(n, 'MiB')),
    // The floor declares one tool with a one-line description: its body is no target, only a scale.
    row('first request body (JSON bytes)', 'firstBodyBytes', (n) => `${int(n)} B`, false),
  ];
  out.push(...budgetLines(g), ...beforeAfterLines(g));
  const policy = read(dir, 'policy');
  if (policy) {
    out.push(
      '',
      '## Policy decisions per second, 500 rules + catch-all (bench/policy.bench.ts)',
      '',
      "Gemini CLI's engine loaded in-process from its package, fed the same rules. Floor: our engine with the catch-all alone.",
      '',
      '| decisions per second | ours | Gemini CLI | floor | ours / Gemini CLI |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| plain tool calls | ${int(policy.plainOurs)} | ${int(policy.plainGemini)} | ${int(policy.plainFloor)} | ${ratio(policy.plainOurs, policy.plainGemini)} |`,
      `| compound shell commands, repeated | ${int(policy.compoundOurs)} | ${int(policy.compoundGemini)} | ${int(policy.compoundFloor)} | ${ratio(policy.compoundOurs, policy.compoundGemini)} |`,
      `| compound shell commands, each new | ${int(policy.freshOurs)} | ${int(policy.freshGemini)} | — | ${ratio(policy.freshOurs, policy.freshGemini)} |`,
    );
  }
  const action = read(dir, 'action');
  if (action) {
    out.push(
      '',
      `## The action: issue comments through dist/index.js (medians of ${action.runs ?? side.runs} runs; bench/action.bench.ts)`,
      '',
      '| measure | a question | a comment not for the agent (skipped) |',
      '| --- | ---: | ---: |',
      `| process start to first model request | ${f1(action.questionFirstMs, 'ms')} | — |`,
      `| whole run (outputs written) | ${f1(action.questionWholeMs, 'ms')} | ${f1(action.skipWholeMs, 'ms')} |`,
      `| bundle files loaded (entry and chunks) | ${int(action.questionFiles)} | ${int(action.skipFiles)} |`,
      `| JavaScript loaded | ${int(action.questionKiB)} KiB | ${int(action.skipKiB)} KiB |`,
    );
  }
  out.push(...fileToolLines(read(dir, 'file-tools')), ...sandboxLines(read(dir, 'sandbox')));
  out.push(
    '',
    'The other sections (start-up commands, tools, sandbox, MCP, prompt size) print their own tables; see `npm run bench`.',
    '',
  );
  return out.join('\n');
}

/**
 * The budget of issue 27, each line checked against this run's figures. Ours is checked warm and
 * cold alike (cold is a CI job's first run); a line holds when both do.
 */
export const BUDGET = [
  { what: 'first model request within 2x the floor', k: 'firstMs', vs: 'floor', max: 2 },
  { what: 'per-turn overhead within 2.5x the floor', k: 'perTurnMs', vs: 'floor', max: 2.5 },
  { what: 'peak memory within 1.25x the floor', k: 'rssMiB', vs: 'floor', max: 1.25 },
  { what: "first model request at most 0.2x Gemini CLI's", k: 'firstMs', vs: 'Gemini CLI', max: 0.2 },
  { what: 'first request body at most 8 KB', k: 'firstBodyBytes', bytes: 8192 },
];

function budgetLines(g) {
  const lines = [
    '',
    '## The budget (issue 27): does it hold?',
    '',
    '| budget | ours, warm | ours, cold | holds |',
    '| --- | ---: | ---: | --- |',
  ];
  for (const b of BUDGET) {
    const measure = (who) =>
      b.bytes
        ? g(who, b.k)
        : typeof g(who, b.k) === 'number' && typeof g(b.vs, b.k) === 'number'
          ? g(who, b.k) / g(b.vs, b.k)
          : undefined;
    const [warm, cold] = [measure('ours'), measure('ours, cold cache')];
    const limit = b.bytes ?? b.max;
    const holds =
      warm === undefined || cold === undefined ? 'not measured' : warm <= limit && cold <= limit ? 'yes' : 'no';
    const show = (n) => (n === undefined ? 'n/a' : b.bytes ? `${int(n)} B` : `${n.toFixed(2)}x`);
    lines.push(`| ${b.what} | ${show(warm)} | ${show(cold)} | ${holds} |`);
  }
  return lines;
}

function beforeAfterLines(g) {
  if (typeof g('before', 'firstMs') !== 'number') return [];
  const rows = [
    ['process start to first model request', 'firstMs', 'ms'],
    ['1-turn session, whole process', 'oneMs', 'ms'],
    ['per-turn overhead', 'perTurnMs', 'ms'],
    ['peak RSS, 20-turn session', 'rssMiB', 'MiB'],
    ['first request body', 'firstBodyBytes', 'B'],
  ];
  const show = (n, unit) => (unit === 'B' ? `${int(n)} B` : f1(n, unit));
  return [
    '',
    '## Before and after (the baseline build given by `--baseline`, and this one, in the same run)',
    '',
    '| figure | before, warm | after, warm | before, cold | after, cold | after / before (warm / cold) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      ([label, k, unit]) =>
        `| ${label} | ${show(g('before', k), unit)} | ${show(g('ours', k), unit)} | ${show(g('before, cold cache', k), unit)} | ${show(g('ours, cold cache', k), unit)} | ${ratio(g('ours', k), g('before', k))} / ${ratio(g('ours, cold cache', k), g('before, cold cache', k))} |`,
    ),
  ];
}

function fileToolLines(f) {
  if (!f) return [];
  const us = (n) => (typeof n === 'number' ? `${n.toFixed(1)} µs` : 'n/a');
  const lines = [
    '',
    "## The file tools' open-time check (issue 26; bench/file-tools.bench.ts)",
    '',
    'Per call, medians. Before the check, a tool resolved the path once and then read it; now it opens with',
    "O_NOFOLLOW and checks the descriptor's real path before a byte is read.",
    '',
    '| call | whole tool call | confined open and read/list/write | before: realpath, then plain | the check adds |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (let i = 0; f[`${i}.what`] !== undefined; i++)
    lines.push(
      `| ${f[`${i}.what`]} | ${us(f[`${i}.tool`])} | ${us(f[`${i}.confined`])} | ${us(f[`${i}.plain`])} | ${us(f[`${i}.confined`] - f[`${i}.plain`])} |`,
    );
  return lines;
}

function sandboxLines(s) {
  if (!s) return [];
  const ms = (n) => f1(n, 'ms');
  return [
    '',
    "## The sandbox's start, with the environment allow-list and rlimits (issue 26; bench/sandbox.bench.ts)",
    '',
    '| what | ms |',
    '| --- | ---: |',
    `| run \`true\` unconfined | ${ms(s.trueDirect)} |`,
    `| run \`true\` in the sandbox (bubblewrap, prlimit, allow-listed environment) | ${ms(s.trueSandboxed)} |`,
    `| run \`true\` unconfined under prlimit (what the bounds add) | ${ms(s.trueBounded)} |`,
    `| the environment allow-list, per call | ${typeof s.envMicros === 'number' ? `${s.envMicros.toFixed(1)} µs` : 'n/a'} |`,
    `| a ${s.commands}-command session, unconfined / sandboxed | ${ms(s.sessionDirect)} / ${ms(s.sessionSandboxed)} |`,
  ];
}
