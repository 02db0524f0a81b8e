import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FunctionDeclaration } from '../model/wire.js';
import { declarationOf, ToolFailure, type PreparedCall, type Tool, type ToolEnv } from './define-tool.js';

/**
 * The tool table: lookup by wire name or alias, declarations for each request, and the one place
 * arguments are validated (before policy, failing closed).
 */
export interface ToolRegistry {
  /** By wire name or alias; undefined when unknown. */
  get(name: string): Tool | undefined;
  names(): string[];
  /** Fresh objects on every call: the SDK may mutate what it is given. */
  declarations(): FunctionDeclaration[];
  /** Validate args against the tool's schema, then `tool.prepare`. Throws ToolFailure. */
  prepareCall(name: string, args: unknown, env: ToolEnv): Promise<PreparedCall>;
}

export function createToolRegistry(tools: readonly Tool[]): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const t of tools) {
    for (const n of [t.name, ...(t.aliases ?? [])]) {
      if (byName.has(n)) throw new Error(`tool name ${n} is registered twice`);
      byName.set(n, t);
    }
  }
  // strict: a schema keyword Ajv does not know is a bug in our own tool, caught at startup.
  const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: false });
  const validators = new Map<Tool, ValidateFunction>(tools.map((t) => [t, ajv.compile(t.params)]));

  return {
    get: (name) => byName.get(name),
    names: () => tools.map((t) => t.name),
    declarations: () => tools.map(declarationOf),
    async prepareCall(name, args, env) {
      const tool = byName.get(name);
      if (!tool) throw new ToolFailure('not_found', unknownToolMessage(name, [...byName.keys()]));
      const input = args ?? {};
      const validate = validators.get(tool)!;
      if (!validate(input)) {
        throw new ToolFailure('invalid_args', `invalid arguments for ${tool.name}: ${formatAjvErrors(validate.errors ?? [])}`);
      }
      return await tool.prepare(input as never, env);
    },
  };
}

export function unknownToolMessage(name: string, known: readonly string[]): string {
  const near = suggestNames(name, known);
  const hint = near.length > 0 ? `; did you mean ${near.join(' or ')}?` : `; available tools: ${[...known].sort().join(', ')}`;
  return `unknown tool ${name}${hint}`;
}

/** Up to three known names close to the given one (edit distance, or one contains the other). */
export function suggestNames(name: string, known: readonly string[]): string[] {
  const lower = name.toLowerCase();
  const budget = Math.max(2, Math.floor(name.length / 3));
  return known
    .map((k) => ({ k, d: editDistance(lower, k.toLowerCase()) }))
    .filter(({ k, d }) => d <= budget || (lower.length >= 4 && (k.includes(lower) || lower.includes(k))))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, 3)
    .map(({ k }) => k);
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Each error names the field: `/file_path must be string`, `missing required field 'content'`. */
export function formatAjvErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.map((e) => {
    const at = e.instancePath === '' ? '' : e.instancePath;
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

export { createDefaultTools } from './default-tools.js';
