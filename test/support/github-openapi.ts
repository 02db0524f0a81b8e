/**
 * GitHub's own description of api.github.com (`@octokit/openapi`, pinned in package.json), as the
 * fake GitHub (fake-github.ts) uses it: which operation a request is (method and path template,
 * literal segments before parameters, as GitHub's router picks them), whether its path and query
 * parameters and its JSON body are what the operation takes, and whether an answer fits the
 * operation's response schema for its status. The spec (13 MB) is read once per process, on the
 * first request; a validator is compiled per operation on first use. OpenAPI 3.0's `nullable` is
 * Ajv's own keyword; the spec's `$ref`s point into one document Ajv holds as `gh`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
  'x-multi-segment'?: boolean;
}

type Segment = { literal: string } | { param: string; multi: boolean };

interface Operation {
  method: string;
  /** The spec's path template, e.g. `/repos/{owner}/{repo}/pulls/{pull_number}`. */
  template: string;
  operationId: string;
  segments: Segment[];
  spec: Json;
  parameters: Parameter[];
}

export interface OperationMatch {
  operation: Operation;
  /** Path parameters, decoded. */
  params: Record<string, string>;
}

interface Loaded {
  spec: Json;
  byMethod: Map<string, Operation[]>;
  ajv: Ajv;
  /** Components added to `ajv` so far, by name. */
  components: Set<string>;
  validators: Map<string, ValidateFunction>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  // The package's index.js requires all ten descriptions (400 MB); read only api.github.com's.
  const file = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  const spec = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const byMethod = new Map<string, Operation[]>();
  for (const [template, item] of Object.entries(spec.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
      const parameters = [...((item as Json).parameters ?? []), ...((op as Json).parameters ?? [])].map(
        (p: Json) => resolve(spec, p) as Parameter,
      );
      const multi = new Set(parameters.filter((p) => p.in === 'path' && p['x-multi-segment']).map((p) => p.name));
      const segments = template
        .split('/')
        .slice(1)
        .map((s): Segment => {
          const m = /^\{(.+)\}$/.exec(s);
          return m ? { param: m[1], multi: multi.has(m[1]) } : { literal: s };
        });
      const list = byMethod.get(method.toUpperCase()) ?? [];
      list.push({
        method: method.toUpperCase(),
        template,
        operationId: (op as Json).operationId,
        segments,
        spec: op as Json,
        parameters,
      });
      byMethod.set(method.toUpperCase(), list);
    }
  }
  // inlineRefs off: a pull request embeds simple-user dozens of times; one function each compiles fast.
  const ajv = new Ajv({
    strict: false,
    allErrors: false,
    validateSchema: false,
    inlineRefs: false,
    code: { optimize: false },
    formats: { 'repo.nwo': /^[^/]+\/[^/]+$/ },
  });
  addFormats.default(ajv);
  loaded = { spec, byMethod, ajv, components: new Set(), validators: new Map() };
  return loaded;
}

/** A `$ref` to a component, followed (one level: parameters, responses, examples). */
function resolve(spec: Json, node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  const path = (node.$ref as string).replace(/^#\//, '').split('/');
  return resolve(
    spec,
    path.reduce((n: Json, k) => n?.[k], spec),
  );
}

const COMPONENT = 'https://api.github.com/components/schemas/';

/**
 * A schema as Ajv takes it, its `#/components/schemas/x` refs pointed at the component `x`, which
 * is added to Ajv (transformed alike) the first time a schema reaches it: Ajv then compiles each
 * component once for every operation, and never the spec's 2.6 MB of schemas an operation does not use.
 */
function forAjv(l: Loaded, node: unknown): any {
  if (Array.isArray(node)) return node.map((n) => forAjv(l, n));
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => {
      if (k !== '$ref' || typeof v !== 'string') return [k, forAjv(l, v)];
      const name = v.replace('#/components/schemas/', '');
      if (!l.components.has(name)) {
        l.components.add(name); // before its own refs: components refer to each other, some to themselves
        l.ajv.addSchema({ ...forAjv(l, l.spec.components.schemas[name]), $id: COMPONENT + name });
      }
      return [k, COMPONENT + name];
    }),
  );
  return nullableForAjv(out);
}

/**
 * OpenAPI 3.0's `nullable` as GitHub means it: null is allowed beside an `enum` that does not list
 * it (an open issue's `state_reason`), and beside a `$ref` or `allOf` (no `type`, which Ajv's own
 * `nullable` needs).
 */
function nullableForAjv(schema: Json): Json {
  if (schema.nullable !== true) return schema;
  const withNull =
    Array.isArray(schema.enum) && !schema.enum.includes(null) ? { ...schema, enum: [...schema.enum, null] } : schema;
  if ('type' in withNull) return withNull;
  const { nullable: _, ...rest } = withNull;
  return { anyOf: [rest, { type: 'null' }] };
}

function validator(key: string, schema: () => Json): ValidateFunction {
  const l = load();
  let v = l.validators.get(key);
  if (!v) {
    v = l.ajv.compile(forAjv(l, schema()));
    l.validators.set(key, v);
  }
  return v;
}

/** The operation a request is, or undefined when the spec has no such method and path. */
export function matchOperation(method: string, pathname: string): OperationMatch | undefined {
  const parts = pathname.split('/').slice(1);
  let best: { match: OperationMatch; rank: string } | undefined;
  for (const operation of load().byMethod.get(method) ?? []) {
    const params = matchSegments(operation.segments, parts);
    if (!params) continue;
    // GitHub's router prefers a literal segment to a parameter at the first place they differ.
    const rank = operation.segments.map((s) => ('literal' in s ? '0' : '1')).join('');
    if (!best || rank < best.rank) best = { match: { operation, params }, rank };
  }
  return best?.match;
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  let i = 0;
  for (const [k, s] of segments.entries()) {
    if ('literal' in s) {
      if (parts[i++] !== s.literal) return undefined;
      continue;
    }
    // A multi-segment parameter (a git ref) takes what the literals after it leave.
    const take = s.multi ? parts.length - i - (segments.length - k - 1) : 1;
    if (take < 1 || i + take > parts.length) return undefined;
    const value = parts
      .slice(i, i + take)
      .map(decodeURIComponent)
      .join('/');
    if (!value) return undefined;
    params[s.param] = value;
    i += take;
  }
  return i === parts.length ? params : undefined;
}

export interface RequestProblems {
  /** What GitHub refuses with 422: a parameter or body outside the operation's schema. */
  invalid: string[];
  /** What GitHub ignores and the spec does not have: a query parameter the operation does not take. */
  unknown: string[];
}

/** What is wrong with a request for its operation: path and query parameters, the JSON body. */
export function checkRequest(m: OperationMatch, query: Record<string, string>, body: unknown): RequestProblems {
  const l = load();
  const op = m.operation;
  const out: RequestProblems = { invalid: [], unknown: [] };
  for (const where of ['path', 'query'] as const) {
    const declared = op.parameters.filter((p) => p.in === where);
    const values = where === 'path' ? m.params : query;
    for (const name of Object.keys(values)) {
      if (!declared.some((p) => p.name === name))
        out.unknown.push(`${where} parameter '${name}' is not one ${op.operationId} takes`);
    }
    const schema = () => ({
      type: 'object',
      properties: Object.fromEntries(declared.map((p) => [p.name, p.schema ?? {}])),
      required: declared.filter((p) => p.required).map((p) => p.name),
    });
    const v = validator(`${op.method} ${op.template} ${where}`, schema);
    if (!v(coerce(declared, values))) out.invalid.push(...describe(`${where} parameters`, v.errors));
  }
  const requestBody = resolve(l.spec, op.spec.requestBody ?? {});
  const bodySchema = requestBody.content?.['application/json']?.schema;
  if (body === undefined) {
    if (requestBody.required) out.invalid.push(`${op.operationId} needs a JSON body`);
  } else if (!bodySchema) {
    out.invalid.push(`${op.operationId} takes no JSON body`);
  } else {
    const v = validator(`${op.method} ${op.template} body`, () => bodySchema);
    if (!v(body)) out.invalid.push(...describe('body', v.errors));
  }
  return out;
}

/**
 * What is wrong with an answer: a status the operation does not declare for a success, or a JSON
 * body outside the declared schema. Error statuses the spec leaves out (GitHub answers 403 and 404
 * on most routes) are not checked.
 */
export function checkResponse(m: OperationMatch, status: number, body: unknown): string[] {
  const l = load();
  const op = m.operation;
  const declared = op.spec.responses?.[String(status)];
  if (!declared) return status < 300 ? [`${op.operationId} has no ${status} answer in the spec`] : [];
  const schema = resolve(l.spec, declared).content?.['application/json']?.schema;
  if (!schema || typeof body === 'string') return [];
  const v = validator(`${op.method} ${op.template} ${status}`, () => schema);
  return v(body) ? [] : describe(`${status} answer`, v.errors);
}

/** A deep copy of a named example of the spec (`components.examples[name].value`). */
export function specExample(name: string): any {
  const example = load().spec.components.examples[name];
  if (!example) throw new Error(`github-openapi: the spec has no example '${name}'`);
  return structuredClone(example.value);
}

/** GitHub's docs link for an operation, as its error answers carry. */
export function documentationUrl(m: OperationMatch | undefined): string {
  return m?.operation.spec.externalDocs?.url ?? 'https://docs.github.com/rest';
}

/** Path and query values are strings on the wire: numbers and booleans as the parameter declares them. */
function coerce(declared: Parameter[], values: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([name, raw]) => {
      const type = declared.find((p) => p.name === name)?.schema?.type;
      if ((type === 'integer' || type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw)))
        return [name, Number(raw)];
      if (type === 'boolean' && (raw === 'true' || raw === 'false')) return [name, raw === 'true'];
      return [name, raw];
    }),
  );
}

function describe(what: string, errors: ErrorObject[] | null | undefined): string[] {
  // anyOf/oneOf failures repeat each branch's errors; the first few name the field well enough.
  return (errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${what}${e.instancePath ? ` ${e.instancePath}` : ''}: ${e.message}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`,
    );
}
