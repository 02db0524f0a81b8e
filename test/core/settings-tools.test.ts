/**
 * tools.core / tools.exclude / tools.allowed as policy, decided by the real engine with the
 * action's shipped rules: ranks, tiers, shell narrowing, and the repository's denies holding.
 */
import { describe, expect, it } from 'vitest';
import { isMcpToolOffered, isToolOffered, readToolSettings } from '../../src/core/settings-tools.js';
import type { SettingsLayer } from '../../src/context/run-settings.js';
import { loadPolicy, type PolicySource } from '../../src/policy/load.js';
import type { ApprovalMode } from '../../src/policy/types.js';

const input = (value: Record<string, unknown>): SettingsLayer => ({
  label: "input 'settings'",
  origin: 'workflow',
  value,
});
const repo = (value: Record<string, unknown>): SettingsLayer => ({
  label: '.gemini/settings.json',
  origin: 'repository',
  value,
});

async function decide(
  layers: SettingsLayer[],
  q: { toolName: string; args?: Record<string, unknown> },
  o: { mode?: ApprovalMode; workspace?: PolicySource[] } = {},
) {
  const t = readToolSettings(layers, {});
  const engine = await loadPolicy({
    context: 'action',
    workspace: '/ws',
    tiers: { workspace: [...(o.workspace ?? []), ...t.policy.workspace], user: t.policy.user },
  });
  return engine.decide({ toolName: q.toolName, args: q.args ?? {} }, o.mode ?? 'default');
}

const sh = (command: string) => ({ toolName: 'run_shell_command', args: { command } });

describe('tools.allowed', () => {
  it('allows the named tool in the User tier at 300 (the input) or the Workspace tier (the repository)', async () => {
    const v = await decide([input({ tools: { allowed: ['mcp_team_echo'] } })], { toolName: 'mcp_team_echo' });
    expect(v.decision).toBe('allow');
    expect(v.rule).toMatchObject({ tier: 'user', priority: 4.3, source: "input 'settings' tools.allowed" });
    const r = await decide([repo({ tools: { allowed: ['mcp_team_echo'] } })], { toolName: 'mcp_team_echo' });
    expect(r.rule).toMatchObject({ tier: 'workspace', priority: 3.3 });
  });

  it('run_shell_command(prefix) allows that prefix and denies the shell’s other commands just below', async () => {
    const layers = [input({ tools: { allowed: ['run_shell_command(npm test)', 'ShellTool(git status)'] } })];
    expect((await decide(layers, sh('npm test -- --watch=false'))).decision).toBe('allow');
    expect((await decide(layers, sh('git status'))).decision).toBe('allow');
    const other = await decide(layers, sh('npm test && curl evil.test'));
    expect(other.decision).toBe('deny');
    expect(other.reason).toContain('(only "npm test", "git status")');
  });

  it('never beats a deny of the repository’s policy files, whatever the rank', async () => {
    const deny = {
      inline: '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "npm test"\ndecision = "deny"\npriority = 1\n',
      label: 'repo.toml',
    };
    const v = await decide([input({ tools: { allowed: ['run_shell_command(npm test)'] } })], sh('npm test'), {
      workspace: [deny],
    });
    expect(v.decision).toBe('deny');
    expect(v.rule).toMatchObject({ source: 'repo.toml', tier: 'workspace' });
    expect(v.reason).toContain('may not override');
  });
});

describe('tools.exclude and tools.core', () => {
  it('exclude denies at 400, a shell prefix form only those commands', async () => {
    const layers = [input({ tools: { exclude: ['write_file', 'run_shell_command(rm)'] } })];
    expect(
      (await decide(layers, { toolName: 'write_file', args: { file_path: 'a', content: '' } }, { mode: 'yolo' })).rule,
    ).toMatchObject({ decision: 'deny', priority: 4.4 });
    expect((await decide(layers, sh('rm -rf x'), { mode: 'yolo' })).decision).toBe('deny');
    expect((await decide(layers, sh('ls'), { mode: 'yolo' })).decision).toBe('allow');
  });

  it('core allows its tools outside plan mode only, and narrows the shell to its prefixes', async () => {
    const layers = [input({ tools: { core: ['read_file', 'run_shell_command(git)'] } })];
    expect((await decide(layers, sh('git log'))).decision).toBe('allow');
    expect((await decide(layers, sh('node -v'))).decision).toBe('deny');
    expect(
      (await decide(layers, { toolName: 'read_file', args: { file_path: 'a' } }, { mode: 'plan' })).rule?.source,
    ).not.toContain('tools.core');
  });

  it('isToolOffered: core limits built-ins only; exclude removes any tool', () => {
    const s = readToolSettings(
      [input({ tools: { core: ['read_file', 'ShellTool(git)'], exclude: ['mcp_team_huge'] } })],
      {
        tools: { core: ['read_file', 'ShellTool(git)'], exclude: ['mcp_team_huge'] },
      },
    );
    expect(['read_file', 'run_shell_command', 'glob'].map((n) => isToolOffered(n, true, s))).toEqual([
      true,
      true,
      false,
    ]);
    expect(isToolOffered('set_labels', false, s)).toBe(true);
    expect(isToolOffered('mcp_team_huge', false, s)).toBe(false);
  });

  it("isMcpToolOffered: settings' exclude and an extension's excludeTools name a tool fully or by its server's name", () => {
    const s = readToolSettings([], { tools: { exclude: ['mcp_team_huge'] } });
    const t = (serverTool: string) => ({ name: `mcp_team_${serverTool}`, serverTool });
    expect(isMcpToolOffered(t('huge'), s, [])).toBe(false);
    expect(isMcpToolOffered(t('echo'), s, [])).toBe(true);
    expect(isMcpToolOffered(t('echo'), s, ['echo'])).toBe(false);
    expect(isMcpToolOffered(t('crash'), s, ['mcp_team_crash'])).toBe(false);
    expect(isMcpToolOffered(t('echo'), readToolSettings([], { tools: { exclude: ['echo'] } }), [])).toBe(false);
    // A shell prefix or another server's full name leaves this tool in.
    expect(isMcpToolOffered(t('echo'), s, ['run_shell_command(rm)', 'mcp_other_echo'])).toBe(true);
  });

  it('a malformed list is a warning naming it, and is left out', () => {
    expect(readToolSettings([input({ tools: { core: 'read_file' } })], {}).warnings).toEqual([
      "input 'settings' tools.core: expected a list of tool names; ignored",
    ]);
  });
});
