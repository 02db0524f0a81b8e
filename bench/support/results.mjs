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
    "Ours: `dist/cli/index.js -p`, twice: with a warm compile cache (the CLI keeps V8's compiled code between runs:",
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
  out.push('', 'The other sections (start-up commands, tools, sandbox, MCP, prompt size) print their own tables; see `npm run bench`.', '');
  return out.join('\n');
}
