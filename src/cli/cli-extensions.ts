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
import { AgentError } from '../common/errors.js';
import { loadCommands } from '../commands/load-commands.js';
import type { AgentOptions } from '../compose/agent-options.js';
import { readSettingsLayers, runSettingsOf } from '../context/run-settings.js';
import { readGeminiExtensions, type GeminiExtension } from '../core/gemini-extensions.js';
import { readExtensionSettings, type ExtensionSettings } from '../core/settings-extensions.js';
import { expandVariables } from '../tools/mcp/env-expand.js';
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
  // As Gemini CLI: a settings file that is there but does not parse stops the run (exit 52), named
  // with its line, rather than running without the limits and exclusions it was meant to set.
  if (read.broken.length)
    throw new AgentError(
      'config',
      `${read.broken.map((b) => `${b.path}: ${b.error}`).join('\n')}\nPlease fix the configuration file(s) and try again.`,
      { site: { file: read.broken[0]!.path } },
    );
  return { settings: { ...runSettingsOf(read.layers), alsoHonoured: CLI_HONOURED }, warnings: read.warnings };
}

/** What the CLI reads from the user's file itself (command-env.ts, folder-trust.ts). */
const CLI_HONOURED = ['security.environmentVariableRedaction.allowed', 'security.folderTrust.enabled'];

export interface CliExtensions extends ExtensionSettings {
  /** Gemini CLI extensions: `~/.gemini/extensions/*`, then (trusted folder only) the project's `.gemini/extensions/*`. */
  extensions: GeminiExtension[];
  settings: AgentOptions['settings'];
}

export async function readCliExtensions(o: CliExtensionsOptions): Promise<CliExtensions> {
  const home = homedir();
  // Settings first: a broken file stops the run before anything else reads (and warns about) it.
  const { settings: scopes, warnings } = await readCliSettings(o);
  const pass = await readCliPassEnv(o.env, home);
  const env = { ...commandEnvOf(o.env, o.secrets), ...pass.env };
  const gemini = await readGeminiExtensions(
    [
      { dir: join(home, '.gemini', 'extensions'), label: '~/.gemini/extensions', origin: 'user' },
      ...(o.trusted
        ? [{ dir: join(o.root, '.gemini', 'extensions'), label: '.gemini/extensions', origin: 'repository' as const }]
        : []),
    ],
    { workspace: o.root, expand: (v) => expandVariables(v, env).value },
  );
  const settings = readExtensionSettings({
    layers: scopes.layers,
    extensions: gemini.extensions,
    ...(o.allowedNames && { allowedNames: o.allowedNames }),
    env,
  });
  return {
    ...settings,
    extensions: gemini.extensions,
    settings: scopes,
    warnings: [...warnings, ...pass.warnings, ...gemini.warnings, ...settings.warnings],
  };
}

/**
 * The CLI's custom commands, in Gemini CLI's folders: `~/.gemini/commands`, the project's
 * `.gemini/commands` (a trusted folder only; it wins by name), then each extension's `commands/`.
 */
export function readCliCommands(o: { root: string; trusted: boolean; extensions: readonly GeminiExtension[] }) {
  return loadCommands([
    { dir: join(homedir(), '.gemini', 'commands'), source: 'user', label: '~/.gemini/commands' },
    ...(o.trusted
      ? [{ dir: join(o.root, '.gemini', 'commands'), source: 'project' as const, label: '.gemini/commands' }]
      : []),
    ...o.extensions.map((e) => ({
      dir: join(e.path, 'commands'),
      source: 'extension' as const,
      label: `${e.label}/commands`,
      extension: e.name,
    })),
  ]);
}
