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

export async function readCliExtensions(o: CliExtensionsOptions): Promise<ExtensionSettings> {
  const home = homedir();
  const pass = await readCliPassEnv(o.env, home);
  const settings = await readExtensionSettings({
    files: [
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
    ],
    ...(o.allowedNames && { allowedNames: o.allowedNames }),
    env: { ...commandEnvOf(o.env, o.secrets), ...pass.env },
  });
  return { ...settings, warnings: [...pass.warnings, ...settings.warnings] };
}
