import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createPolicyEngine, placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { createDeferChannel } from '../../src/scheduler/channels.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import type { BatchResult } from '../../src/scheduler/types.js';
import { readFileTool } from '../../src/tools/builtin/read-file.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { replaceTool } from '../../src/tools/builtin/replace.js';
import { writeFileTool } from '../../src/tools/builtin/write-file.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';
import { batchOpts, envFor } from './support.js';

const POLICY = `
[[rule]]
toolName = "read_file"
decision = "allow"
priority = 100

[[rule]]
toolName = "write_file"
decision = "ask_user"
priority = 100

[[rule]]
toolName = "replace"
argsPattern = '"file_path":"secrets/'
decision = "deny"
priority = 200
denyMessage = "The secrets folder is off limits."
`;

const outputs = (r: BatchResult) => r.responses.map((p) => p.functionResponse!.response);

it('with the real policy engine: allow, deny message, unmatched deny, ask -> approve always narrows to the file', async () => {
  const root = makeTempDir('sched-policy-');
  writeFiles(root, { 'a.txt': 'alpha\n', 'secrets/key.txt': 'k\n' });
  const parsed = parsePolicyToml(POLICY, 'test.toml');
  expect(parsed.diagnostics).toEqual([]);
  const policy = createPolicyEngine(placeRules([{ tier: 'workspace', rules: parsed.rules }]), 'action');
  const scheduler = createScheduler({
    tools: createToolRegistry([readFileTool, writeFileTool, replaceTool] as never),
    policy,
    channel: createDeferChannel(),
    env: envFor(root),
  });
  const first = await scheduler.run(
    [
      { id: 'r', name: 'read_file', args: { file_path: 'a.txt' } },
      { id: 'd', name: 'replace', args: { file_path: 'secrets/key.txt', old_string: 'k', new_string: 'x' } },
      { id: 'u', name: 'replace', args: { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' } },
      { id: 'w', name: 'write_file', args: { file_path: 'notes.md', content: 'hello\n' } },
    ],
    batchOpts(),
    () => {},
  );
  expect(first.pending).toEqual([
    expect.objectContaining({
      id: 'w',
      title: 'create notes.md',
      rule: expect.objectContaining({ decision: 'ask_user', source: 'test.toml' }),
    }),
  ]);
  const done = await scheduler.resume(
    { open: first.open!, answers: [{ id: 'w', kind: 'approve', always: true }] },
    batchOpts(),
    () => {},
  );
  expect(outputs(done)).toEqual([
    { output: expect.stringContaining('alpha') },
    { error: expect.stringContaining('The secrets folder is off limits.') },
    { error: expect.stringContaining('policy denied it') }, // no rule matches: denied in the action
    { output: expect.stringContaining('notes.md') },
  ]);
  expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('hello\n');
  expect(readFileSync(join(root, 'secrets/key.txt'), 'utf8')).toBe('k\n');

  // The "always" rule (Workspace tier, 950) covers this file, not every write. It outranks the
  // workspace ask rule here; an ask rule in the User or Admin tier would still win over it.
  const again = await scheduler.run(
    [
      { id: 'w2', name: 'write_file', args: { file_path: 'notes.md', content: 'again\n' } },
      { id: 'w3', name: 'write_file', args: { file_path: 'other.md', content: 'x\n' } },
    ],
    batchOpts(),
    () => {},
  );
  expect(again.pending.map((p) => p.id)).toEqual(['w3']);
  expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('again\n');
});
