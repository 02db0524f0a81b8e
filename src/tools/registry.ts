import type { FunctionDeclaration } from '../model/wire.js';
import { declarationOf, ToolFailure, type PreparedCall, type Tool, type ToolEnv } from './define-tool.js';
import { compiledArgsCheck, modelSchemaOf } from './tool-schema.js';
import { AgentError } from '../common/errors.js';

/**
 * The tool table: lookup by wire name or alias, declarations for each request, and the one place
 * arguments are validated (before policy, failing closed).
 */
export interface ToolRegistry {
  /** By wire name or alias; undefined when unknown. */
  get(name: string): Tool | undefined;
  names(): string[];
  /**
   * What the model is told, built once and frozen (every request sends the same objects; nothing
   * may change them between requests).
   */
  declarations(): FunctionDeclaration[];
  /** Validate args against the tool's schema, then `tool.prepare`. Throws ToolFailure. */
  prepareCall(name: string, args: unknown, env: ToolEnv): Promise<PreparedCall>;
}

export function createToolRegistry(tools: readonly Tool[]): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const t of tools) {
    for (const n of [t.name, ...(t.aliases ?? [])]) {
      if (byName.has(n)) throw new AgentError('config', `tool name ${n} is registered twice`);
      byName.set(n, t);
    }
  }
  let declarations: FunctionDeclaration[] | undefined;

  return {
    get: (name) => byName.get(name),
    names: () => tools.map((t) => t.name),
    declarations: () => (declarations ??= deepFreeze(tools.map(modelDeclarationOf))),
    async prepareCall(name, args, env) {
      const tool = byName.get(name);
      if (!tool) throw new ToolFailure('not_found', unknownToolMessage(name, [...byName.keys()]));
      const input = args ?? {};
      const problems = (tool.checkArgs ?? compiledArgsCheck(tool.params))(input);
      if (problems !== undefined)
        throw new ToolFailure('invalid_args', `invalid arguments for ${tool.name}: ${problems}`);
      return await tool.prepare(input as never, env);
    },
  };
}

export function unknownToolMessage(name: string, known: readonly string[]): string {
  const near = suggestNames(name, known);
  const hint =
    near.length > 0 ? `; did you mean ${near.join(' or ')}?` : `; available tools: ${[...known].sort().join(', ')}`;
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

function modelDeclarationOf(t: Tool): FunctionDeclaration {
  const d = declarationOf(t);
  return { ...d, parametersJsonSchema: modelSchemaOf(d.parametersJsonSchema) as Record<string, unknown> };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export { createDefaultTools } from './default-tools.js';
