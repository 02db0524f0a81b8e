// Policy engine throughput: decisions per second with 500 rules (tool names, shell prefixes,
// argsPatterns, MCP wildcards, commandRegex) and a catch-all, over plain calls and compound shell
// commands (the same lines again, whose split is cached, and lines never seen before), next to
// Gemini CLI's own engine (loaded in this process from its pinned bundle, fed the same TOML file)
// and next to a floor: one catch-all rule, the least any engine can do per call.
// Medians of several runs, measured side by side in this process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPolicyEngine, placeRules } from '../src/policy/engine.js';
import { parsePolicyToml } from '../src/policy/load-toml.js';
import { loadBashGrammar } from '../src/policy/shell/split.js';
import type { PolicyEngine, PolicyQuery } from '../src/policy/types.js';
import { loadGeminiCore } from '../test/support/gemini-policy-engine.js';
import { recordFigures } from './support/figures.js';
import { PLAIN_QUERIES, rules500Toml, SHELL_COMMANDS, shellQuery } from './support/policy-rules.js';

const RUNS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const t0 = performance.now();
await loadBashGrammar();
const initMs = performance.now() - t0;

function engineOf(toml: string): PolicyEngine {
  const parsed = parsePolicyToml(toml, 'bench.toml');
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(JSON.stringify(parsed.diagnostics));
  return createPolicyEngine(placeRules([{ tier: 'user', rules: parsed.rules }]), 'action');
}
const ours = engineOf(rules500Toml());
const floor = engineOf('[[rule]]\ntoolName = "*"\ndecision = "ask_user"\npriority = 0\n');

/** The same shapes with a different argument each time: no two command strings alike, so no parse is reused. */
let fresh = 0;
const freshShell = (): PolicyQuery[] => SHELL_COMMANDS.map((c) => shellQuery(c.replace(/^(\S+)/, `$1 --n=${fresh++}`)));
const shell = SHELL_COMMANDS.map(shellQuery);

type Decide = (q: PolicyQuery) => Promise<unknown>;
async function rate(decide: Decide, queries: readonly PolicyQuery[], n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    // Both engines decide asynchronously: each decision is awaited.
    await decide(queries[i % queries.length]!);
  }
  return n / ((performance.now() - start) / 1000);
}
const freshQueries = (n: number) => Array.from({ length: Math.ceil(n / SHELL_COMMANDS.length) }, freshShell).flat();

// Gemini CLI's engine: its own loader and class, the same rules file, its async check() awaited per call.
const dir = mkdtempSync(join(tmpdir(), 'bench-policy-'));
let gemini: Decide;
try {
  writeFileSync(join(dir, 'rules.toml'), rules500Toml());
  const m = await loadGeminiCore();
  const loaded = await m.loadPoliciesFromToml([join(dir, 'rules.toml')], () => 4);
  if (loaded.errors.length > 0)
    throw new Error(`Gemini CLI refuses the bench rules: ${JSON.stringify(loaded.errors[0])}`);
  const engine = new m.PolicyEngine({
    rules: loaded.rules,
    checkers: loaded.checkers,
    approvalMode: 'default',
    nonInteractive: false,
    sandboxManager: new m.NoopSandboxManager({ workspace: dir }),
  });
  gemini = (q) =>
    engine.check({ name: q.mcpServer ? `mcp_${q.mcpServer}_${q.toolName}` : q.toolName, args: q.args }, q.mcpServer);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const oursDecide: Decide = (q) => ours.decide(q, 'default');
const floorDecide: Decide = (q) => floor.decide(q, 'default');

const rows: Array<{ what: string; n: number; queries: () => readonly PolicyQuery[] }> = [
  { what: 'plain tool calls', n: 20_000, queries: () => PLAIN_QUERIES },
  { what: 'compound shell commands, repeated', n: 4_000, queries: () => shell },
  { what: 'compound shell commands, each new', n: 2_000, queries: () => freshQueries(2_000) },
];
const results: Record<string, { ours: number; gemini: number; floor: number }> = {};
for (const r of rows) {
  // Warm-up, then alternate the engines run by run so neither always meets a warmer (or busier) machine.
  for (const d of [oursDecide, gemini, floorDecide]) await rate(d, r.queries(), Math.min(r.n, 1000));
  const o: number[] = [];
  const g: number[] = [];
  const f: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    o.push(await rate(oursDecide, r.queries(), r.n));
    g.push(await rate(gemini, r.queries(), Math.max(200, r.n / 10)));
    f.push(await rate(floorDecide, r.queries(), r.n));
  }
  results[r.what] = { ours: median(o), gemini: median(g), floor: median(f) };
}

console.log(
  `500 rules + catch-all, mode default; ours in the action context; median of ${RUNS} runs. Floor: our engine with the catch-all alone.\n`,
);
console.log('| decisions per second | ours | Gemini CLI | floor | ours / Gemini CLI | ours / floor |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const [what, r] of Object.entries(results)) {
  console.log(
    `| ${what} | ${fmt(r.ours)} | ${fmt(r.gemini)} | ${fmt(r.floor)} | ${(r.ours / r.gemini).toFixed(2)}x | ${(r.ours / r.floor).toFixed(2)}x |`,
  );
}
console.log(`\nbash parser (web-tree-sitter) initialised once, lazily: ${initMs.toFixed(1)} ms.`);

recordFigures('policy', {
  plainOurs: results['plain tool calls']!.ours,
  plainGemini: results['plain tool calls']!.gemini,
  plainFloor: results['plain tool calls']!.floor,
  compoundOurs: results['compound shell commands, repeated']!.ours,
  compoundGemini: results['compound shell commands, repeated']!.gemini,
  compoundFloor: results['compound shell commands, repeated']!.floor,
  freshOurs: results['compound shell commands, each new']!.ours,
  freshGemini: results['compound shell commands, each new']!.gemini,
});
