/**
 * `agent-action sandbox check` and the run's `--sandbox` flags, through the built CLI bundle
 * (dist/cli/index.js) as a child process, with real bubblewrap. Build first.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, startFakeGemini, text, usage, type FakeGemini } from '../support/fake-gemini.js';
import { createRepo, git } from '../support/git-repo.js';

const CLI = join(process.cwd(), 'dist/cli/index.js');
const CANARY = 'ghs_sandboxCheckCanary00000000000000001';

function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  asUser?: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const { GEMINI_API_KEY: _k, GOOGLE_API_KEY: _g, GOOGLE_GEMINI_BASE_URL: _b, ...rest } = process.env;
    const [file, argv] =
      asUser === undefined
        ? [process.execPath, [CLI, ...args]]
        : ['setpriv', [`--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', process.execPath, CLI, ...args]];
    const child = spawn(file, argv, {
      env: { ...rest, HOME: asUser === undefined ? rest.HOME : '/nonexistent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: '/tmp',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});

const EXPECTED_ITEMS = [
  'bubblewrap',
  'user namespace',
  'mnt namespace',
  'pid namespace',
  'ipc namespace',
  'uts namespace',
  'net namespace',
  'capabilities',
  'remount read-only binds',
  'workspace',
  '.git read-only',
  '.git/config credentials',
  '.gemini and .github read-only',
  'runner file commands',
  'home',
  'fresh /proc',
  'secrets',
  'kill on exit',
  'network off',
  'bounds',
];

describe('agent-action sandbox check', () => {
  it('--json: every point verified on this machine; a secret of the caller never shows', async () => {
    const r = await runCli(['sandbox', 'check', '--json'], { GITHUB_TOKEN: CANARY });
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    const report = JSON.parse(r.stdout) as {
      usable: boolean;
      network: boolean;
      items: Array<{ name: string; ok: boolean; detail: string }>;
    };
    expect(report.items.map((i) => i.name)).toEqual(EXPECTED_ITEMS);
    expect(report.items.filter((i) => !i.ok)).toEqual([]);
    expect(report).toMatchObject({ usable: true, network: false });
    expect(report.items.find((i) => i.name === 'secrets')?.detail).toBe(
      'none of 2 secret values visible (env, /proc/*/environ)',
    );
    expect(r.stdout).not.toContain(CANARY);
  });

  it('text: one line per point and the verdict', async () => {
    const r = await runCli(['sandbox', 'check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^agent-action sandbox check \(network off\)\n {2}ok {4}bubblewrap +\/usr\/bin\/bwrap \d+\.\d+/,
    );
    expect(r.stdout).toMatch(/ok {4}network off +connecting to a loopback server of the host failed\n/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('usable: commands run in the sandbox');
  });

  it('--sandbox-network: the network namespace is shared, and said so', async () => {
    const r = await runCli(['sandbox', 'check', '--sandbox-network', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { network: boolean; items: Array<{ name: string; detail: string }> };
    expect(report.network).toBe(true);
    expect(report.items.find((i) => i.name === 'network namespace')?.detail).toBe(
      'shared with the host: the network is allowed',
    );
    expect(report.items.some((i) => i.name === 'network off')).toBe(false);
  });

  it('without bubblewrap: exit 1, what is missing and how to install it', async () => {
    const r = await runCli(['sandbox', 'check', '--bwrap', '/nonexistent/bwrap']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'FAIL  bubblewrap  bubblewrap is not installed (/nonexistent/bwrap not found). To fix: install bubblewrap before this step (`sudo apt-get install -y bubblewrap` on Debian and Ubuntu)',
    );
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      'not usable: with --sandbox required commands are refused; with auto they run unconfined',
    );
  });

  it('a bad flag: exit 42 with the usage', async () => {
    const r = await runCli(['sandbox', 'check', '--bogus']);
    expect(r.code).toBe(42);
    expect(r.stderr).toContain("Unknown option '--bogus'");
    expect(r.stderr).toContain('usage: agent-action sandbox check');
  });

  // Root is a special case for bwrap (it keeps capabilities unless told otherwise); the runner's
  // user is not root. nobody (65534) exists on Debian and Ubuntu.
  it.runIf(process.getuid?.() === 0 && existsSync('/usr/bin/setpriv'))(
    'works the same for an unprivileged user',
    async () => {
      const r = await runCli(['sandbox', 'check', '--json'], { GITHUB_TOKEN: CANARY }, 65534);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as { items: Array<{ name: string; ok: boolean }> };
      expect(report.items.map((i) => i.name)).toEqual(EXPECTED_ITEMS);
      expect(report.items.filter((i) => !i.ok)).toEqual([]);
    },
  );
});

describe('agent-action -p --sandbox', () => {
  let fake: FakeGemini | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('required: a model-run write to .git/config fails inside the sandbox; the repository is unchanged', async () => {
    dir = createRepo({ 'README.md': '# r\n' }).dir;
    git(dir, 'config', 'http.https://github.com/.extraheader', 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Y2xp');
    const config = readFileSync(join(dir, '.git/config'), 'utf8');
    fake = await startFakeGemini([
      reply(
        [
          call('run_shell_command', {
            command:
              "echo '[core]' >> .git/config; echo '  fsmonitor = \"touch /tmp/pwned-cli\"' >> .git/config; cat .git/config",
          }),
        ],
        { usage: usage(50, 5) },
      ),
      reply([text('done')], { usage: usage(60, 2) }),
    ]);
    const r = await runCli(['-p', 'harden the repo', '-y', '--sandbox', 'required', '--cwd', dir, '-o', 'json'], {
      GEMINI_API_KEY: 'test-key',
      GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, '.git/config'), 'utf8')).toBe(config);
    const toolResult = JSON.stringify(fake.requests[1].body.contents.at(-1));
    expect(toolResult).toContain('Read-only file system');
    expect(toolResult).not.toContain('eC1hY2Nlc3MtdG9rZW46Y2xp'); // the credential header is not in the copy inside
    expect(existsSync('/tmp/pwned-cli')).toBe(false);
  });
});
