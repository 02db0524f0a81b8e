/**
 * MCP servers' schemas, checked leniently (src/tools/mcp/lenient-validator.ts): what can be checked
 * is enforced with field-named messages; what cannot (a dangling or remote $ref, a pattern
 * JavaScript rejects, an unknown format) leaves the call to the server instead of losing the tool.
 */
import { describe, expect, it } from 'vitest';
import { compileLenient, createLenientValidator } from '../../../src/tools/mcp/lenient-validator.js';

const sum = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

describe('compileLenient', () => {
  it('enforces a schema it can check, naming each field', () => {
    const check = compileLenient(sum);
    expect(check({ a: 1, b: 2 })).toBeUndefined();
    expect(check({ a: 'one', b: 2 })).toBe('/a must be number');
    expect(check({ a: 1 })).toBe("missing required field 'b'");
    expect(check({ a: 1, b: 2, c: 3 })).toBe("unknown field 'c'");
  });

  it('follows local $refs (draft-07 definitions, 2020-12 $defs) and ignores the draft named in $schema', () => {
    const check = compileLenient({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { side: { $ref: '#/definitions/side' }, n: { $ref: '#/$defs/n' } },
      definitions: { side: { type: 'string', enum: ['LEFT', 'RIGHT'] } },
      $defs: { n: { type: 'integer' } },
    });
    expect(check({ side: 'LEFT', n: 2 })).toBeUndefined();
    expect(check({ side: 'UP' })).toBe('/side must be one of "LEFT", "RIGHT"');
    expect(check({ n: 1.5 })).toBe('/n must be integer');
  });

  it('leaves unchecked a schema whose $ref does not resolve here', () => {
    expect(
      compileLenient({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })({ a: 1 }),
    ).toBeUndefined();
    expect(
      compileLenient({ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } })({ a: 1 }),
    ).toBeUndefined();
  });

  it('leaves unchecked a pattern JavaScript cannot compile, and does not check formats', () => {
    expect(
      compileLenient({ type: 'object', properties: { a: { type: 'string', pattern: '[' } } })({ a: 'x' }),
    ).toBeUndefined();
    const uri = compileLenient({
      type: 'object',
      properties: { a: { type: 'string', format: 'uri' }, format: { type: 'string' } },
    });
    expect(uri({ a: 'not a uri' })).toBeUndefined();
    // A field named "format" is a field, not the keyword: still checked.
    expect(uri({ format: 1 })).toBe('/format must be string');
  });

  it('takes boolean schemas and non-schemas', () => {
    expect(compileLenient(true)(1)).toBeUndefined();
    expect(compileLenient(false)(1)).toBe('no value is allowed');
    expect(compileLenient(undefined)({})).toBeUndefined();
  });
});

describe('createLenientValidator (the SDK interface, for output schemas)', () => {
  it('returns the data when valid and the message when not', () => {
    const v = createLenientValidator().getValidator<{ a: number; b: number }>(sum);
    expect(v({ a: 1, b: 2 })).toEqual({ valid: true, data: { a: 1, b: 2 }, errorMessage: undefined });
    expect(v({ a: 1 })).toEqual({ valid: false, data: undefined, errorMessage: "missing required field 'b'" });
  });
});
