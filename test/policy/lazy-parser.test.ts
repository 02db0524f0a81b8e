// The bash grammar (web-tree-sitter, ~1.5 MB of WebAssembly) loads with the first shell command a
// policy engine is prepared for, not with the policy: a run that never runs a command, `policy
// check` on another tool, `--version` never pay for it. The grammar is loaded once per module
// instance, so the test imports fresh instances of the policy modules (vi.resetModules): it sees
// the grammar not loaded yet even where other test files ran first in the same process.
import { describe, expect, it, vi } from 'vitest';

const TOML = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\ndecision = "allow"\npriority = 10\n[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 10\n';

describe('the bash grammar loads lazily', () => {
  it('a policy loads and decides other tools without it; a shell command is denied until the engine is prepared for it, then decided', async () => {
    vi.resetModules();
    const { loadPolicy } = await import('../../src/policy/load.js');
    const engine = await loadPolicy({ context: 'interactive', useBuiltinDefaults: false, tiers: { user: [{ inline: TOML, label: 'p.toml' }] } });
    const read = { toolName: 'read_file', args: { file_path: 'a.ts' } };
    await engine.prepare(read);
    expect(engine.decide(read, 'default').decision).toBe('allow');

    const shell = { toolName: 'run_shell_command', args: { command: 'git status' } };
    // Fails closed, and says why, when a caller skips prepare.
    const unprepared = engine.decide(shell, 'default');
    expect(unprepared.decision).toBe('deny');
    expect(unprepared.reason).toContain('the bash grammar is not loaded');
    await engine.prepare(shell);
    expect(engine.decide(shell, 'default')).toMatchObject({ decision: 'allow', rule: { source: 'p.toml', line: 1 } });
  });

  it('only a shell call with a command string loads it', async () => {
    vi.resetModules();
    const { loadPolicy } = await import('../../src/policy/load.js');
    const engine = await loadPolicy({ context: 'interactive', useBuiltinDefaults: false, tiers: { user: [{ inline: TOML, label: 'p.toml' }] } });
    const shell = { toolName: 'run_shell_command', args: { command: 'git status' } };
    await engine.prepare({ toolName: 'read_file', args: { command: 'git status' } });
    await engine.prepare({ toolName: 'run_shell_command', args: { command: 5 } });
    expect(engine.decide(shell, 'default').reason).toContain('the bash grammar is not loaded');
    await engine.prepare(shell);
    expect(engine.decide(shell, 'default').decision).toBe('allow');
  });
});
