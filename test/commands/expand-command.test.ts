/**
 * expandCommand with the real policy engine (TOML rules) and the real sandbox (bubblewrap, as the
 * action runs commands), in a temporary workspace.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CustomCommand } from '../../src/commands/command-file.js';
import { expandCommand, type ExpandDeps } from '../../src/commands/expand-command.js';
import { parseInvocation } from '../../src/commands/template.js';
import { loadPolicyWithDiagnostics } from '../../src/policy/load.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { makeTempDir } from '../support/git-repo.js';

const ALLOW_ECHO =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["echo", "exit"]\ndecision = "allow"\npriority = 100\n';
const ASK_LS =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls"\ndecision = "ask_user"\npriority = 100\n';

async function depsFor(root: string, o: { shell?: boolean } = {}): Promise<ExpandDeps> {
  const { engine } = await loadPolicyWithDiagnostics({
    context: 'action',
    useBuiltinDefaults: false,
    workspace: root,
    tiers: { workspace: [{ inline: `${ALLOW_ECHO}\n${ASK_LS}`, label: 'test policy' }] },
  });
  return {
    env: {
      root,
      secrets: ['sekrit-value-123'],
      baseEnv: process.env,
      shellTimeoutMs: 30_000,
      sandbox: createSandbox({ mode: 'required', hostEnv: process.env }),
    },
    policy: engine,
    mode: 'default',
    shellAvailable: o.shell ?? true,
    signal: new AbortController().signal,
  };
}

const command = (prompt: string, name = 'cmd'): CustomCommand => ({
  name,
  description: '',
  prompt,
  source: 'project',
  label: `.gemini/commands/${name}.toml`,
});

function workspace(): string {
  const root = realpathSync(makeTempDir('agent-action-expand-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'a.md'), 'alpha\n');
  writeFileSync(join(root, 'docs', 'b.md'), 'beta {{args}} !{echo injected}\n');
  return root;
}

describe('expandCommand', () => {
  it('{{args}} raw outside, escaped inside !{}; the output and a failing status line injected; the secret redacted', async () => {
    const root = workspace();
    const out = await expandCommand(
      command('A={{args}} B=!{echo {{args}}} C=!{echo sekrit-value-123; exit 3}'),
      parseInvocation('/cmd x $(id)')!,
      await depsFor(root),
    );
    expect(out.text).toBe("A=x $(id) B=x $(id)\n C=***\n\n[Shell command 'echo ***; exit 3' exited with code 3]");
    expect(out.ran).toEqual([
      { command: "echo 'x $(id)'", exitCode: 0 },
      { command: 'echo sekrit-value-123; exit 3', exitCode: 3 },
    ]);
  });

  it('@{file} and @{folder}: the contents as they are, never scanned for {{args}} or !{}', async () => {
    const root = workspace();
    const out = await expandCommand(
      command('F: @{docs/a.md}\nD: @{docs}'),
      parseInvocation('/cmd zz')!,
      await depsFor(root),
    );
    expect(out.text).toBe(
      'F: alpha\n\nD: --- Start of content for directory: docs ---\n--- a.md ---\nalpha\n\n--- b.md ---\nbeta {{args}} !{echo injected}\n\n--- End of content for directory: docs ---\n\n/cmd zz',
    );
    expect(out.ran).toEqual([]);
  });

  it('@{} that leads out of the workspace (.., absolute, symlink, .git) keeps its placeholder and warns', async () => {
    const root = workspace();
    const outside = makeTempDir('agent-action-outside-');
    writeFileSync(join(outside, 's.txt'), 'SECRET');
    symlinkSync(join(outside, 's.txt'), join(root, 'docs', 'link.md'));
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'config'), 'token');
    const prompt = `@{../x} @{${join(outside, 's.txt')}} @{docs/link.md} @{.git/config}`;
    const out = await expandCommand(command(prompt), parseInvocation('/cmd')!, await depsFor(root));
    expect(out.text).toBe(prompt);
    expect(out.warnings).toHaveLength(4);
    for (const w of out.warnings)
      expect(w).toMatch(/^\/cmd: @\{.*\} was not injected: .*(outside the workspace|\.git)/);
  });

  it('a !{} no rule allows, or one a rule would ask about: nothing runs, the error names the command and the rule', async () => {
    const root = workspace();
    const deps = await depsFor(root);
    await expect(
      expandCommand(command('!{echo first > made.txt} !{touch pwned}'), parseInvocation('/cmd')!, deps),
    ).rejects.toThrow(
      /custom command \/cmd \(\.gemini\/commands\/cmd\.toml\) was not run: its !\{echo first > made\.txt\}/,
    );
    await expect(expandCommand(command('!{echo ok} !{ls}'), parseInvocation('/cmd')!, deps)).rejects.toThrow(
      /its !\{ls\} policy would ask a person first \(rule test policy:7, tier workspace\)/,
    );
    await expect(
      expandCommand(command('!{echo ok}'), parseInvocation('/cmd')!, await depsFor(root, { shell: false })),
    ).rejects.toThrow(/run_shell_command is not one of the tools of this run/);
  });

  it('args that try to break out of the !{} word are refused by policy or stay one word, never run', async () => {
    const root = workspace();
    const out = await expandCommand(
      command('!{echo {{args}}}'),
      parseInvocation("/cmd '; touch pwned; '")!,
      await depsFor(root),
    );
    expect(out.text).toBe("'; touch pwned; '\n");
    expect(out.ran).toEqual([{ command: `echo ''\\''; touch pwned; '\\'''`, exitCode: 0 }]);
  });
});
