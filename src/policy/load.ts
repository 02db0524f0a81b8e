import { readFileSync, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentError, messageOf } from '../common/errors.js';
import { createPolicyEngine, placeRules } from './engine.js';
import { parsePolicyToml } from './load-toml.js';
import { formatDiagnostic, type Diagnostic, type Rule } from './rule.js';
import type { PolicyContext, PolicyEngine, TierName } from './types.js';

/**
 * A `.toml` file or a folder of them; inline TOML with a label for diagnostics; an optional path;
 * or rules already built (the ones settings imply, settings-policy.ts).
 */
export type PolicySource =
  | string
  | { inline: string; label: string }
  | { path: string; optional: true }
  | { rules: readonly Rule[]; label: string };

export interface LoadPolicyOptions {
  context: PolicyContext;
  tiers: Partial<Record<TierName, readonly PolicySource[]>>;
  /** Load the action's own `policies/*.toml` at the Default tier first (default true). */
  useBuiltinDefaults?: boolean;
  /** The workspace root, absolute: where shell redirections may write. */
  workspace?: string;
  /** Whether commands run in the OS sandbox (the runtime's probe): what `sandboxed` rules match on. */
  sandboxed?: PromiseLike<boolean>;
}

export interface LoadedPolicy {
  engine: PolicyEngine;
  warnings: Diagnostic[];
}

const TIER_ORDER: readonly TierName[] = ['default', 'extension', 'workspace', 'user', 'admin'];

/** Loads every tier, or throws AgentError('config') carrying every error found (warnings are not errors). */
export async function loadPolicyWithDiagnostics(opts: LoadPolicyOptions): Promise<LoadedPolicy> {
  // Stryker disable next-line ArrayDeclaration: equivalent; a first element that is not a diagnostic has no severity, so it is neither an error nor a warning
  const diagnostics: Diagnostic[] = [];
  const entries: Array<{ tier: TierName; rules: readonly Rule[] }> = [];
  if (opts.useBuiltinDefaults !== false) entries.push({ tier: 'default', rules: await readBuiltinRules() });
  for (const tier of TIER_ORDER) {
    for (const source of opts.tiers[tier] ?? []) entries.push({ tier, rules: await readRules(source, diagnostics) });
  }
  assertNoErrors(diagnostics);
  // The bash grammar is not loaded here: a decision on a shell command awaits it (see decide.ts).
  // Stryker disable next-line ConditionalExpression: equivalent; a workspace key holding undefined is read as no workspace
  const engine = createPolicyEngine(placeRules(entries), opts.context, {
    ...(opts.workspace !== undefined && { workspace: opts.workspace }),
    ...(opts.sandboxed && { sandboxed: opts.sandboxed }),
  });
  // Stryker disable next-line MethodExpression,ConditionalExpression: equivalent; any error has thrown above, so every diagnostic left is a warning
  return { engine, warnings: diagnostics.filter((d) => d.severity === 'warning') };
}

export async function loadPolicy(opts: LoadPolicyOptions): Promise<PolicyEngine> {
  return (await loadPolicyWithDiagnostics(opts)).engine;
}

/** Throws when any diagnostic is an error. */
function assertNoErrors(diagnostics: readonly Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw policyError('bad policy', errors);
}

/** The error for these problems: site = the first, details = all of them, formatted. */
function policyError(what: string, problems: readonly Diagnostic[]): AgentError {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new AgentError('config', `${what}: ${formatDiagnostic(first)}${more}`, {
    site: { file: first.file, line: first.line, column: first.column },
    details: problems.map(formatDiagnostic),
  });
}

/** Every rule of a source's files, in order; what is wrong with them goes to `diagnostics`. */
async function readRules(source: PolicySource, diagnostics: Diagnostic[]): Promise<Rule[]> {
  if (typeof source !== 'string' && 'rules' in source) return [...source.rules];
  const rules: Rule[] = [];
  for (const file of await readSource(source, diagnostics)) {
    const parsed = parsePolicyToml(file.text, file.label);
    diagnostics.push(...parsed.diagnostics);
    rules.push(...parsed.rules);
  }
  return rules;
}

/** The built-in rules, read once per process (per folder); a failed read is tried again next time. */
const builtinCache = new Map<string, Promise<readonly Rule[]>>();

/**
 * The action's own policies/*.toml, read as any policy folder is, once per process. They ship
 * clean and never empty, so a diagnostic in them (a warning too) or a folder without rules is a
 * broken install, and the error names the file and line: the run stops as for a bad policy file.
 */
export function readBuiltinRules(dir: string = builtinPoliciesDir()): Promise<readonly Rule[]> {
  let rules = builtinCache.get(dir);
  if (!rules) {
    rules = readBuiltinFolder(dir);
    builtinCache.set(dir, rules);
    rules.catch(() => builtinCache.delete(dir));
  }
  return rules;
}

async function readBuiltinFolder(dir: string): Promise<readonly Rule[]> {
  const diagnostics: Diagnostic[] = [];
  const rules = await readRules(dir, diagnostics);
  if (rules.length === 0 && diagnostics.length === 0)
    diagnostics.push({ severity: 'error', file: dir, line: 0, column: 0, message: 'holds no rules' });
  if (diagnostics.length > 0)
    throw policyError("agent-action's own policies are broken (reinstall the action)", diagnostics);
  return rules;
}

interface SourceFile {
  label: string;
  text: string;
}

async function readSource(
  source: Exclude<PolicySource, { rules: readonly Rule[] }>,
  diagnostics: Diagnostic[],
): Promise<SourceFile[]> {
  if (typeof source !== 'string' && 'inline' in source) return [{ label: source.label, text: source.inline }];
  const path = typeof source === 'string' ? source : source.path;
  const optional = typeof source !== 'string';
  const problem = (message: string) => {
    diagnostics.push({ severity: 'error', file: path, line: 0, column: 0, message });
    return [];
  };
  try {
    const info = await stat(path);
    if (info.isFile()) return [{ label: path, text: await readFile(path, 'utf8') }];
    if (!info.isDirectory()) return problem('not a file or a folder');
    // Sorted by name so load order, and with it tie-breaking, does not depend on the file system.
    // Stryker disable next-line MethodExpression: equivalent under Node, whose readdir (libuv scandir) already lists names sorted; the sort keeps that a guarantee
    const names = (await readdir(path, { withFileTypes: true }))
      .filter((e) => e.isFile() && e.name.endsWith('.toml'))
      .map((e) => e.name)
      .sort();
    return Promise.all(names.map(async (n) => ({ label: join(path, n), text: await readFile(join(path, n), 'utf8') })));
  } catch (e) {
    if (optional && (e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return problem(`cannot read policy: ${messageOf(e)}`);
  }
}

/**
 * The action's shipped `policies/` folder: the nearest one beside the running file or in a folder
 * above it, up to the package.json named agent-action, never past it. The build copies the files
 * into dist/ (beside dist/index.js; dist/cli/ shares them); from src/policy/ (tests, tsx) it is the
 * checkout's own policies/.
 */
export function builtinPoliciesDir(from: string = fileURLToPath(import.meta.url)): string {
  const here = dirname(from);
  const folders: string[] = [];
  for (let dir = here; ; dir = dirname(dir)) {
    folders.push(dir);
    if (tryPackageName(join(dir, 'package.json')) === 'agent-action') break;
    if (dirname(dir) === dir) throw noPolicies(here);
  }
  const found = folders.map((dir) => join(dir, 'policies')).find(isFolder);
  if (found === undefined) throw noPolicies(here);
  return found;
}

const noPolicies = (here: string) =>
  new AgentError('config', `cannot find agent-action's policies/ folder above ${here}`);

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function tryPackageName(pkg: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name;
    // Stryker disable next-line ConditionalExpression: equivalent; the only caller compares the name with a string, which no other type equals
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
