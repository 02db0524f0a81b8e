/**
 * The built-in tools' generated argument checks (src/tools/arg-checks.generated.ts, written by
 * `npm run gen:arg-checks`): the committed file is what the generator makes of today's declarations,
 * each check agrees with TypeBox's validator on every value, the generator refuses what it cannot
 * make self-contained, and a call the check refuses gets the validator's words, unchanged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Code } from 'typebox/compile';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { generateArgChecks, OUTPUT, parseCheckModule, readBuiltinDeclarations } from '../../scripts/gen-arg-checks.mjs';
import { builtinArgChecks } from '../../src/tools/arg-checks.generated.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { ToolFailure, type Tool } from '../../src/tools/define-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { checkArgs } from '../../src/tools/tool-schema.js';
import { makeTempDir } from '../support/git-repo.js';
import { makeEnv } from './helpers.js';
import { readCommittedSource, sourceText } from '../support/committed-source.js';

describe('the generated argument checks', () => {
  it('are what the generator makes of the declarations today (else: npm run gen:arg-checks, and commit the file)', async () => {
    const fresh = await generateArgChecks(await readBuiltinDeclarations());
    expect(sourceText(fresh), 'src/tools/arg-checks.generated.ts is stale: run `npm run gen:arg-checks` and commit it').toBe(readCommittedSource(OUTPUT));
  });

  it('cover every built-in tool, and each tool carries its own', () => {
    const tools = createDefaultTools();
    expect([...builtinArgChecks.keys()].sort()).toEqual(['glob', 'grep_search', 'list_directory', 'read_file', 'replace', 'run_shell_command', 'write_file']);
    for (const t of tools) expect(t.precompiledCheck, t.name).toBe(builtinArgChecks.get(t.name));
  });

  describe.each(createDefaultTools().map((t) => [t.name, t] as const))('%s: the generated check and Value.Check agree', (_name, tool) => {
    it('on valid arguments and on every kind of broken ones', () => {
      const check = tool.precompiledCheck!;
      const verdicts = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(fc.oneof(validOf(tool.params as Schema), mutantOf(tool.params as Schema), junk), (value) => {
          const expected = Value.Check(tool.params, value);
          verdicts[expected ? 'valid' : 'invalid']++;
          expect(check(value)).toBe(expected);
        }),
        { numRuns: 3000 },
      );
      // Both verdicts were exercised often: a generator of only junk would prove nothing about valid calls.
      expect(verdicts.valid).toBeGreaterThan(500);
      expect(verdicts.invalid).toBeGreaterThan(500);
    });
  });
});

describe('the generator refuses what it cannot make self-contained', () => {
  const declare = (params: unknown) => [{ name: 'x', params }];

  it('an external that is not a RegExp (an object a const compares to, a format function)', async () => {
    await expect(generateArgChecks(declare({ type: 'object', properties: { a: { const: { deep: 1 } } } }))).rejects.toThrow(
      'gen-arg-checks: x: external 0 is an object ({"deep":1}), not a RegExp: it cannot be written as a literal',
    );
    await expect(generateArgChecks(declare({ type: 'string', format: 'email' }))).rejects.toThrow(/^gen-arg-checks: x: external 0 is a function \(IsEmail\), not a RegExp/);
  });

  it('an import other than Guard and Hashing (unevaluatedProperties needs a check context)', async () => {
    await expect(generateArgChecks(declare({ type: 'object', unevaluatedProperties: false }))).rejects.toThrow(
      'gen-arg-checks: x: imports CheckContext from typebox/schema, which the generated checks cannot use',
    );
  });

  it('a name the code uses but neither defines nor imports', () => {
    const { Code: text, External } = Code({ type: 'string' });
    expect(() => parseCheckModule('x', text, External)).not.toThrow();
    const leaky = text.replace('typeof value === "string"', 'typeof value === "string" && process.env.X === undefined');
    expect(leaky).not.toBe(text);
    expect(() => parseCheckModule('x', leaky, External)).toThrow('gen-arg-checks: x: the generated check uses process, which it neither defines nor imports');
    // A parameter of an inner function is in scope only inside it.
    const outOfScope = text.replace('typeof value === "string"', '(((inner) => inner)(1) && typeof inner === "string")');
    expect(() => parseCheckModule('x', outOfScope, External)).toThrow('uses inner, which');
  });

  it('keeps an import only where the code uses it, and writes RegExp externals as literals', async () => {
    const props = { a: { type: 'string' }, b: { type: 'boolean' } };
    const plain = await generateArgChecks(declare({ type: 'object', properties: props, required: ['a'], additionalProperties: false }));
    expect(plain).not.toContain('import ');
    expect(plain).toContain('const External = [/(^a$|^b$)/u];');
    const unique = await generateArgChecks(declare({ type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 2 } }));
    expect(unique).toContain("import { Guard } from 'typebox/guard';\nimport { Hashing } from 'typebox/system';\n");
  });

  it('refuses two declarations of one name', async () => {
    await expect(generateArgChecks([...declare({ type: 'string' }), ...declare({ type: 'number' })])).rejects.toThrow('gen-arg-checks: tool x is declared twice');
  });
});

describe('argument checking with a precompiled check', () => {
  const tools = createDefaultTools();
  const schemaOf = (name: string) => tools.find((t) => t.name === name)!.params;

  it.each([
    ['read_file', { file_path: 3 }, 'invalid arguments for read_file: /file_path must be string'],
    ['read_file', {}, "invalid arguments for read_file: missing required field 'file_path'"],
    ['read_file', { file_path: 'a', start_line: 0, limit: 5 }, "invalid arguments for read_file: unknown field 'limit'; /start_line must be >= 1"],
    ['run_shell_command', { command: '', timeout_ms: 10 }, 'invalid arguments for run_shell_command: /command must NOT have fewer than 1 characters; /timeout_ms must be >= 1000'],
    ['list_directory', { dir_path: '.', ignore: [1], file_filtering_options: { x: true } }, "invalid arguments for list_directory: /ignore/0 must be string; unknown field 'file_filtering_options/x'"],
    ['grep_search', null, "invalid arguments for grep_search: missing required field 'pattern'"],
  ])('refuses %s %j in the validator’s words, the same as without it', async (name, args, message) => {
    const refused = await createToolRegistry(tools)
      .prepareCall(name, args, makeEnv('/nonexistent'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ToolFailure);
    expect((refused as ToolFailure).message).toBe(message);
    const input = args ?? {};
    expect(`invalid arguments for ${name}: ${await checkArgs(schemaOf(name), input)}`).toBe(message);
  });

  it("takes a precompiled check's yes as the verdict, and its no as a question for the validator", async () => {
    const schema = schemaOf('read_file');
    // Yes: the validator is not asked (it would refuse this).
    expect(await checkArgs(schema, { file_path: 3 }, () => true)).toBeUndefined();
    // No: the validator decides, both ways.
    expect(await checkArgs(schema, { file_path: 'a' }, () => false)).toBeUndefined();
    expect(await checkArgs(schema, { file_path: 3 }, () => false)).toBe('/file_path must be string');
  });

  it('the registry asks a built-in’s precompiled check, and prepares the call on its yes', async () => {
    const dir = makeTempDir('arg-checks-');
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    const asked: unknown[] = [];
    const readFile = tools.find((t) => t.name === 'read_file')!;
    const spy: Tool = { ...readFile, precompiledCheck: (v) => (asked.push(v), readFile.precompiledCheck!(v)) };
    const prepared = await createToolRegistry([spy]).prepareCall('read_file', { file_path: 'a.txt' }, makeEnv(dir));
    expect(prepared.paths).toEqual(['a.txt']);
    expect(asked).toEqual([{ file_path: 'a.txt' }]);
  });
});

// ---------------------------------------------------------------------------------------------
// Values from a tool's schema (the subset of JSON Schema the declarations use), valid and broken.

type Schema = Record<string, unknown>;
const propsOf = (s: Schema) => (s.properties ?? {}) as Record<string, Schema>;
const requiredOf = (s: Schema) => (s.required ?? []) as string[];
const constsOf = (s: Schema): unknown[] | undefined =>
  Array.isArray(s.enum) ? s.enum : Array.isArray(s.anyOf) && s.anyOf.every((x: Schema) => 'const' in x) ? s.anyOf.map((x: Schema) => x.const) : undefined;

/** Values a schema accepts. */
function validOf(s: Schema): fc.Arbitrary<unknown> {
  const consts = constsOf(s);
  if (consts) return fc.constantFrom(...consts);
  switch (s.type) {
    case 'object': {
      const props = propsOf(s);
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, p]) => [k, validOf(p)])), { requiredKeys: requiredOf(s) });
    }
    case 'string': {
      const minLength = (s.minLength as number | undefined) ?? 0;
      const maxLength = (s.maxLength as number | undefined) ?? Math.max(minLength, 12);
      return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: 'binary' }));
    }
    case 'integer':
      return fc.integer({ min: (s.minimum as number | undefined) ?? -(2 ** 31), max: (s.maximum as number | undefined) ?? 2 ** 31 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validOf(s.items as Schema), { minLength: (s.minItems as number | undefined) ?? 0, maxLength: (s.maxItems as number | undefined) ?? 4 });
    default:
      throw new Error(`no generator for schema ${JSON.stringify(s)}`);
  }
}

/** Anything at all, including what JSON cannot carry. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, undefined, [], {}, '', 0, -0, NaN, Infinity, true, 1n, [{}], Object.create(null)),
  fc.anything({ withBigInt: true, withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withDate: true, withMap: true, withSet: true, withTypedArray: true }),
);

/** Values just wrong for a schema: its bounds missed by one, the wrong type, the wrong constant. */
function wrongFor(s: Schema): fc.Arbitrary<unknown> {
  const edges: unknown[] = [null, [], {}, 'x', 1, 1.5, true];
  const consts = constsOf(s);
  if (consts) edges.push(...consts.map((c) => (typeof c === 'string' ? c.toUpperCase() : c)), 'not-one-of-them');
  if (s.type === 'integer') {
    const min = s.minimum as number | undefined;
    const max = s.maximum as number | undefined;
    edges.push(NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53), 0.5, '1', 1n);
    if (min !== undefined) edges.push(min - 1, min - 0.5, min + 0.5, min);
    if (max !== undefined) edges.push(max + 1, max + 0.5, max);
  }
  if (s.type === 'string') {
    const min = s.minLength as number | undefined;
    const max = s.maxLength as number | undefined;
    if (min !== undefined) edges.push('', 'a'.repeat(Math.max(0, min - 1)), '\u{1F600}'.repeat(Math.max(0, min - 1)), '\uD83D');
    if (max !== undefined) edges.push('a'.repeat(max + 1), '\u{1F600}'.repeat(max), '\u{1F600}'.repeat(max + 1), 'a'.repeat(max));
  }
  const parts: fc.Arbitrary<unknown>[] = [fc.constantFrom(...edges), junk];
  if (s.type === 'object' || s.type === 'array') parts.push(mutantOf(s));
  return fc.oneof(...parts);
}

/** A valid value of an object or array schema with one thing broken: a field, a key, an item. */
function mutantOf(s: Schema): fc.Arbitrary<unknown> {
  if (s.type === 'array') {
    const items = s.items as Schema;
    return fc.tuple(validOf(s), wrongFor(items), fc.nat()).map(([arr, bad, i]) => {
      const out = [...(arr as unknown[])];
      out[out.length === 0 ? 0 : i % (out.length + 1)] = bad;
      return out;
    });
  }
  if (s.type !== 'object') return wrongFor(s);
  const props = propsOf(s);
  const keys = Object.keys(props);
  const base = validOf(s) as fc.Arbitrary<Record<string, unknown>>;
  const wrongField = fc
    .constantFrom(...keys)
    .chain((k) => fc.tuple(base, fc.constant(k), wrongFor(props[k])))
    .map(([v, k, bad]) => ({ ...v, [k]: bad }));
  const missing = requiredOf(s).length === 0 ? [] : [fc.tuple(base, fc.constantFrom(...requiredOf(s))).map(([v, k]) => Object.fromEntries(Object.entries(v).filter(([n]) => n !== k)))];
  const extraName = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', keys[0] + ' ', keys[0].toUpperCase()), fc.string());
  const extra = fc.tuple(base, extraName, fc.anything()).map(([v, k, x]) => {
    const out = { ...v };
    Object.defineProperty(out, k, { value: x, enumerable: true, configurable: true, writable: true });
    return out;
  });
  const inherited = base.map((v) => Object.assign(Object.create({ inherited: 1 }) as object, v));
  const undefinedField = fc.tuple(base, fc.constantFrom(...keys)).map(([v, k]) => ({ ...v, [k]: undefined }));
  return fc.oneof(wrongField, ...missing, extra, inherited, undefinedField);
}
