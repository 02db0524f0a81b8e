// What the sandbox costs. Two measurements, each side by side in this one process:
// - `true` started directly (its own process group, as the unconfined path does) vs in bubblewrap,
//   through the same spawn-and-wait code the shell tool uses: median of 50.
// - what the sandbox's start adds for its bounds and environment: `true` under prlimit with the
//   default bounds vs `true` alone (both unconfined, same spawn code), and the environment
//   allow-list (commandEnvOf) over a runner-sized environment, per call;
// - a 20-command session through run_shell_command (git, grep, node, npm-style scripts, file
//   edits) with the sandbox off vs required: median of BENCH_RUNS sessions.
// The ratios are what matters; absolute times depend on the machine and its load.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordFigures } from './support/figures.js';
import { boundedArgv, DEFAULT_BOUNDS, findPrlimit, readHardLimits } from '../src/sandbox/bounds.js';
import { commandEnvOf } from '../src/sandbox/command-env.js';
import { createSandbox } from '../src/sandbox/sandbox.js';
import type { Sandbox } from '../src/sandbox/types.js';
import { createDefaultTools } from '../src/tools/default-tools.js';
import type { ToolEnv } from '../src/tools/define-tool.js';
import { runToCompletion } from '../src/tools/process-group.js';
import { createToolRegistry } from '../src/tools/registry.js';

const SPAWNS = 50;
const SESSIONS = Number(process.env.BENCH_RUNS ?? 5);

const SESSION = [
  'git status --short',
  'git log --oneline -5',
  'ls -la src',
  'cat package.json',
  'grep -rn "export" src | head -20',
  'wc -l src/*.js',
  'node -e "console.log(process.version)"',
  'npm test',
  'sed -n 1,5p src/math.js',
  "sed -i 's/a - b/a + b/' src/math.js",
  'git diff --stat',
  'npm test',
  'find . -name "*.js" -not -path "./.git/*" | sort',
  'head -3 README.md',
  'echo "notes" > NOTES.md',
  'cat NOTES.md',
  'node test/math.test.js && echo ok',
  'git diff | head -20',
  'ls',
  'true',
];

function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bench-sandbox-')));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'b',
      version: '1.0.0',
      type: 'module',
      scripts: { test: 'node test/math.test.js' },
    }),
    'src/math.js': 'export function add(a, b) {\n  return a - b;\n}\n',
    'test/math.test.js': "import { add } from '../src/math.js';\nconsole.log(add(2, 2) === 4 ? 'pass' : 'fail');\n",
    'README.md': '# bench\n',
  };
  for (const [rel, content] of Object.entries(files)) {
    execFileSync('mkdir', ['-p', join(dir, rel, '..')]);
    writeFileSync(join(dir, rel), content);
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'b',
        GIT_AUTHOR_EMAIL: 'b@b',
        GIT_COMMITTER_NAME: 'b',
        GIT_COMMITTER_EMAIL: 'b@b',
      },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench');
  return dir;
}

async function runTrue(sandbox: Sandbox, dir: string, argv: string[] = ['true']): Promise<void> {
  const p = await sandbox.spawn({ argv, workspace: dir, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const r = await runToCompletion(p, { timeoutMs: 30_000, signal: new AbortController().signal, maxOutputBytes: 4096 });
  if (r.exitCode !== 0) throw new Error(`true failed: ${r.output}`);
}

async function median(times: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm: page cache, the sandbox's probe
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)];
}

async function session(sandbox: Sandbox, dir: string): Promise<void> {
  const registry = createToolRegistry(createDefaultTools());
  const env: ToolEnv = {
    root: dir,
    secrets: [],
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    shellTimeoutMs: 60_000,
    sandbox,
  };
  execFileSync('git', ['checkout', '-q', '--', '.'], { cwd: dir });
  rmSync(join(dir, 'NOTES.md'), { force: true });
  for (const command of SESSION) {
    const p = await registry.prepareCall('run_shell_command', { command }, env);
    const out = await p.run({ signal: new AbortController().signal });
    if (out.error) throw new Error(`${command}: ${out.error.message}`);
  }
}

/** A runner's environment is about this big: GITHUB_*, RUNNER_*, ACTIONS_*, the toolcache, the job's env. */
const RUNNER_ENV_SIZE = 120;

function allowListMicros(): number {
  const env: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: '/home/runner', LANG: 'C.UTF-8', CI: 'true' };
  for (let i = 0; Object.keys(env).length < RUNNER_ENV_SIZE; i++)
    env[i % 2 ? `GITHUB_VAR_${i}` : `JOB_SECRET_${i}`] = `value-${i}`.repeat(4);
  const calls = 20_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) commandEnvOf(env, ['secret-value-1', 'secret-value-2']);
  return Number(process.hrtime.bigint() - t) / 1e3 / calls;
}

async function main() {
  const off = createSandbox({ mode: 'off', hostEnv: {} });
  const on = createSandbox({ mode: 'required', hostEnv: {} });
  const status = await on.status();
  if (status.kind !== 'sandboxed') {
    console.log(
      `No sandbox on this machine (${status.kind === 'refused' ? status.reason : status.kind}); nothing to measure.`,
    );
    return;
  }
  const dir = workspace();
  try {
    const trueDirect = await median(SPAWNS, () => runTrue(off, dir));
    const trueSandboxed = await median(SPAWNS, () => runTrue(on, dir));
    const prlimit = await findPrlimit();
    const bounded = prlimit
      ? boundedArgv({ prlimit, bounds: DEFAULT_BOUNDS, hard: await readHardLimits() }, ['true'])
      : undefined;
    const trueBounded = bounded ? await median(SPAWNS, () => runTrue(off, dir, bounded)) : undefined;
    const envMicros = allowListMicros();
    const sessionDirect = await median(SESSIONS, () => session(off, dir));
    const sessionSandboxed = await median(SESSIONS, () => session(on, dir));
    console.log(
      `bubblewrap ${status.version}; \`true\`: median of ${SPAWNS}; session of ${SESSION.length} commands: median of ${SESSIONS}.\n`,
    );
    console.log('| what | unconfined (ms) | sandboxed (ms) | ratio | added per command (ms) |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    console.log(
      `| run \`true\` | ${trueDirect.toFixed(1)} | ${trueSandboxed.toFixed(1)} | ${(trueSandboxed / trueDirect).toFixed(2)}x | ${(trueSandboxed - trueDirect).toFixed(1)} |`,
    );
    console.log(
      `| ${SESSION.length}-command session | ${sessionDirect.toFixed(0)} | ${sessionSandboxed.toFixed(0)} | ${(sessionSandboxed / sessionDirect).toFixed(2)}x | ${((sessionSandboxed - sessionDirect) / SESSION.length).toFixed(1)} |`,
    );
    const bounds =
      trueBounded === undefined
        ? 'prlimit is not installed: no rlimits to measure'
        : `${trueBounded.toFixed(1)} ms vs ${trueDirect.toFixed(1)} ms: prlimit adds ${(trueBounded - trueDirect).toFixed(1)} ms`;
    console.log(
      `\nThe sandbox's start, of which: the bounds (\`true\` under prlimit vs alone, unconfined) ${bounds}; the environment allow-list ${envMicros.toFixed(1)} µs per call (${RUNNER_ENV_SIZE} variables in).`,
    );
    recordFigures('sandbox', {
      trueDirect,
      trueSandboxed,
      trueBounded,
      envMicros,
      sessionDirect,
      sessionSandboxed,
      commands: SESSION.length,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
