import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentError, messageOf } from '../common/errors.js';
import { BUILTIN_RULES } from './builtin-rules.generated.js';
import { createPolicyEngine, placeRules } from './engine.js';
import { formatDiagnostic, type Diagnostic, type Rule } from './rule.js';
import type { PolicyContext, PolicyEngine, TierName } from './types.js';

/** A `.toml` file or a folder of them; inline TOML with a label for diagnostics; or an optional path. */
export type PolicySource = string | { inline: string; label: string } | { path: string; optional: true };

export interface LoadPolicyOptions {
  context: PolicyContext;
  tiers: Partial<Record<TierName, readonly PolicySource[]>>;
  /** Load the action's own `policies/*.toml` at the Default tier first (default true). */
  useBuiltinDefaults?: boolean;
  /** The workspace root, absolute: where shell redirections may write. */
  workspace?: string;
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
  const entries: Array<{ tier: TierName; rules: Rule[] }> = [];
  for (const tier of TIER_ORDER) {
    if (tier === 'default' && opts.useBuiltinDefaults !== false) entries.push(...builtinEntries(tier));
    for (const source of opts.tiers[tier] ?? []) {
      for (const file of await readSource(source, diagnostics)) {
        const { parsePolicyToml } = await loadTomlParser();
        const parsed = parsePolicyToml(file.text, file.label);
        diagnostics.push(...parsed.diagnostics);
        entries.push({ tier, rules: parsed.rules });
      }
    }
  }
  assertNoErrors(diagnostics);
  // The bash grammar is not loaded here: engine.prepare loads it with the first shell command.
  // Stryker disable next-line ConditionalExpression: equivalent; a workspace key holding undefined is read as no workspace
  const engine = createPolicyEngine(placeRules(entries), opts.context, { ...(opts.workspace !== undefined && { workspace: opts.workspace }) });
  // Stryker disable next-line MethodExpression,ConditionalExpression: equivalent; any error has thrown above, so every diagnostic left is a warning
  return { engine, warnings: diagnostics.filter((d) => d.severity === 'warning') };
}

export async function loadPolicy(opts: LoadPolicyOptions): Promise<PolicyEngine> {
  return (await loadPolicyWithDiagnostics(opts)).engine;
}

/** Throws when any diagnostic is an error: site = the first, details = all of them, formatted. */
function assertNoErrors(diagnostics: readonly Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return;
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new AgentError('config', `bad policy: ${formatDiagnostic(first)}${more}`, {
    site: { file: first.file, line: first.line, column: first.column },
    details: errors.map(formatDiagnostic),
  });
}

interface SourceFile {
  label: string;
  text: string;
}

async function readSource(source: PolicySource, diagnostics: Diagnostic[]): Promise<SourceFile[]> {
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
 * The TOML side of the loader (smol-toml and the rule checks), imported with the first policy file
 * read from disk: a run with only the built-in defaults (builtinEntries) never needs it.
 */
let tomlParser: Promise<typeof import('./load-toml.js')> | undefined;
const loadTomlParser = () => (tomlParser ??= import('./load-toml.js'));

/**
 * The action's own policies/*.toml (at the Default tier), file by file, as the loader would read them,
 * from the rules generated from those files at build time (builtin-rules.generated.ts; a test fails
 * while it is stale): no TOML parsed. Each rule names its file's path, as a rule read from it would.
 */
function builtinEntries(tier: TierName): Array<{ tier: TierName; rules: Rule[] }> {
  const dir = builtinPoliciesDir();
  return BUILTIN_RULES.map(({ file, rules }) => ({ tier, rules: rules.map((r) => ({ ...r, source: join(dir, file) })) }));
}

/**
 * The action's shipped `policies/` folder: the one beside the package.json named agent-action, found by
 * walking up from this file. That holds for src/policy/ (tests, tsx) and for dist/ and dist/cli/ (bundles).
 */
export function builtinPoliciesDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && tryPackageName(pkg) === 'agent-action') return join(dir, 'policies');
    const up = dirname(dir);
    if (up === dir) throw new AgentError('config', `cannot find agent-action's policies/ folder above ${dirname(from)}`);
    dir = up;
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
