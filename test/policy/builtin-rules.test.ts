import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateBuiltinRules, OUTPUT, readBuiltinRules } from '../../scripts/gen-builtin-policies.mjs';
import { BUILTIN_RULES } from '../../src/policy/builtin-rules.generated.js';
import { builtinPoliciesDir, loadPolicyWithDiagnostics } from '../../src/policy/load.js';
import type { ApprovalMode, PolicyContext, PolicyQuery } from '../../src/policy/types.js';
import { readCommittedSource, sourceText } from '../support/committed-source.js';

describe('the built-in policies, generated from policies/*.toml', () => {
  it('are the files as the loader parses them today (if not: npm run gen:builtin-policies)', async () => {
    const fresh = await readBuiltinRules();
    expect(BUILTIN_RULES).toEqual(fresh);
    expect(sourceText(await generateBuiltinRules(fresh))).toBe(readCommittedSource(OUTPUT));
  });

  it('decide every call as the same files read from TOML do, naming the same file and line', async () => {
    const queries: PolicyQuery[] = [
      { toolName: 'read_file', args: { file_path: 'a.ts' } },
      { toolName: 'write_file', args: { file_path: 'src/a.ts', content: 'x' } },
      { toolName: 'write_file', args: { file_path: '.github/workflows/ci.yml', content: 'x' } },
      { toolName: 'replace', args: { file_path: '.gemini/policies/p.toml', old_string: 'a', new_string: 'b' } },
      { toolName: 'run_shell_command', args: { command: 'cat .github/workflows/ci.yml' } },
      { toolName: 'invoke_agent', args: { agent: 'codebase_investigator' } },
      { toolName: 'codebase_investigator', args: {} },
      { toolName: 'complete_task', args: {} },
      { toolName: 'mcp_srv_tool', args: {}, mcpServer: 'srv' },
    ];
    const modes: ApprovalMode[] = ['default', 'autoEdit', 'yolo', 'plan'];
    for (const context of ['action', 'headless', 'interactive'] as PolicyContext[]) {
      const generated = (await loadPolicyWithDiagnostics({ context, tiers: {} })).engine;
      const fromToml = (await loadPolicyWithDiagnostics({ context, useBuiltinDefaults: false, tiers: { default: [builtinPoliciesDir()] } })).engine;
      for (const q of queries) {
        await generated.prepare(q);
        await fromToml.prepare(q);
        for (const mode of modes) expect(generated.decide(q, mode), `${context} ${mode} ${q.toolName}`).toEqual(fromToml.decide(q, mode));
      }
    }
    // A rule names its file by path, as one read from the file does.
    const ask = (await loadPolicyWithDiagnostics({ context: 'headless', tiers: {} })).engine.decide(queries[2]!, 'yolo');
    expect(ask.rule).toMatchObject({ source: join(builtinPoliciesDir(), 'edits.toml'), line: 25 });
  });

  it('refuses a policy file with any diagnostic, naming it and the line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-action-builtin-'));
    try {
      writeFileSync(join(dir, 'ok.toml'), '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 1\n');
      writeFileSync(join(dir, 'typo.toml'), '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 1\n[[rules]]\n');
      await expect(readBuiltinRules(dir)).rejects.toThrow(/^gen-builtin-policies: policies\/typo\.toml: line 5: unknown top-level key "rules"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
