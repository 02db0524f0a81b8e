/**
 * What the CLI passes to commands, hooks and MCP servers beyond the allow-list
 * (sandbox/command-env.ts): the variables the user's `~/.gemini/settings.json` names in
 * `security.environmentVariableRedaction.allowed`, Gemini CLI's setting for variables its
 * redaction lets through. Only the user's file: a project's `.gemini/settings.json` comes with the
 * folder (a clone of someone else's repository) and must not widen what its own commands see.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readSettingsFile } from '../context/settings-file.js';
import { whyNotPassable } from '../sandbox/command-env.js';

const LABEL = '~/.gemini/settings.json security.environmentVariableRedaction.allowed';

export interface CliPassEnv {
  env: Record<string, string>;
  warnings: string[];
}

export async function readCliPassEnv(
  env: Readonly<Record<string, string | undefined>>,
  home: string = homedir(),
): Promise<CliPassEnv> {
  const file = await readSettingsFile(join(home, '.gemini', 'settings.json'), '~/.gemini/settings.json');
  const security = file.value?.security as { environmentVariableRedaction?: { allowed?: unknown } } | undefined;
  return passEnvOf(security?.environmentVariableRedaction?.allowed, env, file.warnings);
}

/** Pure: the named variables that are set, with a warning for each name that is not a name or may not pass. */
export function passEnvOf(
  allowed: unknown,
  env: Readonly<Record<string, string | undefined>>,
  warnings: readonly string[] = [],
): CliPassEnv {
  const out: CliPassEnv = { env: {}, warnings: [...warnings] };
  if (allowed === undefined) return out;
  if (!Array.isArray(allowed))
    return { ...out, warnings: [...out.warnings, `${LABEL}: must be a list of variable names; ignored`] };
  for (const name of allowed) {
    const why = typeof name === 'string' ? whyNotPassable(name) : 'is not a string';
    if (why) out.warnings.push(`${LABEL}: ${JSON.stringify(name)} ${why}; ignored`);
    else if (env[name as string] !== undefined) out.env[name as string] = env[name as string]!;
  }
  return out;
}
