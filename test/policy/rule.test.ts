/**
 * The small contracts of src/policy/rule.ts that the decision path leans on: which rules count as
 * narrowing a shell call by its text (those are never overridden by the read-only raise, never let
 * through unaccounted commands in yolo mode, and stop vouching after `PATH=...;`), and the one
 * diagnostic format every policy error and warning is shown in.
 */
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, isCommandSpecific, type Rule } from '../../src/policy/rule.js';

const base: Rule = { toolNames: ['run_shell_command'], decision: 'allow', priority: 1, source: 'p.toml', line: 3 };

describe('isCommandSpecific', () => {
  it.each<[string, Partial<Rule>, boolean]>([
    ['no command field', {}, false],
    [
      'other fields only',
      { mcpName: 's', subagent: 'a', modes: ['default'], allowRedirection: true, toolAnnotations: { x: 1 } },
      false,
    ],
    ['commandPrefix alone', { commandPrefixes: ['git log'] }, true],
    ['commandRegex alone', { commandRegex: /"command":"ls/ }, true],
    ['argsPattern alone', { argsPattern: /"x"/ }, true],
  ])('%s: %s', (_n, fields, want) => {
    expect(isCommandSpecific({ ...base, ...fields })).toBe(want);
  });
});

describe('formatDiagnostic', () => {
  it('file:line:column: severity: message', () => {
    expect(
      formatDiagnostic({
        severity: 'warning',
        file: 'a/p.toml',
        line: 7,
        column: 3,
        message: 'unknown key "x" ignored',
      }),
    ).toBe('a/p.toml:7:3: warning: unknown key "x" ignored');
    expect(formatDiagnostic({ severity: 'error', file: 'q.toml', line: 0, column: 0, message: 'm' })).toBe(
      'q.toml:0:0: error: m',
    );
  });
});
