/**
 * Where the CLI finds MCP servers and hooks: as Gemini CLI does, the user's `~/.gemini/settings.json`
 * and the project's `.gemini/settings.json` (the project's wins server by server; hooks of both
 * run). The project's file only in a trusted folder (folder-trust.ts): a work tree from elsewhere
 * starts no server and runs no hook. `$VAR` in a server's `env` and `headers` resolves from the
 * environment every command gets (the allow-list and what the user's settings pass: command-env.ts),
 * as in the Action.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentOptions } from '../compose/agent-options.js';
import { readSettingsLayers, runSettingsOf } from '../context/run-settings.js';
import { readExtensionSettings, type ExtensionSettings } from '../core/settings-extensions.js';
import { commandEnvOf } from '../sandbox/command-env.js';
import { readCliPassEnv } from './command-env.js';

export interface CliExtensionsOptions {
  root: string;
  /** The project's folder is trusted (folder-trust.ts): only then is its settings.json read. */
  trusted: boolean;
  env: Readonly<Record<string, string | undefined>>;
  secrets: readonly string[];
  allowedNames?: readonly string[];
}

/** The CLI's settings scopes, as Gemini CLI reads them: the user's file, then the project's (in a trusted folder). */
async function readCliSettings(o: Pick<CliExtensionsOptions, 'root' | 'trusted'>) {
  const home = homedir();
  const read = await readSettingsLayers([
    { path: join(home, '.gemini', 'settings.json'), label: '~/.gemini/settings.json', origin: 'user' },
    ...(o.trusted
      ? [
          {
            path: join(o.root, '.gemini', 'settings.json'),
            label: '.gemini/settings.json',
            origin: 'repository' as const,
          },
        ]
      : []),
  ]);
  return { settings: { ...runSettingsOf(read.layers), alsoHonoured: CLI_HONOURED }, warnings: read.warnings };
}

/** What the CLI reads from the user's file itself (command-env.ts, folder-trust.ts). */
const CLI_HONOURED = ['security.environmentVariableRedaction.allowed', 'security.folderTrust.enabled'];

export async function readCliExtensions(
  o: CliExtensionsOptions,
): Promise<ExtensionSettings & { settings: AgentOptions['settings'] }> {
  const home = homedir();
  const pass = await readCliPassEnv(o.env, home);
  const { settings: scopes, warnings } = await readCliSettings(o);
  const settings = readExtensionSettings({
    layers: scopes.layers,
    ...(o.allowedNames && { allowedNames: o.allowedNames }),
    env: { ...commandEnvOf(o.env, o.secrets), ...pass.env },
  });
  return { ...settings, settings: scopes, warnings: [...warnings, ...pass.warnings, ...settings.warnings] };
}
