// A shell command through the scheduler and the real policy engine, in a process where nothing
// has loaded the bash grammar yet: the engine's decision awaits the grammar, so the command is
// decided by its rule (and runs), instead of being denied because nobody loaded the grammar first.
// A file of its own, so that this test is the first to need the grammar.
import { expect, it } from 'vitest';
import { createPolicyEngine, placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { createDeferChannel } from '../../src/scheduler/channels.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { runShellCommandTool } from '../../src/tools/builtin/run-shell-command.js';
import { makeTempDir } from '../support/git-repo.js';
import { batchOpts, envFor } from './support.js';

const POLICY = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\npriority = 100\n';

it('decides a compound shell command by its rules and runs it, loading the grammar on the way', async () => {
  const root = makeTempDir('sched-shell-');
  const parsed = parsePolicyToml(POLICY, 'shell.toml');
  const policy = createPolicyEngine(placeRules([{ tier: 'workspace', rules: parsed.rules }]), 'action');
  const scheduler = createScheduler({
    tools: createToolRegistry([runShellCommandTool] as never),
    policy,
    channel: createDeferChannel(),
    env: { ...envFor(root), sandbox: createSandbox({ mode: 'off', hostEnv: {} }) },
  });
  const r = await scheduler.run(
    [{ id: 's', name: 'run_shell_command', args: { command: 'echo one && echo two' } }],
    batchOpts(),
    () => {},
  );
  expect(r.pending).toEqual([]);
  expect(r.responses[0]!.functionResponse!.response).toEqual({ output: expect.stringMatching(/one\ntwo/) });
});
