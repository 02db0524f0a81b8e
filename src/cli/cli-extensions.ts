/**
 * Where the CLI finds MCP servers and hooks: as Gemini CLI does, the user's `~/.gemini/settings.json`
 * and the project's `.gemini/settings.json` (the project's wins server by server; hooks of both
 * run). The project's file only in a trusted folder (folder-trust.ts): a work tree from elsewhere
 * starts no server and runs no hook. `$VAR` in a server's
 * `env` and `headers` resolves from the scrubbed environment (no credentials), as in the Action.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readExtensionSettings, type ExtensionSettings } from '../core/settings-extensions.js';
import { scrubEnv } from '../tools/shell-env.js';

export interface CliExtensionsOptions {
  root: string;
  /** The project's folder is trusted (folder-trust.ts): only then is its settings.json read. */
  trusted: boolean;
  env: Readonly<Record<string, string | undefined>>;
  secrets: readonly string[];
  allowedNames?: readonly string[];
}

export function readCliExtensions(o: CliExtensionsOptions): Promise<ExtensionSettings> {
  const home = homedir();
  let scrubbed: Record<string, string> | undefined;
  return readExtensionSettings({
    files: [
      { path: join(home, '.gemini', 'settings.json'), label: '~/.gemini/settings.json', origin: 'user' },
      ...(o.trusted ? [{ path: join(o.root, '.gemini', 'settings.json'), label: '.gemini/settings.json', origin: 'repository' as const }] : []),
    ],
    ...(o.allowedNames && { allowedNames: o.allowedNames }),
    // Scrubbed when a `$VAR` is first expanded: most runs configure no MCP server, and the secret
    // patterns' first use (their compilation) is otherwise on the way to the first request.
    get env() {
      return (scrubbed ??= scrubEnv(o.env, o.secrets));
    },
  });
}
