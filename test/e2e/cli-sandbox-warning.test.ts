/**
 * What `agent-action -p` tells a person whose machine cannot run the sandbox, through the bundled
 * CLI with the real probe: the CLI's bwrap is /usr/bin/bwrap (no flag or variable moves it), so each
 * case runs the CLI in a mount namespace of its own (`unshare --mount`, root only) where a script that
 * fails as Ubuntu 24.04's AppArmor makes bwrap fail is bound over /usr/bin/bwrap. Nothing outside
 * that namespace sees the script. Skipped, with a notice, where that cannot be done. Build first.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBuiltCli, type CliRun } from '../support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const BWRAP = '/usr/bin/bwrap';
const canSwapBwrap =
  process.getuid?.() === 0 &&
  existsSync(BWRAP) &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status === 0;
if (!canSwapBwrap)
  console.warn('NOTICE: cli-sandbox-warning.test.ts skipped: it needs root, unshare and /usr/bin/bwrap');

let fake: FakeGemini | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const c of cleanups.splice(0)) c();
});

/** A bwrap that knows its version and is refused a user namespace for anything else. */
function refusedBwrap(): string {
  const dir = makeTempDir('agent-action-fake-bwrap-');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bwrap');
  writeFileSync(
    path,
    '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.9.0"; exit 0; fi\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
  );
  chmodSync(path, 0o755);
  return path;
}

/** The built CLI in a mount namespace where `refusedBwrap()` is /usr/bin/bwrap. */
async function runRefused(args: string[], script: FakeReply[]): Promise<CliRun> {
  fake = await startFakeGemini(script);
  const repo = createRepo({ 'README.md': '# demo\n' }).dir;
  cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
  const mountThenRun = 'mount --bind "$0" /usr/bin/bwrap && exec "$@"';
  return runBuiltCli([...args, '--cwd', repo], {
    env: { GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
    launcher: ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', mountThenRun, refusedBwrap()],
  });
}

const shell = (command: string): FakeReply => reply([call('run_shell_command', { command })]);

describe.skipIf(!canSwapBwrap)('agent-action -p without a working sandbox', () => {
  it('--sandbox auto: warns once, naming the refusal and its fix, and the command runs unconfined', async () => {
    const r = await runRefused(
      ['-p', 'say hi', '-o', 'json', '--approval-mode', 'yolo', '--sandbox', 'auto'],
      [shell('echo $((6*7))-ran'), reply([text('done')])],
    );
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('Warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^Warning: commands run without the sandbox: .*uid map: Permission denied.*\. To fix: /,
    );
    // The command's output (not its text, which the model wrote) came back: it ran, outside the sandbox.
    expect(JSON.stringify(fake!.requests[1]!.body.contents)).toContain('42-ran');
  });

  it('--sandbox required: says commands are refused and how to fix it; the command does not run', async () => {
    const r = await runRefused(
      ['-p', 'say hi', '-o', 'json', '--approval-mode', 'yolo', '--sandbox', 'required'],
      [shell('echo $((6*7))-ran'), reply([text('done')])],
    );
    expect(r.stderr).toMatch(
      /Warning: shell commands are refused: the sandbox is required and unavailable: .*uid map: Permission denied.*\. To fix: .*, or pass --sandbox auto/,
    );
    const answered = JSON.stringify(fake!.requests[1]?.body.contents ?? []);
    expect(answered).toContain('sandbox is required and unavailable');
    expect(answered).not.toContain('42-ran');
  });

  it('warns though the run starts no command: the probe starts with the first answer and ends before the run does', async () => {
    const r = await runRefused(['-p', 'say hi', '-o', 'json', '--sandbox', 'auto'], [reply([text('hello')])]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ response: 'hello' });
    expect(r.stderr).toMatch(/^Warning: commands run without the sandbox: /m);
  });
});
