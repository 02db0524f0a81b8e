/**
 * The rule index remembers the last subject shape by the identity of its names array (a decision's
 * subjects share it). firstMatch is still a pure lookup: the same names array asked with another
 * mode, context, MCP server or short name must get that shape's rules, not the remembered ones.
 */
import { describe, expect, it } from 'vitest';
import { placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import type { Subject } from '../../src/policy/match.js';
import { createRuleIndex } from '../../src/policy/rule-index.js';

const index = (toml: string) =>
  createRuleIndex(placeRules([{ tier: 'user', rules: parsePolicyToml(toml, 'p.toml').rules }]));
const rule = (fields: string, priority: number) => `[[rule]]\n${fields}\ndecision = "allow"\npriority = ${priority}\n`;

describe('one names array, asked again with something else changed', () => {
  it('another mode', () => {
    const idx = index(rule('toolName = "x"\nmodes = ["plan"]', 2) + rule('toolName = "x"', 1));
    const names = ['x'];
    expect(idx.firstMatch({ names, args: {} }, { mode: 'default', context: 'action' })?.line).toBe(6);
    expect(idx.firstMatch({ names, args: {} }, { mode: 'plan', context: 'action' })?.line).toBe(1);
  });

  it('another context', () => {
    const idx = index(rule('toolName = "x"\ninteractive = false', 2) + rule('toolName = "x"', 1));
    const names = ['x'];
    expect(idx.firstMatch({ names, args: {} }, { mode: 'default', context: 'action' })?.line).toBe(6);
    expect(idx.firstMatch({ names, args: {} }, { mode: 'default', context: 'headless' })?.line).toBe(1);
  });

  it('another MCP server', () => {
    const idx = index(rule('toolName = "*"\nmcpName = "gh"', 2) + rule('toolName = "*"', 1));
    const names = ['t'];
    expect(idx.firstMatch({ names, args: {}, mcpServer: 'jira' }, { mode: 'default', context: 'action' })?.line).toBe(
      6,
    );
    expect(idx.firstMatch({ names, args: {}, mcpServer: 'gh' }, { mode: 'default', context: 'action' })?.line).toBe(1);
  });

  it('another short name on the server', () => {
    const idx = index(rule('toolName = "search"\nmcpName = "gh"', 2) + rule('toolName = "*"', 1));
    const names = ['mcp_gh_search'];
    const s: Subject = { names, args: {}, mcpServer: 'gh' };
    expect(idx.firstMatch(s, { mode: 'default', context: 'action' })?.line).toBe(6);
    expect(idx.firstMatch({ ...s, mcpShortName: 'search' }, { mode: 'default', context: 'action' })?.line).toBe(1);
  });

  it('the same shape again: the same answer', () => {
    const idx = index(rule('toolName = "x"\nmodes = ["plan"]', 2) + rule('toolName = "x"', 1));
    const names = ['x'];
    expect([1, 2].map(() => idx.firstMatch({ names, args: {} }, { mode: 'plan', context: 'action' })?.line)).toEqual([
      1, 1,
    ]);
  });
});
