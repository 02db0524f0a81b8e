/**
 * One run's settings as one value: Gemini CLI's settings.json scopes, lowest precedence first (the
 * CLI: the user's file, then the project's; the Action: the trusted commit's `.gemini/settings.json`,
 * then the workflow's `settings` input), deep-merged as Gemini CLI merges scopes (a later scope's
 * value replaces an earlier one's; objects merge key by key; `mcpServers` merges server by server;
 * `tools.exclude` is the union; hook event lists concatenate). Every reader of settings gets this
 * value: `merged` for what is read as one value, `layers` where the scope matters (the policy tier a
 * settings rule sits in, where an MCP server's `$VAR`s come from).
 */
import { readSettingsFile } from './settings-file.js';

/** Who wrote a scope: the repository (its trusted commit), the person at the terminal, or the workflow. */
type SettingsOrigin = 'repository' | 'user' | 'workflow';

export interface SettingsLayer {
  /** For messages: `.gemini/settings.json`, `~/.gemini/settings.json`, `input 'settings'`. */
  label: string;
  origin: SettingsOrigin;
  value: Readonly<Record<string, unknown>>;
}

export interface RunSettings {
  /** Lowest precedence first. */
  layers: readonly SettingsLayer[];
  merged: Readonly<Record<string, unknown>>;
}

export interface SettingsFileSource {
  path: string;
  label: string;
  origin: SettingsOrigin;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Gemini CLI's merge strategies (settingsSchema.ts `mergeStrategy`) for the paths that have one; the rest replace. */
const SHALLOW = new Set(['mcpServers']);
const UNION = new Set([
  'tools.exclude',
  'context.fileFiltering.customIgnoreFilePaths',
  'advanced.excludedEnvVars',
  'extensions.disabled',
  'skills.disabled',
  'hooksConfig.disabled',
]);
const isConcat = (path: string) => path === 'context.includeDirectories' || /^hooks\.[^.]+$/.test(path);

/** Pure: the layers as Gemini CLI's customDeepMerge merges them. Inputs are not changed. */
export function mergeSettingsLayers(values: ReadonlyArray<Readonly<Obj>>): Obj {
  const out: Obj = {};
  for (const v of values) mergeInto(out, v, '');
  return out;
}

function mergeInto(target: Obj, source: Readonly<Obj>, at: string): void {
  for (const [key, value] of Object.entries(source)) {
    // JSON.parse makes __proto__ an own key: never merge it into an object.
    if (key === '__proto__' || key === 'constructor' || key === 'prototype' || value === undefined) continue;
    const path = at ? `${at}.${key}` : key;
    const old = target[key];
    if (SHALLOW.has(path) && isObj(old) && isObj(value)) target[key] = { ...old, ...value };
    else if (Array.isArray(old) && (UNION.has(path) || isConcat(path))) {
      const joined = old.concat(Array.isArray(value) ? value : [value]);
      target[key] = UNION.has(path) ? [...new Set(joined)] : joined;
    } else if (isObj(value)) {
      const into: Obj = isObj(old) ? old : {};
      target[key] = into;
      mergeInto(into, value, path);
    } else target[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
}

export function runSettingsOf(layers: readonly SettingsLayer[]): RunSettings {
  return { layers, merged: mergeSettingsLayers(layers.map((l) => l.value)) };
}

/**
 * Reads each file (a missing one is no layer; a broken one a warning that names it, and listed in
 * `broken` for a face that stops on it), lowest precedence first.
 */
export async function readSettingsLayers(
  files: readonly SettingsFileSource[],
): Promise<{ layers: SettingsLayer[]; warnings: string[]; broken: Array<SettingsFileSource & { error: string }> }> {
  const layers: SettingsLayer[] = [];
  const warnings: string[] = [];
  const broken: Array<SettingsFileSource & { error: string }> = [];
  for (const f of files) {
    const file = await readSettingsFile(f.path, f.label);
    warnings.push(...file.warnings);
    if (file.error !== undefined) broken.push({ ...f, error: file.error });
    if (file.value) layers.push({ label: f.label, origin: f.origin, value: file.value });
  }
  return { layers, warnings, broken };
}

/**
 * The settings agent-action acts on: a path covers everything under it. Everything else in a
 * settings value is named in one warning (unusedSettingsWarning).
 */
export const HONOURED_SETTINGS: readonly string[] = [
  '$schema',
  'mcpServers',
  'mcp.allowed',
  'mcp.excluded',
  'hooks',
  'model.skipNextSpeakerCheck',
  'model.maxSessionTurns',
  'agents.overrides',
  'context.fileName',
  'tools.core',
  'tools.exclude',
  'tools.allowed',
];

/** Pure: the settings a value sets (its leaves, arrays whole) that none of `honoured` covers, in order. */
export function unusedSettingsPaths(value: Readonly<Obj>, honoured: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (obj: Readonly<Obj>, at: string) => {
    for (const [key, v] of Object.entries(obj)) {
      const path = at ? `${at}.${key}` : key;
      if (honoured.some((h) => h === path || path.startsWith(`${h}.`))) continue;
      if (isObj(v) && Object.keys(v).length > 0) walk(v, path);
      else out.push(path);
    }
  };
  walk(value, '');
  return out;
}

/**
 * One warning for every layer's settings that agent-action does not act on, each path with the
 * scope that set it; undefined when every key is honoured.
 */
export function unusedSettingsWarning(
  layers: readonly SettingsLayer[],
  honoured: readonly string[] = HONOURED_SETTINGS,
): string | undefined {
  const named = layers.flatMap((l) => unusedSettingsPaths(l.value, honoured).map((p) => `${p} (${l.label})`));
  if (named.length === 0) return undefined;
  return `settings agent-action does not use, ignored: ${named.join(', ')}. It acts on ${honoured.filter((h) => h !== '$schema').join(', ')}.`;
}
