/**
 * JSON Schema checks for what MCP servers publish (a tool's input and output schemas), lenient as
 * Gemini CLI's LenientJsonSchemaValidator: a schema Ajv cannot compile (a keyword it does not know,
 * a draft it does not speak) is not a reason to lose the tool; it goes unchecked here and the
 * server checks its own input. A schema that compiles is enforced.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { jsonSchemaValidator, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export type SchemaCheck = (value: unknown) => string | undefined;

let shared: Ajv | undefined;
const ajv = () => (shared ??= new Ajv({ allErrors: true, strict: false, validateFormats: false }));

/** A check for `schema`: undefined when the value fits (or the schema could not be compiled), else what is wrong. */
export function compileLenient(schema: unknown): SchemaCheck {
  let validate: ValidateFunction | undefined;
  try {
    const copy = typeof schema === 'object' && schema !== null ? { ...(schema as Record<string, unknown>) } : schema;
    // The draft a server names is often one this Ajv does not load; the keywords are the same.
    if (copy && typeof copy === 'object') delete (copy as Record<string, unknown>).$schema;
    validate = ajv().compile(copy as object);
  } catch {
    return () => undefined;
  }
  return (value) => (validate!(value) ? undefined : formatAjvErrors(validate!.errors ?? []));
}

/** The SDK's validator interface (output schemas of tool results) over compileLenient. */
export function createLenientValidator(): jsonSchemaValidator {
  return {
    getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
      const check = compileLenient(schema);
      return (input: unknown) => {
        const problem = check(input);
        return problem === undefined ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: problem };
      };
    },
  };
}

/** Each error names the field: `/query must be string`, `missing required field 'repo'` (as our own tools say it). */
function formatAjvErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.map((e) => {
    const at = e.instancePath;
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        return `missing required field '${at ? `${at.slice(1)}/` : ''}${String(p.missingProperty)}'`;
      case 'additionalProperties':
        return `unknown field '${at ? `${at.slice(1)}/` : ''}${String(p.additionalProperty)}'`;
      case 'enum':
        return `${at || '/'} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      default:
        return `${at || '/'} ${e.message ?? 'is invalid'}`;
    }
  });
  return [...new Set(lines)].join('; ');
}
