/**
 * `sandbox: required | auto | off` when bubblewrap does not work, as on Ubuntu 24.04 runners whose
 * AppArmor refuses user namespaces. The refusal is injected as the probe's result (a narrow
 * interface of our own), the remedy's sudo as a command runner; everything else is real: the shell
 * tool, the process that runs unconfined under `auto`, and, for the Action, runCommand against the
 * loopback GitHub with the real Octokit.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareActionSandbox } from '../../src/action/action-sandbox.js';
import { createOwnAccount } from '../../src/action/authorize.js';
import { createGitHubClient } from '../../src/action/github-client.js';
import { describeSandboxRun } from '../../src/action/sandbox-text.js';
import { readInputs } from '../../src/action/inputs.js';
import { runCommand } from '../../src/action/run-task.js';
import type { Log } from '../../src/action/run-context.js';
import { isAgentError } from '../../src/common/errors.js';
import type { ModelClient, ModelRequest } from '../../src/model/client.js';
import type { Part } from '../../src/model/wire.js';
import { readBwrapVersion } from '../../src/sandbox/probe.js';
import { createAppArmorRemedy, type RunCommand } from '../../src/sandbox/remedy.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import type { ProbeResult } from '../../src/sandbox/types.js';
import { readActionInputs } from '../support/action-yml.js';
import { createTestFace } from '../support/action-face.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { createRepo } from '../support/git-repo.js';
import { call, makeEnv } from '../tools/helpers.js';

const APPARMOR: ProbeResult = {
  ok: false,
  kind: 'userns_denied',
  bwrap: '/usr/bin/bwrap',
  message: 'bwrap: setting up uid map: Permission denied',
};

/** A probe that answers from a list, one per call, and counts its calls. */
function scriptedProbe(...answers: ProbeResult[]) {
  const probe = async () => {
    probe.calls++;
    return answers[Math.min(probe.calls - 1, answers.length - 1)];
  };
  probe.calls = 0;
  return probe;
}

async function realOk(): Promise<ProbeResult> {
  const v = await readBwrapVersion('/usr/bin/bwrap');
  if (!v.ok) throw new Error(v.message);
  return { ok: true, bwrap: '/usr/bin/bwrap', version: v.version };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const repo = () => {
  const { dir } = createRepo({ 'README.md': '# r\n' });
  dirs.push(dir);
  return dir;
};

describe('createSandbox when bubblewrap is refused', () => {
  it('required: refuses every command, saying why and how to fix it, and probes once', async () => {
    const probe = scriptedProbe(APPARMOR);
    const sandbox = createSandbox({ mode: 'required', hostEnv: {}, probe });
    expect(await sandbox.status()).toEqual({
      kind: 'refused',
      reason: 'bubblewrap may not create user namespaces here: bwrap: setting up uid map: Permission denied',
      fix: 'on Ubuntu 23.10 and later (the ubuntu-24.04 runners), AppArmor restricts unprivileged user namespaces: run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` in a step before this one, or install an AppArmor profile that allows /usr/bin/bwrap to use them',
    });
    const dir = repo();
    const err = await sandbox.spawn({ argv: ['touch', 'ran'], workspace: dir, cwd: dir, env: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAgentError(err) && err.kind).toBe('config');
    expect(existsSync(join(dir, 'ran'))).toBe(false);

    const out = await call(makeEnv(dir, { sandbox }), 'run_shell_command', { command: 'touch ran2' });
    expect(out.error?.code).toBe('denied');
    expect(out.forModel).toContain(
      'run_shell_command is unavailable: the sandbox is required and unavailable: bubblewrap may not create user namespaces here',
    );
    expect(out.forModel).toContain('use read_file, glob, grep_search and the edit tools instead');
    expect(existsSync(join(dir, 'ran2'))).toBe(false);
    expect(probe.calls).toBe(1);
  });

  it('auto: runs commands unconfined, with a warning that says why', async () => {
    const sandbox = createSandbox({ mode: 'auto', hostEnv: {}, probe: scriptedProbe(APPARMOR) });
    const s = await sandbox.status();
    expect(s.kind).toBe('unconfined');
    expect(s.kind === 'unconfined' && s.warning).toMatch(
      /^commands run without the sandbox: bubblewrap may not create user namespaces here: .*To fix: .*apparmor_restrict_unprivileged_userns=0/,
    );
    // The job summary's line carries the warning, reason and fix included.
    expect(describeSandboxRun({ mode: 'auto', status: s })).toMatch(
      /^⚠️ Commands ran unconfined \(sandbox: auto, no sandbox here\): commands run without the sandbox: bubblewrap may not create user namespaces here: .*To fix: .*apparmor_restrict_unprivileged_userns=0.*\.$/,
    );
    const dir = repo();
    const out = await call(makeEnv(dir, { sandbox }), 'run_shell_command', {
      command: 'echo "home=$HOME" > ran.txt; cat ran.txt',
    });
    expect(out.forModel).toContain('Exit Code: 0');
    expect(existsSync(join(dir, 'ran.txt'))).toBe(true);
  });

  it('off: never probes', async () => {
    const probe = scriptedProbe(APPARMOR);
    const sandbox = createSandbox({ mode: 'off', hostEnv: {}, probe });
    const s = await sandbox.status();
    expect(s.kind).toBe('unconfined');
    expect(probe.calls).toBe(0);
    expect(describeSandboxRun({ mode: sandbox.mode, status: s })).toBe('⚠️ Commands ran unconfined (sandbox: off).');
  });

  it('a remedy that works: probes again and sandboxes, saying what it did', async () => {
    const probe = scriptedProbe(APPARMOR, await realOk());
    const ran: string[][] = [];
    const remedy = createAppArmorRemedy({
      readSysctl: async () => '1',
      isRoot: false,
      run: async (f, a) => (ran.push([f, ...a]), { code: 0, output: '' }),
    });
    const sandbox = createSandbox({ mode: 'required', hostEnv: {}, probe, remedy });
    const s = await sandbox.status();
    expect(s).toMatchObject({
      kind: 'sandboxed',
      remedy: expect.stringContaining('ran `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`'),
    });
    expect(ran).toEqual([['sudo', '-n', 'sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0']]);
    expect(probe.calls).toBe(2);
    // And commands really are sandboxed now.
    const dir = repo();
    const out = await call(makeEnv(dir, { sandbox }), 'run_shell_command', { command: "echo '[x]' >> .git/config" });
    expect(out.forModel).toContain('Read-only file system');
  });

  it('a remedy that cannot run (no passwordless sudo): refused, and the reason says what was tried', async () => {
    const probe = scriptedProbe(APPARMOR);
    const remedy = createAppArmorRemedy({
      readSysctl: async () => '1',
      isRoot: false,
      run: async () => ({ code: 1, output: 'sudo: a password is required\n' }),
    });
    const s = await createSandbox({ mode: 'required', hostEnv: {}, probe, remedy }).status();
    expect(s.kind === 'refused' && s.reason).toBe(
      'bubblewrap may not create user namespaces here: bwrap: setting up uid map: Permission denied (tried: could not run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (no passwordless sudo?): sudo: a password is required)',
    );
    expect(probe.calls).toBe(1);
  });
});

describe('createAppArmorRemedy', () => {
  const recorder = () => {
    const ran: string[][] = [];
    const run: RunCommand = async (f, a) => (ran.push([f, ...a]), { code: 0, output: '' });
    return { ran, run };
  };

  it('as root: sysctl without sudo', async () => {
    const { ran, run } = recorder();
    const r = await createAppArmorRemedy({ readSysctl: async () => '1', isRoot: true, run }).apply(APPARMOR);
    expect(r.applied).toBe(true);
    expect(ran).toEqual([['sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0']]);
  });

  it.each([
    [
      '0',
      APPARMOR,
      "user namespaces are refused, but not by AppArmor's kernel.apparmor_restrict_unprivileged_userns (it is 0)",
    ],
    [
      undefined,
      APPARMOR,
      "user namespaces are refused, but not by AppArmor's kernel.apparmor_restrict_unprivileged_userns (it is absent)",
    ],
    [
      '1',
      { ok: false, kind: 'missing', bwrap: '/usr/bin/bwrap', message: 'bubblewrap is not installed' } as ProbeResult,
      'no remedy for: bubblewrap is not installed',
    ],
  ])('sysctl %s: does nothing', async (value, failure, message) => {
    const { ran, run } = recorder();
    const r = await createAppArmorRemedy({ readSysctl: async () => value, isRoot: false, run }).apply(
      failure as Extract<ProbeResult, { ok: false }>,
    );
    expect(r.applied).toBe(false);
    expect(r.message.startsWith(message)).toBe(true);
    expect(ran).toEqual([]);
  });
});

describe('the Action with sandbox: required on a runner that refuses it', () => {
  let gh: FakeGitHub | undefined;
  afterEach(async () => gh?.close());

  /** A model that runs one command and then answers with what the tool said. */
  function scriptedModel(requests: ModelRequest[]): ModelClient {
    return {
      async *stream(req) {
        requests.push({ ...req, contents: structuredClone(req.contents) }); // the history grows after
        const last = req.contents.at(-1)?.parts ?? [];
        const response = last.find((p: Part) => p.functionResponse)?.functionResponse;
        if (!response) {
          yield {
            parts: [{ functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'npm test' } } }],
            usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, thoughtTokens: 0, totalTokens: 15 },
          };
          return;
        }
        yield {
          parts: [{ text: 'I could not run the tests: no shell here.' }],
          finishReason: 'STOP',
          usage: { inputTokens: 20, outputTokens: 8, cachedTokens: 0, thoughtTokens: 0, totalTokens: 28 },
        };
      },
    };
  }

  /** Issue `n` with a maintainer's `/agent` question on it, and the Action's inputs at their defaults (yolo). */
  async function askOnIssue(n: number) {
    const github = await startFakeGitHub();
    gh = github; // closed after the test
    github.addIssue({ number: n, title: 'tests fail', body: 'npm test fails', user: { login: 'reporter' } });
    const trigger = github.addComment(n, '/agent why do the tests fail?', { login: 'maintainer' });
    const dir = repo();
    const defaults = Object.fromEntries(readActionInputs().map((i) => [`INPUT_${i.name.toUpperCase()}`, i.default]));
    const env = {
      ...defaults,
      GITHUB_REPOSITORY: 'octo/hello',
      GITHUB_WORKSPACE: dir,
      GITHUB_EVENT_NAME: 'issue_comment',
      GITHUB_API_URL: github.url,
      AGENT_ACTION_GITHUB_PACING: 'none',
      'INPUT_GEMINI-API-KEY': `AIza-modes-key-000${n}`,
      'INPUT_GITHUB-TOKEN': `ghs_modes_token_000${n}`,
      'INPUT_APPROVAL-MODE': 'yolo',
    };
    const read = readInputs(createTestFace(env).getInput, env, () => undefined);
    if (!read.ok) throw new Error(JSON.stringify(read.errors));
    return { github, trigger, dir, settings: read.settings, runner: read.runner };
  }

  /** runCommand's command and thread arguments for that question. */
  function questionOn(n: number, trigger: { id: number; body: string }) {
    return [
      {
        kind: 'question',
        text: 'why do the tests fail?',
        trigger: {
          requester: { login: 'maintainer', isBot: false },
          thread: { number: n, isPullRequest: false },
          comment: { id: trigger.id, kind: 'issue', body: trigger.body },
          needsWrite: false,
        },
      },
      { number: n, isPullRequest: false },
    ] as const;
  }

  it('tries the remedy, refuses the command, tells the model, and the log and progress comment say why and how to fix it', async () => {
    const { github, trigger, dir, settings, runner } = await askOnIssue(1);
    expect(settings.sandbox).toBe('required'); // the Action's default
    const lines: Array<[string, string]> = [];
    const log: Log = {
      info: (l) => lines.push(['info', l]),
      notice: (l) => lines.push(['notice', l]),
      warning: (l) => lines.push(['warning', l]),
      group: (_t, fn) => fn(),
    };
    const remedy = createAppArmorRemedy({
      readSysctl: async () => '1',
      isRoot: false,
      run: async () => ({ code: 1, output: 'sudo: a password is required' }),
    });
    const sandbox = await prepareActionSandbox({ settings, log, hostEnv: {}, probe: scriptedProbe(APPARMOR), remedy });
    const requests: ModelRequest[] = [];
    const summaries: string[] = [];
    const octokit = createGitHubClient({
      token: settings.githubToken,
      baseUrl: github.url,
      secrets: [],
      log: () => undefined,
      pacing: 'none',
      retryAfterBaseMs: 1,
    });

    const result = await runCommand(
      {
        octokit,
        repo: { owner: 'octo', repo: 'hello' },
        settings,
        runner,
        log,
        secrets: [settings.geminiApiKey, settings.githubToken],
        modelClient: scriptedModel(requests),
        sandbox,
        remote: { url: dir, token: settings.githubToken },
        own: createOwnAccount(octokit),
        writeSummary: async (md) => void summaries.push(md),
      },
      ...questionOn(1, trigger),
    );

    expect(result.status).toBe('success');
    const toolResult = JSON.stringify(requests[1].contents.at(-1));
    expect(toolResult).toContain('run_shell_command is unavailable: the sandbox is required and unavailable');
    const warning = lines.find(
      ([level, l]) => level === 'warning' && l.startsWith('sandbox: shell commands are refused'),
    );
    expect(warning?.[1]).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(warning?.[1]).toContain('tried: could not run');
    const progress = github.state.comments.find((c) => c.body.includes('<!-- agent-action:progress'));
    expect(progress?.body).toContain('⚠️ Sandbox: shell commands are refused: the `sandbox` input is `required`');
    expect(progress?.body).toContain('set the `sandbox` input to `auto`');
    // The job summary says how commands ran, with the reason and the fix, on one line of its own.
    expect(summaries).toHaveLength(1);
    const line = summaries[0].split('\n').find((l) => l.includes('Commands'));
    expect(line).toMatch(
      /^⚠️ Commands were refused: the sandbox is required and unavailable: bubblewrap may not create user namespaces here: bwrap: setting up uid map: Permission denied \(tried: could not run .*\)\. To fix: on Ubuntu 23\.10 and later .*sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0.*\.$/,
    );
  });

  it('probes while the run reads its thread and prepares the agent; a probe that fails fails the run before any request or tool', async () => {
    const { github, trigger, dir, settings, runner } = await askOnIssue(2);
    // The probe answers when the test says; the run's log says when it has read its trusted configuration.
    let failProbe: (e: Error) => void = () => undefined;
    let probed = 0;
    const probe = () => (probed++, new Promise<ProbeResult>((_resolve, reject) => (failProbe = reject)));
    let configRead: () => void = () => undefined;
    const readConfig = new Promise<void>((resolve) => (configRead = resolve));
    const lines: string[] = [];
    const log: Log = {
      info: (l) => {
        lines.push(l);
        if (l.startsWith('trusted configuration:')) configRead();
      },
      notice: (l) => lines.push(l),
      warning: (l) => lines.push(l),
      group: (_t, fn) => fn(),
    };
    const requests: ModelRequest[] = [];
    const octokit = createGitHubClient({
      token: settings.githubToken,
      baseUrl: github.url,
      secrets: [],
      log: () => undefined,
      pacing: 'none',
      retryAfterBaseMs: 1,
    });

    const running = runCommand(
      {
        octokit,
        repo: { owner: 'octo', repo: 'hello' },
        settings,
        runner,
        log,
        secrets: [settings.geminiApiKey, settings.githubToken],
        modelClient: scriptedModel(requests),
        sandboxProbe: { probe },
        remote: { url: dir, token: settings.githubToken },
        own: createOwnAccount(octokit),
      },
      ...questionOn(2, trigger),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    await readConfig;
    expect(probed).toBe(1); // started, not answered: the run went on meanwhile
    failProbe(new Error('bwrap --version hung up'));
    const error = await running;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('bwrap --version hung up');
    // Nothing was asked of the model, so no tool ran.
    expect(requests).toHaveLength(0);
    const progress = github.state.comments.find((c) => c.body.includes('<!-- agent-action:progress'));
    expect(progress?.body).toContain('bwrap --version hung up');
  });
});
