// The bash grammar (web-tree-sitter's WebAssembly) loads with the first shell command a policy
// engine decides, not with the policy: a run that never runs a command, `policy check` on another
// tool, `--version` never load it. Nothing has to load it first either: the decision awaits it.
// The grammar is loaded once per module instance, so each test imports fresh instances of the
// policy modules (vi.resetModules): it sees the grammar not loaded yet even where other test files
// ran first in the same process. Whether it is loaded shows in parseShell, which refuses without it.
import { describe, expect, it, vi } from 'vitest';

const TOML =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\ndecision = "allow"\npriority = 10\n[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 10\n';
const NOT_LOADED = 'the bash grammar is not loaded';

async function freshPolicy() {
  vi.resetModules();
  const { loadPolicy } = await import('../../src/policy/load.js');
  const { parseShell } = await import('../../src/policy/shell/parse.js');
  const engine = await loadPolicy({
    context: 'interactive',
    useBuiltinDefaults: false,
    tiers: { user: [{ inline: TOML, label: 'p.toml' }] },
  });
  const grammarLoaded = () => {
    try {
      parseShell('ls')?.tree.delete();
      return true;
    } catch (e) {
      if (e instanceof Error && e.message.includes(NOT_LOADED)) return false;
      throw e;
    }
  };
  return { engine, grammarLoaded };
}

const shell = { toolName: 'run_shell_command', args: { command: 'git status' } };

describe('the bash grammar loads lazily, where a decision needs it', () => {
  it('a policy loads and decides other tools without it; the first shell command is decided by its rule, nothing loaded beforehand', async () => {
    const { engine, grammarLoaded } = await freshPolicy();
    expect(await engine.decide({ toolName: 'read_file', args: { file_path: 'a.ts' } }, 'default')).toMatchObject({
      decision: 'allow',
      rule: { source: 'p.toml', line: 6 },
    });
    expect(grammarLoaded()).toBe(false);
    expect(await engine.decide(shell, 'default')).toMatchObject({
      decision: 'allow',
      rule: { source: 'p.toml', line: 1 },
    });
    expect(grammarLoaded()).toBe(true);
  });

  it('only a shell call with a command string loads it', async () => {
    const { engine, grammarLoaded } = await freshPolicy();
    expect((await engine.decide({ toolName: 'read_file', args: { command: 'git status' } }, 'default')).decision).toBe(
      'allow',
    );
    expect((await engine.decide({ toolName: 'run_shell_command', args: { command: 5 } }, 'default')).decision).toBe(
      'ask_user',
    );
    expect(grammarLoaded()).toBe(false);
  });

  it('calls decided together share the one load, and each is decided by its rule', async () => {
    const { engine } = await freshPolicy();
    const verdicts = await Promise.all([
      engine.decide(shell, 'default'),
      engine.decide({ toolName: 'run_shell_command', args: { command: 'git status && rm x' } }, 'default'),
    ]);
    expect(verdicts.map((v) => v.decision)).toEqual(['allow', 'ask_user']);
  });

  it('an "always" approval of a shell command in a fresh process (a resumed run) loads it and narrows to the prefix', async () => {
    const { engine, grammarLoaded } = await freshPolicy();
    expect(
      await engine.allowAlways(
        { toolName: 'run_shell_command', args: { command: 'npm test -- --watch=false' } },
        'default',
      ),
    ).toEqual({
      toolName: 'run_shell_command',
      commandPrefix: 'npm test',
      modes: ['default', 'autoEdit', 'yolo'],
    });
    expect(grammarLoaded()).toBe(true);
  });
});
