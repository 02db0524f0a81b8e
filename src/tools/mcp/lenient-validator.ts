/**
 * JSON Schema checks for what MCP servers publish (a tool's input and output schemas), lenient as
 * Gemini CLI's LenientJsonSchemaValidator: a schema that cannot be checked (a `$ref` that does not
 * resolve inside the schema, a pattern JavaScript cannot compile) is not a reason to lose the tool;
 * it goes unchecked here and the server checks its own input. A schema that can be checked is
 * enforced. TypeBox checks it, interpreted (no code is generated from a server's schema): the one
 * schema library of the bundle, as for our own tools (tool-schema.ts).
 */
import Schema from 'typebox/schema';
import type { jsonSchemaValidator, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { formatSchemaErrors, type SchemaError } from '../tool-schema.js';

export type SchemaCheck = (value: unknown) => string | undefined;

/** A check for `schema`: undefined when the value fits (or the schema cannot be checked), else what is wrong. */
export function compileLenient(schema: unknown): SchemaCheck {
  if (typeof schema === 'boolean') return schema ? () => undefined : () => 'no value is allowed';
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return () => undefined;
  const copy = withoutFormats(schema) as Record<string, unknown>;
  // The draft a server names is often not the one TypeBox speaks; the keywords are the same.
  delete copy.$schema;
  if (!refsResolve(copy, copy)) return () => undefined;
  return (value) => {
    try {
      if (Schema.Check(copy, value)) return undefined;
      return (
        formatSchemaErrors(Schema.Errors(copy, value)[1] as unknown as SchemaError[]) || 'does not match the schema'
      );
    } catch {
      return undefined; // e.g. a `pattern` JavaScript's RegExp rejects: unchecked, as above
    }
  };
}

/** The SDK's validator interface (output schemas of tool results) over compileLenient. */
export function createLenientValidator(): jsonSchemaValidator {
  return {
    getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
      const check = compileLenient(schema);
      return (input: unknown) => {
        const problem = check(input);
        return problem === undefined
          ? { valid: true, data: input as T, errorMessage: undefined }
          : { valid: false, data: undefined, errorMessage: problem };
      };
    },
  };
}

/**
 * A copy without `format`: formats are the server's to check (Gemini CLI does not either), and
 * an unknown one must not fail a call. Names under `properties` are field names, not keywords.
 */
function withoutFormats(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutFormats);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'format' && typeof v === 'string') continue;
    out[k] =
      (k === 'properties' || k === '$defs' || k === 'definitions' || k === 'patternProperties') &&
      v &&
      typeof v === 'object' &&
      !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([n, p]) => [n, withoutFormats(p)]))
        : withoutFormats(v);
  }
  return out;
}

/** Every `$ref` is a pointer into this schema (`#`, `#/…`) that leads somewhere; anything else cannot be checked here. */
function refsResolve(node: unknown, root: unknown): boolean {
  if (Array.isArray(node)) return node.every((n) => refsResolve(n, root));
  if (node === null || typeof node !== 'object') return true;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && (typeof v !== 'string' || !pointsInto(root, v))) return false;
    if (k !== '$ref' && !refsResolve(v, root)) return false;
  }
  return true;
}

function pointsInto(root: unknown, ref: string): boolean {
  if (ref === '#') return true;
  if (!ref.startsWith('#/')) return false;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return true;
}
