/**
 * The known remedy for Ubuntu's AppArmor restriction on unprivileged user namespaces, applied only
 * where the face allows it (the Action, on a runner with passwordless sudo, as GitHub's hosted
 * runners have): `sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`. It changes a
 * setting of a disposable VM for the rest of the job; the log says so. Never in the CLI: on a
 * person's machine that is their decision.
 */
import { childProcess } from '../common/child-process.js';
import { readFile } from 'node:fs/promises';
import { messageOf } from '../common/errors.js';
import type { ProbeResult } from './types.js';

const APPARMOR_SYSCTL = 'kernel.apparmor_restrict_unprivileged_userns';
export const APPARMOR_FIX = `sudo sysctl -w ${APPARMOR_SYSCTL}=0`;

interface RemedyResult {
  applied: boolean;
  /** For the log: what was done, or why nothing was. */
  message: string;
}

/** Tries to make bubblewrap usable after a failed probe. Tests inject their own. */
export interface Remedy {
  apply(failure: Extract<ProbeResult, { ok: false }>): Promise<RemedyResult>;
}

/** A command runner: resolves with the exit code and output. Injected so tests never run sudo. */
export type RunCommand = (file: string, args: readonly string[]) => Promise<{ code: number; output: string }>;

export function createAppArmorRemedy(
  o: { run?: RunCommand; readSysctl?: () => Promise<string | undefined>; isRoot?: boolean } = {},
): Remedy {
  const run = o.run ?? runCommand;
  const readSysctl = o.readSysctl ?? readAppArmorSysctl;
  const isRoot = o.isRoot ?? process.getuid?.() === 0;
  return {
    async apply(failure) {
      if (failure.kind !== 'userns_denied') return { applied: false, message: `no remedy for: ${failure.message}` };
      const value = await readSysctl();
      if (value !== '1') {
        return {
          applied: false,
          message: `user namespaces are refused, but not by AppArmor's ${APPARMOR_SYSCTL} (it is ${value ?? 'absent'}): ${failure.message}`,
        };
      }
      const [file, args] = isRoot
        ? ['sysctl', ['-w', `${APPARMOR_SYSCTL}=0`]]
        : ['sudo', ['-n', 'sysctl', '-w', `${APPARMOR_SYSCTL}=0`]];
      const r = await run(file, args as string[]);
      if (r.code !== 0)
        return {
          applied: false,
          message: `could not run \`${APPARMOR_FIX}\` (no passwordless sudo?): ${r.output.trim() || `exit code ${r.code}`}`,
        };
      return {
        applied: true,
        message: `ran \`${APPARMOR_FIX}\`: Ubuntu's AppArmor restriction on unprivileged user namespaces kept bubblewrap from starting`,
      };
    },
  };
}

/** The sysctl's value as the kernel shows it, or undefined where the kernel has no such setting. */
export async function readAppArmorSysctl(
  path = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
): Promise<string | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  return text?.trim();
}

function runCommand(file: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    childProcess().execFile(file, [...args], { timeout: 15_000 }, (err, stdout, stderr) => {
      if (!err) return resolve({ code: 0, output: `${stdout}${stderr}` });
      const code = typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
      resolve({ code, output: `${stdout}${stderr}` || messageOf(err) });
    });
  });
}
