/**
 * The action's own policies/*.toml are data: read and parsed at run time, once per process, as any
 * policy folder is. A built-in file that is broken is an install that is broken: the error names the
 * file and the line, and no rule of the folder is used.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { builtinPoliciesDir, loadPolicyWithDiagnostics, readBuiltinRules } from '../../src/policy/load.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { makeTempDir } from '../support/git-repo.js';

const OK = '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 1\n';

async function errorOf(
  p: Promise<unknown>,
): Promise<{ kind: string; message: string; site: unknown; details: unknown }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isAgentError(e)) throw new Error(`expected an AgentError, got ${String(e)}`);
  return { kind: e.kind, message: e.message, site: e.site, details: e.details };
}

describe('the built-in policies', () => {
  it("are every rule of the shipped files, in file order, each naming its file's path and line", async () => {
    const dir = builtinPoliciesDir();
    const names = readdirSync(dir)
      .filter((f) => f.endsWith('.toml'))
      .sort();
    const expected = names.flatMap((n) => parsePolicyToml(readFileSync(join(dir, n), 'utf8'), join(dir, n)).rules);
    expect(expected.length).toBeGreaterThan(10);
    expect(await readBuiltinRules()).toEqual(expected);
  });

  it('are read once per process: a second load gets the same rules, not a second parse', async () => {
    const first = await readBuiltinRules();
    expect(await readBuiltinRules()).toBe(first);
    // And a loaded engine decides by them at the Default tier.
    const { engine } = await loadPolicyWithDiagnostics({ context: 'headless', tiers: {} });
    expect(
      await engine.decide(
        { toolName: 'write_file', args: { file_path: '.github/workflows/ci.yml', content: 'x' } },
        'yolo',
      ),
    ).toMatchObject({
      decision: 'deny',
      rule: { source: join(builtinPoliciesDir(), 'edits.toml'), tier: 'default' },
    });
  });

  it('a file that does not parse is a config error naming the file, line and column', async () => {
    const dir = makeTempDir('builtin-broken-');
    writeFileSync(join(dir, 'a.toml'), OK);
    writeFileSync(join(dir, 'b.toml'), `${OK}[[rule]]\ntoolName = "x\n`);
    const e = await errorOf(readBuiltinRules(dir));
    expect(e.kind).toBe('config');
    expect(e.message).toMatch(
      new RegExp(
        `^agent-action's own policies are broken \\(reinstall the action\\): ${join(dir, 'b.toml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:\\d+: error: TOML does not parse`,
      ),
    );
    expect(e.site).toMatchObject({ file: join(dir, 'b.toml'), line: 6 });
  });

  it('a warning is enough: the shipped files are clean, so an unknown key means a broken or altered install', async () => {
    const dir = makeTempDir('builtin-warning-');
    writeFileSync(join(dir, 'a.toml'), `${OK}[[rules]]\n`);
    const e = await errorOf(readBuiltinRules(dir));
    expect(e.message).toBe(
      `agent-action's own policies are broken (reinstall the action): ${join(dir, 'a.toml')}:5:1: warning: unknown top-level key "rules" ignored (did you mean [[rule]]?)`,
    );
  });

  it('every problem is listed, and the count of the others is in the message', async () => {
    const dir = makeTempDir('builtin-many-');
    writeFileSync(join(dir, 'a.toml'), '[[rule]]\ndecision = "allow"\npriority = 1\n');
    writeFileSync(join(dir, 'b.toml'), 'x = \n');
    const e = await errorOf(readBuiltinRules(dir));
    expect(e.message).toMatch(/a\.toml:1:1: error: rule #1: .*toolName.* \(and 1 more\)$/);
    expect(e.details).toHaveLength(2);
  });

  it('a folder without rules is broken too, and so is one that cannot be read', async () => {
    const empty = makeTempDir('builtin-empty-');
    expect((await errorOf(readBuiltinRules(empty))).message).toBe(
      `agent-action's own policies are broken (reinstall the action): ${empty}:0:0: error: holds no rules`,
    );
    const gone = join(empty, 'gone');
    expect((await errorOf(readBuiltinRules(gone))).message).toMatch(
      /^agent-action's own policies are broken \(reinstall the action\): .*gone:0:0: error: cannot read policy: ENOENT/,
    );
  });

  it('a failed read is not kept: the folder is read again next time', async () => {
    const dir = makeTempDir('builtin-retry-');
    writeFileSync(join(dir, 'a.toml'), 'x = \n');
    await errorOf(readBuiltinRules(dir));
    writeFileSync(join(dir, 'a.toml'), OK);
    expect(await readBuiltinRules(dir)).toMatchObject([
      { toolNames: ['read_file'], source: join(dir, 'a.toml'), line: 1 },
    ]);
  });
});
