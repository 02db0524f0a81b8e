/**
 * Whether bubblewrap works here, found the only reliable way: by running it once with the
 * namespaces every call uses. Ubuntu 24.04 (the hosted runners' image) restricts unprivileged user
 * namespaces through AppArmor, and bwrap then fails with `setting up uid map: Permission denied`
 * or, when only the network namespace's setup is refused, `loopback: Failed RTM_NEWADDR`.
 */
import { childProcess } from '../common/child-process.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageOf } from '../common/errors.js';
import type { ProbeFailureKind, ProbeResult } from './types.js';

export const DEFAULT_BWRAP = '/usr/bin/bwrap';

/** The probe as the sandbox sees it: tests inject a result (an AppArmor refusal, say). */
export type Probe = () => Promise<ProbeResult>;

/** Runs one process through the real spawn path; resolves with its exit code and stderr. */
export type ProbeRunner = (
  workspace: string,
  version: string,
) => Promise<{ code: number | null; stderr: string; started: boolean }>;

export async function probeBwrap(bwrap: string, run: ProbeRunner): Promise<ProbeResult> {
  const version = await readBwrapVersion(bwrap);
  if (!version.ok) return { ok: false, kind: 'missing', bwrap, message: version.message };
  const dir = await mkdtemp(join(tmpdir(), 'agent-action-probe-'));
  try {
    const r = await run(dir, version.version);
    if (r.code === 0 && r.started) return { ok: true, bwrap, version: version.version };
    const stderr = r.stderr.trim() || `exit code ${r.code}`;
    return { ok: false, kind: classifyBwrapFailure(stderr), bwrap, message: stderr };
  } catch (e) {
    return { ok: false, kind: 'failed', bwrap, message: messageOf(e) };
  } finally {
    await rm(dir, { recursive: true }); // made above; the probe's one call does not remove it
  }
}

/** `bubblewrap 0.8.0` -> `0.8.0`; a missing binary is the `missing` failure. */
export function readBwrapVersion(
  bwrap: string,
): Promise<{ ok: true; version: string } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    childProcess().execFile(bwrap, ['--version'], { timeout: 10_000 }, (err, stdout) => {
      if (err) {
        const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
        resolve({
          ok: false,
          message: missing
            ? `bubblewrap is not installed (${bwrap} not found)`
            : `${bwrap} --version failed: ${messageOf(err)}`,
        });
        return;
      }
      resolve({ ok: true, version: /(\d+\.\d+(?:\.\d+)?)/.exec(stdout)?.[1] ?? stdout.trim() });
    });
  });
}

/**
 * Pure: bwrap's error text to a failure kind. Every way a kernel or an LSM says "no user
 * namespace for you" is one kind: it has one remedy.
 */
export function classifyBwrapFailure(stderr: string): ProbeFailureKind {
  const denied = [
    /setting up uid map: Permission denied/i,
    /loopback: Failed RTM_NEWADDR/i,
    /Creating new namespace failed: (Permission denied|Operation not permitted)/i,
    /No permissions to create new namespace/i,
    /unprivileged user namespaces/i,
    /uid_map.*(Permission denied|Operation not permitted)/i,
  ];
  return denied.some((r) => r.test(stderr)) ? 'userns_denied' : 'failed';
}

/** Pure: bwrap 0.8.0 added --disable-userns. */
export function supportsDisableUserns(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  // Stryker disable next-line ConditionalExpression: past `major > 0`, major is 0 or not a number, and NaN >= 8 is false either way
  return major > 0 || (major === 0 && minor >= 8);
}
