// Policy engine throughput: decisions per second with 500 rules (mixed tools, shell prefixes,
// argsPatterns) over a mix of plain calls and compound shell commands (the same lines again, whose
// split is cached, and lines never seen before); plus the one-time cost of loading the bash grammar.
// Medians of several runs, measured side by side in this process.
import { performance } from 'node:perf_hooks';
import { createPolicyEngine, placeRules } from '../src/policy/engine.js';
import { parsePolicyToml } from '../src/policy/load-toml.js';
import { initShellParser } from '../src/policy/shell-split.js';
import type { PolicyQuery } from '../src/policy/types.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const t0 = performance.now();
await initShellParser();
const initMs = performance.now() - t0;

function rules500(): string {
  const out: string[] = [];
  const decisions = ['allow', 'deny', 'ask_user'];
  for (let i = 0; i < 500; i++) {
    const d = decisions[i % 3];
    const p = i % 1000;
    switch (i % 5) {
      case 0: out.push(`[[rule]]\ntoolName = "tool_${i}"\ndecision = "${d}"\npriority = ${p}\n`); break;
      case 1: out.push(`[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["cmd${i} sub", "tool${i}"]\ndecision = "${d}"\npriority = ${p}\n`); break;
      case 2: out.push(`[[rule]]\ntoolName = "write_file"\nargsPattern = '\\x00"file_path":"src/mod${i}/[^"]*"\\x00'\ndecision = "${d}"\npriority = ${p}\n`); break;
      case 3: out.push(`[[rule]]\ntoolName = "mcp_srv${i}_*"\ndecision = "${d}"\npriority = ${p}\nmodes = ["default", "autoEdit"]\n`); break;
      default: out.push(`[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "make${i}( [a-z]+)?$"\ndecision = "${d}"\npriority = ${p}\n`);
    }
  }
  out.push('[[rule]]\ntoolName = "*"\ndecision = "ask_user"\npriority = 0\n');
  return out.join('\n');
}

const parsed = parsePolicyToml(rules500(), 'bench.toml');
if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(JSON.stringify(parsed.diagnostics));
const engine = createPolicyEngine(placeRules([{ tier: 'user', rules: parsed.rules }]), 'action');

const plain: PolicyQuery[] = [
  { toolName: 'read_file', args: { file_path: 'src/a.ts' } },
  { toolName: 'write_file', args: { file_path: 'src/mod402/x.ts', content: 'x'.repeat(2000) } },
  { toolName: 'tool_250', args: {} },
  { toolName: 'search', mcpServer: 'srv8', args: { q: 'x' } },
];
const shellCalls: PolicyQuery[] = [
  'npm test',
  'cmd251 sub --x && tool256 y | grep z',
  'git status; git diff HEAD -- src/ && echo "$(git log -n 3 --format=%h)"',
  "bash -c 'make4 build && ls -la' > out.txt 2>&1",
].map((command) => ({ toolName: 'run_shell_command', args: { command } }));

/** The same shapes with a different argument each time: no two command strings alike, so no parse is reused. */
let fresh = 0;
const freshShell = (): PolicyQuery[] =>
  shellCalls.map((q) => ({ ...q, args: { command: String(q.args.command).replace(/^(\S+)/, `$1 --n=${fresh++}`) } }));

function rate(queries: PolicyQuery[], n: number): number {
  const start = performance.now();
  for (let i = 0; i < n; i++) engine.decide(queries[i % queries.length]!, 'default');
  return n / ((performance.now() - start) / 1000);
}

function freshRate(n: number): number {
  const queries = Array.from({ length: Math.ceil(n / shellCalls.length) }, freshShell).flat();
  return rate(queries, n);
}

for (let i = 0; i < 3; i++) { rate(plain, 2000); rate(shellCalls, 500); freshRate(500); } // warm-up
const runs = 7;
const plainRates: number[] = [];
const shellRates: number[] = [];
const freshRates: number[] = [];
for (let i = 0; i < runs; i++) {
  plainRates.push(rate(plain, 20_000));
  shellRates.push(rate(shellCalls, 4_000));
  freshRates.push(freshRate(4_000));
}
const p = median(plainRates);
const s = median(shellRates);
const f = median(freshRates);
console.log(`500 rules + catch-all, context action, mode default; median of ${runs} runs\n`);
console.log('| measure | median | ratio to plain calls |');
console.log('| --- | ---: | ---: |');
console.log(`| plain tool calls (decisions/s) | ${Math.round(p).toLocaleString('en-US')} | 1.00 |`);
console.log(`| compound shell commands, repeated (decisions/s) | ${Math.round(s).toLocaleString('en-US')} | ${(s / p).toFixed(2)} |`);
console.log(`| compound shell commands, each new (decisions/s) | ${Math.round(f).toLocaleString('en-US')} | ${(f / p).toFixed(2)} |`);
console.log(`| one decision, plain / shell repeated / shell new (µs) | ${(1e6 / p).toFixed(1)} / ${(1e6 / s).toFixed(1)} / ${(1e6 / f).toFixed(1)} | |`);
console.log(`| bash parser init, once (ms) | ${initMs.toFixed(1)} | |`);
