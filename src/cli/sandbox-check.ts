/**
 * `agent-action sandbox check`: what the sandbox can do on this machine, each point verified by
 * running a process in it (sandbox/check.ts). Exit 0 when commands would run sandboxed, 1 when
 * not, 42 for bad flags.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { messageOf } from '../common/errors.js';
import { runSandboxCheck, type CheckReport } from '../sandbox/check.js';
import { commandEnvOf } from '../sandbox/command-env.js';
import { isSecretName } from '../tools/shell-env.js';
import type { Io } from './output.js';

const USAGE = `usage: agent-action sandbox check [--sandbox-network] [--bwrap PATH] [--json]

Runs one process in the sandbox against a scratch workspace and reports what it could and could
not do: namespaces, capabilities, network, read-only .git/.gemini/.github, the credential-free
.git/config, the runner's file commands, $HOME, /proc, secrets, and whether background processes
die with the call.`;

export async function runSandboxCheckCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: Io,
): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        json: { type: 'boolean' },
        'sandbox-network': { type: 'boolean' },
        bwrap: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    io.stderr(`agent-action sandbox check: ${messageOf(e)}\n${USAGE}\n`);
    return 42;
  }
  if (flags.help) return (io.stdout(`${USAGE}\n`), 0);
  // A canary in this process's environment: the check sees it left out (the allow-list), with this process's secrets.
  const canary = `agent-action-canary-${randomBytes(8).toString('hex')}`;
  const base = { ...env, AGENT_ACTION_CHECK_TOKEN: canary };
  const secretValues = [
    canary,
    ...Object.entries(env).flatMap(([k, v]) => (v && v.length >= 8 && isSecretName(k) ? [v] : [])),
  ];
  const report = await runSandboxCheck({
    env: commandEnvOf(base, secretValues),
    secretValues,
    network: flags['sandbox-network'] ?? false,
    bwrap: flags.bwrap,
  });
  io.stdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.usable ? 0 : 1;
}

/** Pure: the report as aligned lines for a terminal. */
function formatReport(r: CheckReport): string {
  const width = Math.max(...r.items.map((i) => i.name.length));
  const lines = [`agent-action sandbox check (network ${r.network ? 'allowed' : 'off'})`];
  for (const i of r.items) lines.push(`  ${i.ok ? 'ok  ' : 'FAIL'}  ${i.name.padEnd(width)}  ${i.detail}`);
  if (r.hiddenPathEntries.length)
    lines.push(
      `  note  PATH folders not visible inside (commands found only there will not run): ${r.hiddenPathEntries.join(', ')}`,
    );
  lines.push(
    r.usable
      ? 'usable: commands run in the sandbox'
      : 'not usable: with --sandbox required commands are refused; with auto they run unconfined',
  );
  return `${lines.join('\n')}\n`;
}
