/**
 * A workflow's `output-schema` (a JSON Schema, as JSON text): parsed and checked against its
 * draft's meta-schema once, before any model call, then used to check the model's final answer.
 * TypeBox checks both, interpreted (no code is generated from the workflow's text): the one schema
 * library of the bundle, as for the tools (tools/tool-schema.ts).
 */
import Schema from 'typebox/schema';
import { messageOf } from '../common/errors.js';
import { formatSchemaErrors, type SchemaError } from '../tools/tool-schema.js';

/** A checked schema and its check: undefined when a value fits, else each problem with its path. */
export interface OutputSchema {
  schema: Record<string, unknown>;
  check(value: unknown): string | undefined;
}

export type ParsedOutputSchema = { ok: true; value: OutputSchema } | { ok: false; message: string };

const DEFAULT_DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const META = Schema.Meta as Record<string, unknown>;

/** Pure: the schema text -> the schema and its check, or what is wrong with it (with the schema path). */
export function parseOutputSchema(text: string): ParsedOutputSchema {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `not JSON (${messageOf(e)})` };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { ok: false, message: 'a JSON Schema object, such as {"type": "object", "properties": {...}}' };
  const s = schema as Record<string, unknown>;
  const draft = typeof s.$schema === 'string' ? s.$schema.replace(/#$/, '') : DEFAULT_DRAFT;
  const meta = META[draft] ?? META[`${draft}#`];
  if (!meta)
    return {
      ok: false,
      message: `$schema ${JSON.stringify(s.$schema)} is not a draft this action knows (${Object.keys(META).join(', ')})`,
    };
  if (!Schema.Check(meta as never, s))
    return {
      ok: false,
      message: `not a valid JSON Schema: ${formatSchemaErrors(Schema.Errors(meta as never, s)[1] as unknown as SchemaError[])}`,
    };
  // A schema the checker cannot use (a $ref that leads nowhere, a pattern RegExp refuses) fails here, not after the run.
  try {
    Schema.Check(s as never, null);
  } catch (e) {
    return { ok: false, message: `a JSON Schema this action can check (${messageOf(e)})` };
  }
  return { ok: true, value: { schema: s, check: (value) => checkAgainst(s, value) } };
}

function checkAgainst(schema: Record<string, unknown>, value: unknown): string | undefined {
  if (Schema.Check(schema as never, value)) return undefined;
  const errors = Schema.Errors(schema as never, value)[1] as unknown as SchemaError[];
  return formatSchemaErrors(errors) || 'does not match the schema';
}
