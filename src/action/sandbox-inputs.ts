/**
 * The sandbox's two inputs beside `sandbox` and `sandbox-network`: `sandbox-env`, the variables of
 * the step's environment the workflow passes to commands (everything else stays out: see
 * sandbox/command-env.ts), and `sandbox-limits`, what bounds each call (sandbox/bounds.ts).
 */
import { DEFAULT_BOUNDS, type ProcessBounds } from '../sandbox/bounds.js';
import { whyNotPassable } from '../sandbox/command-env.js';
import { isSecretName } from '../tools/shell-env.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Pure: the names of `sandbox-env` (commas, spaces or lines between them), or what is wrong with one. */
export function parseSandboxEnvNames(raw: string): { names: string[] } | { error: string } {
  const names = [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
  for (const name of names) {
    const why = whyNotPassable(name);
    if (why) return { error: `${name} ${why}` };
  }
  return { names };
}

/**
 * The values of `sandbox-env`'s variables (parseInputs checked the names), read from the step's
 * environment now, before the action clears its secrets from it. A value holding one of the run's
 * own credentials is refused; a value under a credential's name joins the secrets (masked, redacted
 * wherever it would be posted). An unset variable is left out.
 */
export function resolveSandboxEnv(
  raw: string,
  env: Env,
  credentials: readonly string[],
): { env: Record<string, string>; secrets: string[]; problems: string[] } {
  const parsed = parseSandboxEnvNames(raw);
  const names = 'names' in parsed ? parsed.names : [];
  const out: Record<string, string> = {};
  const secrets: string[] = [];
  const problems: string[] = [];
  const own = credentials.filter((c) => c.length >= 8);
  for (const name of names) {
    const value = env[name];
    if (value === undefined) continue;
    if (own.some((c) => value.includes(c))) {
      problems.push(`${name} holds a secret input's value or a runner token; commands never get those`);
      continue;
    }
    out[name] = value;
    if (isSecretName(name) && value.length >= 8) secrets.push(value);
  }
  return { env: out, secrets, problems };
}

const SIZE = /^(\d+)([KMGT]?)$/i;
const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Each key of `sandbox-limits`: its field, its range and how a value reads. */
const LIMIT_KEYS = {
  processes: { field: 'processes', min: 64, max: 1_000_000, sized: false, unlimited: false },
  memory: { field: 'memoryBytes', min: 2 * 1024 ** 3, max: 1024 ** 4, sized: true, unlimited: true },
  'file-size': { field: 'fileSizeBytes', min: 1024 ** 2, max: 1024 ** 5, sized: true, unlimited: true },
  'open-files': { field: 'openFiles', min: 64, max: 1_048_576, sized: false, unlimited: true },
} as const;

/**
 * Pure: `processes=1024 memory=8G file-size=1G open-files=8192` (any of them, spaces or commas
 * between), each key not given keeping its default; `unlimited` lifts all but the process bound.
 */
export function parseSandboxLimits(raw: string): { bounds: ProcessBounds } | { error: string } {
  const bounds: ProcessBounds = { ...DEFAULT_BOUNDS };
  for (const item of raw.split(/[\s,]+/).filter(Boolean)) {
    const [key, value = ''] = item.split('=', 2);
    const spec = LIMIT_KEYS[key as keyof typeof LIMIT_KEYS];
    if (!spec) return { error: `'${key}' is not a limit (processes, memory, file-size, open-files)` };
    if (value === 'unlimited' && spec.unlimited) {
      delete (bounds as unknown as Record<string, unknown>)[spec.field];
      continue;
    }
    const m = SIZE.exec(value);
    const n = m && (spec.sized || m[2] === '') ? Number(m[1]) * UNITS[m[2].toUpperCase()] : NaN;
    if (!(n >= spec.min && n <= spec.max))
      return { error: `${key}=${value}: expected ${rangeOf(spec)}${spec.unlimited ? ' or unlimited' : ''}` };
    (bounds as unknown as Record<string, number>)[spec.field] = n;
  }
  return { bounds };
}

const rangeOf = (s: (typeof LIMIT_KEYS)[keyof typeof LIMIT_KEYS]) =>
  s.sized
    ? `a size from ${sizeText(s.min)} to ${sizeText(s.max)} (K, M, G, T)`
    : `a whole number from ${s.min} to ${s.max}`;

const sizeText = (n: number) => {
  const unit = ['T', 'G', 'M', 'K'].find((u) => n % UNITS[u] === 0 && n >= UNITS[u]) ?? '';
  return `${n / UNITS[unit]}${unit}`;
};
