import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

/**
 * A tool's parameter schema, two ways: checked in full against the model's arguments (TypeBox
 * validates its own schemas: one schema library in the bundle), and shown to the model without what
 * only validation needs.
 */

/** One validation problem, as TypeBox reports it (Ajv's shape: keyword, instancePath, params, message). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** undefined when the arguments fit the schema; else every problem, each naming its field. */
export type ArgsCheck = (value: unknown) => string | undefined;

const compiled = new WeakMap<TSchema, ArgsCheck>();

/**
 * The check of a schema the project wrote (a built-in's, a recorder's, a sub-agent's): TypeBox's
 * validator, compiled on the schema's first check and kept for the process (by the schema object,
 * which a tool holds for its lifetime).
 */
export function compiledArgsCheck(schema: TSchema): ArgsCheck {
  let check = compiled.get(schema);
  if (!check) {
    const validator = Compile(schema);
    check = (value) =>
      validator.Check(value) ? undefined : formatSchemaErrors(validator.Errors(value) as unknown as SchemaError[]);
    compiled.set(schema, check);
  }
  return check;
}

/**
 * The check of a schema from outside (an MCP server's): interpreted on each call, so no code is
 * generated from text a server chose.
 */
export function interpretedArgsCheck(schema: TSchema): ArgsCheck {
  return (value) =>
    Value.Check(schema, value)
      ? undefined
      : formatSchemaErrors(Value.Errors(schema, value) as unknown as SchemaError[]);
}

/** Each error names the field: `/file_path must be string`, `missing required field 'content'`. */
export function formatSchemaErrors(errors: readonly SchemaError[]): string {
  const lines = errors.flatMap((e) => {
    const at = e.instancePath;
    const field = (name: unknown) => `${at ? `${at.slice(1)}/` : ''}${String(name)}`;
    switch (e.keyword) {
      case 'required':
        return (e.params.requiredProperties as unknown[]).map((p) => `missing required field '${field(p)}'`);
      case 'additionalProperties':
        return (e.params.additionalProperties as unknown[]).map((p) => `unknown field '${field(p)}'`);
      case 'boolean':
        return []; // "schema is false" under additionalProperties: said once, by name, above
      case 'enum':
        return [
          `${at || '/'} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        ];
      case 'minLength':
        return [`${at || '/'} must NOT have fewer than ${String(e.params.limit)} characters`];
      case 'maxLength':
        return [`${at || '/'} must NOT have more than ${String(e.params.limit)} characters`];
      default:
        return [`${at || '/'} ${e.message || 'is invalid'}`];
    }
  });
  return [...new Set(lines)].join('; ');
}

/** Keywords only validation reads: the model is told the same in words, or needs not be told. */
const VALIDATION_ONLY = new Set(['additionalProperties', 'minLength', 'maxLength', 'default']);

/**
 * The schema as the model sees it: without `additionalProperties: false`, length limits and
 * defaults (descriptions say what matters), and with a choice of string constants written as one
 * `enum` instead of an `anyOf` of `const` schemas. Validation still uses the full schema.
 */
export function modelSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(modelSchemaOf);
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  const consts =
    Array.isArray(s.anyOf) && s.anyOf.length > 0 && s.anyOf.every((x) => isStringConst(x))
      ? (s.anyOf as Array<{ const: string }>).map((x) => x.const)
      : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (VALIDATION_ONLY.has(k) && (k !== 'additionalProperties' || v === false)) continue;
    if (consts && k === 'anyOf') {
      out.type = 'string';
      out.enum = consts;
      continue;
    }
    // `properties` maps names to schemas: its keys are names, not keywords.
    out[k] =
      k === 'properties' && v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([n, p]) => [n, modelSchemaOf(p)]))
        : modelSchemaOf(v);
  }
  return out;
}

const isStringConst = (x: unknown): boolean =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as { const?: unknown }).const === 'string' &&
  Object.keys(x).every((k) => k === 'const' || k === 'type');
