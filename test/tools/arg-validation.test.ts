/**
 * Argument validation (src/tools/tool-schema.ts, registry.ts): each tool's check is TypeBox's
 * validator compiled once from its schema; it agrees with the interpreted validator on every value,
 * and a bad call is refused in words that name each field.
 */
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { askUserTool } from '../../src/tools/builtin/ask-user.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { ToolFailure, type Tool } from '../../src/tools/define-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { compiledArgsCheck, interpretedArgsCheck } from '../../src/tools/tool-schema.js';
import { makeEnv } from './helpers.js';

const builtins = [...createDefaultTools(), askUserTool];

async function refusal(tools: readonly Tool[], name: string, args: unknown): Promise<ToolFailure> {
  const refused = await createToolRegistry(tools)
    .prepareCall(name, args, makeEnv('/nonexistent'))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(refused).toBeInstanceOf(ToolFailure);
  return refused as ToolFailure;
}

describe.each(builtins.map((t) => [t.name, t] as const))(
  '%s: the compiled check and Value.Check agree',
  (_name, tool) => {
    it('on valid arguments and on every kind of broken ones', () => {
      const check = compiledArgsCheck(tool.params);
      const verdicts = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(fc.oneof(validOf(tool.params as Schema), mutantOf(tool.params as Schema), junk), (value) => {
          const expected = Value.Check(tool.params, value);
          verdicts[expected ? 'valid' : 'invalid']++;
          expect(check(value) === undefined).toBe(expected);
        }),
        { numRuns: 3000 },
      );
      // Both verdicts were exercised often: a generator of only junk would prove nothing about valid calls.
      expect(verdicts.valid).toBeGreaterThan(500);
      expect(verdicts.invalid).toBeGreaterThan(500);
    });
  },
);

describe('a bad call is refused before prepare', () => {
  it.each([
    ['read_file', { file_path: 3 }, 'invalid arguments for read_file: /file_path must be string'],
    ['read_file', {}, "invalid arguments for read_file: missing required field 'file_path'"],
    [
      'read_file',
      { file_path: 'a', start_line: 0, limit: 5 },
      "invalid arguments for read_file: unknown field 'limit'; /start_line must be >= 1",
    ],
    [
      'run_shell_command',
      { command: '', timeout_ms: 10 },
      'invalid arguments for run_shell_command: /command must NOT have fewer than 1 characters; /timeout_ms must be >= 1000',
    ],
    [
      'list_directory',
      { dir_path: '.', ignore: [1], file_filtering_options: { x: true } },
      "invalid arguments for list_directory: /ignore/0 must be string; unknown field 'file_filtering_options/x'",
    ],
    ['grep_search', null, "invalid arguments for grep_search: missing required field 'pattern'"],
    [
      'ask_user',
      { questions: [{ question: 'q?', header: 'h', type: 'multi' }] },
      'invalid arguments for ask_user: /questions/0/type must be equal to constant; /questions/0/type must match a schema in anyOf',
    ],
  ])('%s %j, in words naming each field', async (name, args, message) => {
    expect((await refusal(builtins, name, args)).message).toBe(message);
    // The same words as the interpreted validator's.
    const schema = builtins.find((t) => t.name === name)!.params;
    expect(`invalid arguments for ${name}: ${interpretedArgsCheck(schema)(args ?? {})}`).toBe(message);
  });

  it('compiles a schema once, on its first check, and keeps it for the process', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } as const;
    const first = compiledArgsCheck(schema);
    expect(compiledArgsCheck(schema)).toBe(first);
    // Another schema object, another check.
    expect(compiledArgsCheck({ ...schema })).not.toBe(first);
    expect(first({ a: 1 })).toBe('/a must be string');
    expect(first({ a: 'x' })).toBeUndefined();
  });

  it("takes a tool's own check instead of compiling its schema (an MCP server's schema is interpreted)", async () => {
    let prepared = 0;
    const tool: Tool = {
      name: 'own_check',
      kind: 'read',
      description: 'x',
      params: { type: 'object', properties: {} },
      checkArgs: (args) => ((args as { ok?: unknown }).ok === true ? undefined : 'ok must be true'),
      prepare: () => {
        prepared++;
        return { title: 't', paths: [], policyArgs: {}, run: async () => ({ forModel: 'done' }) };
      },
    };
    expect((await refusal([tool], 'own_check', { ok: false })).message).toBe(
      'invalid arguments for own_check: ok must be true',
    );
    expect(prepared).toBe(0);
    await createToolRegistry([tool]).prepareCall('own_check', { ok: true }, makeEnv('/nonexistent'));
    expect(prepared).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Values from a tool's schema (the subset of JSON Schema the declarations use), valid and broken.

type Schema = Record<string, unknown>;
const propsOf = (s: Schema) => (s.properties ?? {}) as Record<string, Schema>;
const requiredOf = (s: Schema) => (s.required ?? []) as string[];
const constsOf = (s: Schema): unknown[] | undefined =>
  Array.isArray(s.enum)
    ? s.enum
    : Array.isArray(s.anyOf) && s.anyOf.every((x: Schema) => 'const' in x)
      ? s.anyOf.map((x: Schema) => x.const)
      : undefined;

/** Values a schema accepts. */
function validOf(s: Schema): fc.Arbitrary<unknown> {
  const consts = constsOf(s);
  if (consts) return fc.constantFrom(...consts);
  switch (s.type) {
    case 'object': {
      const props = propsOf(s);
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, p]) => [k, validOf(p)])), {
        requiredKeys: requiredOf(s),
      });
    }
    case 'string': {
      const minLength = (s.minLength as number | undefined) ?? 0;
      const maxLength = (s.maxLength as number | undefined) ?? Math.max(minLength, 12);
      return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: 'binary' }));
    }
    case 'integer':
      return fc.integer({
        min: (s.minimum as number | undefined) ?? -(2 ** 31),
        max: (s.maximum as number | undefined) ?? 2 ** 31,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validOf(s.items as Schema), {
        minLength: (s.minItems as number | undefined) ?? 0,
        maxLength: (s.maxItems as number | undefined) ?? 4,
      });
    default:
      throw new Error(`no generator for schema ${JSON.stringify(s)}`);
  }
}

/** Anything at all, including what JSON cannot carry. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, undefined, [], {}, '', 0, -0, NaN, Infinity, true, 1n, [{}], Object.create(null)),
  fc.anything({
    withBigInt: true,
    withNullPrototype: true,
    withBoxedValues: true,
    withSparseArray: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
  }),
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
    if (min !== undefined)
      edges.push('', 'a'.repeat(Math.max(0, min - 1)), '\u{1F600}'.repeat(Math.max(0, min - 1)), '\uD83D');
    if (max !== undefined)
      edges.push('a'.repeat(max + 1), '\u{1F600}'.repeat(max), '\u{1F600}'.repeat(max + 1), 'a'.repeat(max));
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
  const missing =
    requiredOf(s).length === 0
      ? []
      : [
          fc
            .tuple(base, fc.constantFrom(...requiredOf(s)))
            .map(([v, k]) => Object.fromEntries(Object.entries(v).filter(([n]) => n !== k))),
        ];
  const extraName = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', keys[0] + ' ', keys[0].toUpperCase()),
    fc.string(),
  );
  const extra = fc.tuple(base, extraName, fc.anything()).map(([v, k, x]) => {
    const out = { ...v };
    Object.defineProperty(out, k, { value: x, enumerable: true, configurable: true, writable: true });
    return out;
  });
  const inherited = base.map((v) => Object.assign(Object.create({ inherited: 1 }) as object, v));
  const undefinedField = fc.tuple(base, fc.constantFrom(...keys)).map(([v, k]) => ({ ...v, [k]: undefined }));
  return fc.oneof(wrongField, ...missing, extra, inherited, undefinedField);
}
