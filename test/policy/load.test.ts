/**
 * Loading policy: which tiers are read and in what order, the shipped defaults at the Default tier
 * only, optional paths, and the one error that carries every problem found (file, line, column).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { builtinPoliciesDir, loadPolicy, loadPolicyWithDiagnostics, type PolicySource } from '../../src/policy/load.js';
import type { TierName } from '../../src/policy/types.js';
import { makeTempDir } from '../support/git-repo.js';

const rule = (fields: string, decision = 'allow', priority = 100) =>
  `[[rule]]\n${fields}\ndecision = "${decision}"\npriority = ${priority}\n`;
const inline = (text: string, label: string): PolicySource => ({ inline: text, label });
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('tiers', () => {
  it.each<[TierName, number]>([
    ['default', 1.007],
    ['extension', 2.007],
    ['workspace', 3.007],
    ['user', 4.007],
    ['admin', 5.007],
  ])('a file in the %s tier is read, at final priority %d', async (tier, priority) => {
    const e = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { [tier]: [inline(rule('toolName = "x"', 'allow', 7), `${tier}.toml`)] },
    });
    expect(await e.decide({ toolName: 'x', args: {} }, 'default')).toEqual({
      decision: 'allow',
      rule: { source: `${tier}.toml`, line: 1, tier, priority, decision: 'allow' },
      reason: `allow by rule at ${tier}.toml:1 (${tier} tier, priority ${priority.toFixed(3)})`,
    });
  });

  it('each tier outranks the one below it, whatever the priorities', async () => {
    const tiers = {
      default: [inline(rule('toolName = ["a", "b", "c", "d", "e"]', 'deny', 999), 'd.toml')],
      extension: [inline(rule('toolName = ["b", "c", "d", "e"]', 'ask_user', 0), 'x.toml')],
      workspace: [inline(rule('toolName = ["c", "d", "e"]', 'allow', 0), 'w.toml')],
      user: [inline(rule('toolName = ["d", "e"]', 'deny', 0), 'u.toml')],
      admin: [inline(rule('toolName = "e"', 'allow', 0), 'a.toml')],
    };
    const e = await loadPolicy({ context: 'interactive', useBuiltinDefaults: false, tiers });
    const sources = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map(async (t) => (await e.decide({ toolName: t, args: {} }, 'default')).rule?.source),
    );
    expect(sources).toEqual(['d.toml', 'x.toml', 'w.toml', 'u.toml', 'a.toml']);
  });

  it('ties within a tier go to the file loaded first, in the order given', async () => {
    const e = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: {
        user: [
          inline(rule('toolName = "x"', 'deny', 5), 'first.toml'),
          inline(rule('toolName = "x"', 'allow', 5), 'second.toml'),
        ],
      },
    });
    expect(await e.decide({ toolName: 'x', args: {} }, 'default')).toMatchObject({
      decision: 'deny',
      rule: { source: 'first.toml' },
    });
  });
});

describe('the shipped defaults', () => {
  it('are loaded unless turned off, at the Default tier only', async () => {
    const on = await loadPolicy({ context: 'action', tiers: { user: [inline(rule('toolName = "y"'), 'u.toml')] } });
    expect(await on.decide({ toolName: 'invoke_agent', args: { agent_name: 'x' } }, 'default')).toMatchObject({
      decision: 'allow',
      rule: { source: join(builtinPoliciesDir(), 'agents.toml'), tier: 'default', priority: 1.05 },
    });
    const off = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { user: [inline(rule('toolName = "y"'), 'u.toml')] },
    });
    expect(await off.decide({ toolName: 'invoke_agent', args: { agent_name: 'x' } }, 'default')).toEqual({
      decision: 'deny',
      rule: null,
      reason: 'no rule matched; the action denies unmatched calls',
    });
  });

  it("are this checkout's policies/ folder", () => {
    expect(builtinPoliciesDir()).toBe(fileURLToPath(new URL('../../policies', import.meta.url)));
  });

  it('not finding them is a configuration error', () => {
    let err: unknown;
    try {
      builtinPoliciesDir('/x.js');
    } catch (e) {
      err = e;
    }
    expect(isAgentError(err) && [err.kind, err.message]).toEqual([
      'config',
      "cannot find agent-action's policies/ folder above /",
    ]);
  });
});

describe('sources', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('agent-action-load-');
    writeFileSync(join(dir, 'p.toml'), rule('toolName = "x"', 'ask_user', 3));
    writeFileSync(join(dir, 'not-a-folder'), 'x');
    mkdirSync(join(dir, 'empty'));
    mkdirSync(join(dir, 'many'));
    for (const n of ['d', 'b', 'f', 'a', 'e', 'c']) writeFileSync(join(dir, 'many', `${n}.toml`), `key_${n} = 1\n`);
  });

  it('a folder is read in name order, whatever order the file system lists it in', async () => {
    const { warnings } = await loadPolicyWithDiagnostics({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { user: [join(dir, 'many')] },
    });
    expect(warnings.map((w) => `${w.file.slice(dir.length)} ${w.message}`)).toEqual([
      '/many/a.toml unknown top-level key "key_a" ignored',
      '/many/b.toml unknown top-level key "key_b" ignored',
      '/many/c.toml unknown top-level key "key_c" ignored',
      '/many/d.toml unknown top-level key "key_d" ignored',
      '/many/e.toml unknown top-level key "key_e" ignored',
      '/many/f.toml unknown top-level key "key_f" ignored',
    ]);
  });

  it('an optional path that exists is read like any other; one that is missing is skipped', async () => {
    const e = await loadPolicy({
      context: 'interactive',
      useBuiltinDefaults: false,
      tiers: {
        workspace: [
          { path: join(dir, 'none.toml'), optional: true },
          { path: join(dir, 'p.toml'), optional: true },
        ],
      },
    });
    expect(await e.decide({ toolName: 'x', args: {} }, 'default')).toMatchObject({
      decision: 'ask_user',
      rule: { source: join(dir, 'p.toml'), tier: 'workspace', priority: 3.003 },
    });
  });

  it('an optional path that cannot be read for another reason than absence is still an error', async () => {
    const bad = join(dir, 'not-a-folder', 'p.toml');
    const err = await errorOf(
      loadPolicy({ context: 'action', useBuiltinDefaults: false, tiers: { user: [{ path: bad, optional: true }] } }),
    );
    expect(isAgentError(err) && err.message).toMatch(
      new RegExp(`^bad policy: ${bad}:0:0: error: cannot read policy: ENOTDIR`),
    );
  });

  it('an empty folder adds no rules and no error', async () => {
    const { engine, warnings } = await loadPolicyWithDiagnostics({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { user: [join(dir, 'empty')] },
    });
    expect(warnings).toEqual([]);
    expect((await engine.decide({ toolName: 'x', args: {} }, 'default')).decision).toBe('deny');
  });
});

describe('diagnostics', () => {
  it('warnings come back with the engine, errors not among them', async () => {
    const { engine, warnings } = await loadPolicyWithDiagnostics({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { user: [inline(`colour = 1\n${rule('toolName = "x"\nshade = 2')}`, 'w.toml')] },
    });
    expect(warnings).toEqual([
      { severity: 'warning', file: 'w.toml', line: 1, column: 1, message: 'unknown top-level key "colour" ignored' },
      { severity: 'warning', file: 'w.toml', line: 4, column: 1, message: 'rule #1: unknown key "shade" ignored' },
    ]);
    expect((await engine.decide({ toolName: 'x', args: {} }, 'default')).decision).toBe('allow');
  });

  it('one error: the message names file, line and column; no count', async () => {
    const err = await errorOf(
      loadPolicy({
        context: 'action',
        useBuiltinDefaults: false,
        tiers: { user: [inline(rule('toolName = "x"', 'maybe'), 'e.toml')] },
      }),
    );
    expect(isAgentError(err) && { kind: err.kind, message: err.message, site: err.site, details: err.details }).toEqual(
      {
        kind: 'config',
        message: 'bad policy: e.toml:3:1: error: rule #1: decision must be allow, deny or ask_user, not "maybe"',
        site: { file: 'e.toml', line: 3, column: 1 },
        details: ['e.toml:3:1: error: rule #1: decision must be allow, deny or ask_user, not "maybe"'],
      },
    );
  });

  it('every error of every file is carried; the first is the site; warnings are not among them', async () => {
    const err = await errorOf(
      loadPolicy({
        context: 'action',
        useBuiltinDefaults: false,
        tiers: {
          workspace: [inline(`${rule('toolName = "x"\nshade = 1', 'deny', 1000)}`, 'a.toml')],
          user: [inline('x = = 1', 'b.toml'), inline(rule('toolName = 5'), 'c.toml')],
        },
      }),
    );
    expect(isAgentError(err) && { message: err.message, site: err.site, details: err.details }).toEqual({
      message:
        'bad policy: a.toml:5:1: error: rule #1: priority must be an integer from 0 to 999, not 1000 (1000 and above would jump into the next tier) (and 2 more)',
      site: { file: 'a.toml', line: 5, column: 1 },
      details: [
        'a.toml:5:1: error: rule #1: priority must be an integer from 0 to 999, not 1000 (1000 and above would jump into the next tier)',
        'b.toml:1:5: error: TOML does not parse: invalid value',
        'c.toml:2:1: error: rule #1: toolName must be a non-empty string or an array of non-empty strings',
      ],
    });
  });
});

describe('the workspace', () => {
  const policy = rule('toolName = "run_shell_command"\ncommandPrefix = "echo"\nallowRedirection = true');
  it('is where a redirection may write: without it, every absolute target counts as outside', async () => {
    const q = { toolName: 'run_shell_command', args: { command: 'echo x > /ws/out.txt' } };
    const inside = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      workspace: '/ws',
      tiers: { user: [inline(policy, 'u.toml')] },
    });
    expect((await inside.decide(q, 'default')).decision).toBe('allow');
    const unknown = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { user: [inline(policy, 'u.toml')] },
    });
    expect((await unknown.decide(q, 'default')).decision).toBe('deny');
  });
});
