/**
 * The AppArmor remedy (src/sandbox/remedy.ts) with its real command runner and sysctl reader. So
 * that no test ever changes this machine's kernel settings, `sysctl` and `sudo` are stand-in
 * scripts first on PATH, which record how they were called; the sysctl file is read for real.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAppArmorRemedy, readAppArmorSysctl } from '../../src/sandbox/remedy.js';
import type { ProbeResult } from '../../src/sandbox/types.js';

const APPARMOR: Extract<ProbeResult, { ok: false }> = {
  ok: false,
  kind: 'userns_denied',
  bwrap: '/usr/bin/bwrap',
  message: 'bwrap: setting up uid map: Permission denied',
};

let bin: string;
const PATH = process.env.PATH;
beforeAll(() => {
  mkdirSync(join(process.cwd(), 'tmp'), { recursive: true });
  bin = mkdtempSync(join(process.cwd(), 'tmp', 'remedy-test-'));
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));
afterEach(() => {
  process.env.PATH = PATH;
  rmSync(join(bin, 'calls'), { force: true });
});

/** A stand-in for `name` that records its arguments, prints `output` and exits with `code`. */
function standIn(name: string, code: number, output: string): void {
  const path = join(bin, name);
  writeFileSync(
    path,
    `#!/bin/bash\necho "${name} $*" >> '${join(bin, 'calls')}'\nprintf '%s' '${output}' >&2\nexit ${code}\n`,
  );
  chmodSync(path, 0o755);
}
const calls = () => (existsSync(join(bin, 'calls')) ? readFileSync(join(bin, 'calls'), 'utf8') : '');

describe('createAppArmorRemedy with the real command runner', () => {
  it('as root runs sysctl itself; applied when it exits 0', async () => {
    standIn('sysctl', 0, 'kernel.apparmor_restrict_unprivileged_userns = 0\n');
    process.env.PATH = `${bin}:${PATH}`;
    const r = await createAppArmorRemedy({ readSysctl: async () => '1', isRoot: true }).apply(APPARMOR);
    expect(r).toEqual({
      applied: true,
      message:
        "ran `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`: Ubuntu's AppArmor restriction on unprivileged user namespaces kept bubblewrap from starting",
    });
    expect(calls()).toBe('sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n');
  });

  it('not root: through sudo -n; its exit code and output say why it could not', async () => {
    standIn('sudo', 1, 'sudo: a password is required\n');
    process.env.PATH = `${bin}:${PATH}`;
    const r = await createAppArmorRemedy({ readSysctl: async () => '1', isRoot: false }).apply(APPARMOR);
    expect(r).toEqual({
      applied: false,
      message:
        'could not run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (no passwordless sudo?): sudo: a password is required',
    });
    expect(calls()).toBe('sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n');
  });

  it('a failure with only blank output is told by its exit code', async () => {
    standIn('sudo', 3, '  \n');
    process.env.PATH = `${bin}:${PATH}`;
    const r = await createAppArmorRemedy({ readSysctl: async () => '1', isRoot: false }).apply(APPARMOR);
    expect(r).toEqual({
      applied: false,
      message:
        'could not run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (no passwordless sudo?): exit code 3',
    });
  });

  it('a command that is not there: the spawn error', async () => {
    mkdirSync(join(bin, 'empty'), { recursive: true });
    process.env.PATH = join(bin, 'empty'); // neither sudo nor sysctl
    const r = await createAppArmorRemedy({ readSysctl: async () => '1', isRoot: false }).apply(APPARMOR);
    expect(r).toEqual({
      applied: false,
      message:
        'could not run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (no passwordless sudo?): spawn sudo ENOENT',
    });
  });

  it("reads the real sysctl: where it is absent (not Ubuntu's AppArmor) nothing is run", async () => {
    const file = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';
    const value = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
    standIn('sudo', 0, '');
    standIn('sysctl', 0, '');
    process.env.PATH = `${bin}:${PATH}`;
    const r = await createAppArmorRemedy({ isRoot: false }).apply(APPARMOR);
    if (value === '1') {
      expect(r.applied).toBe(true);
    } else {
      expect(r).toEqual({
        applied: false,
        message: `user namespaces are refused, but not by AppArmor's kernel.apparmor_restrict_unprivileged_userns (it is ${value ?? 'absent'}): bwrap: setting up uid map: Permission denied`,
      });
      expect(calls()).toBe('');
    }
  });

  it('this process being root decides between sysctl and sudo when not told', async () => {
    standIn('sudo', 0, '');
    standIn('sysctl', 0, '');
    process.env.PATH = `${bin}:${PATH}`;
    await createAppArmorRemedy({ readSysctl: async () => '1' }).apply(APPARMOR);
    expect(calls()).toBe(
      process.getuid?.() === 0
        ? 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n'
        : 'sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n',
    );
  });
});

describe('the remedy for other failures, and the sysctl reader', () => {
  it.each(['missing', 'failed'] as const)('a %s bwrap has no remedy: nothing is read or run', async (kind) => {
    let read = false;
    standIn('sudo', 0, '');
    process.env.PATH = `${bin}:${PATH}`;
    const r = await createAppArmorRemedy({ readSysctl: async () => ((read = true), '1'), isRoot: false }).apply({
      ok: false,
      kind,
      bwrap: '/usr/bin/bwrap',
      message: 'it broke',
    });
    expect(r).toEqual({ applied: false, message: 'no remedy for: it broke' });
    expect(read).toBe(false);
    expect(calls()).toBe('');
  });

  it('reads the value trimmed, and nothing where the file is absent', async () => {
    writeFileSync(join(bin, 'sysctl-value'), '1\n');
    expect(await readAppArmorSysctl(join(bin, 'sysctl-value'))).toBe('1');
    expect(await readAppArmorSysctl(join(bin, 'absent'))).toBeUndefined();
  });
});
