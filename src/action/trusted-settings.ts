/**
 * A run's settings (context/run-settings.ts) in the Action: the trusted commit's
 * `.gemini/settings.json`, then the workflow's `settings` input, which ranks above it (the
 * workflow's own configuration). Never the work tree's file: an earlier step may have written one
 * (see uncommitted-settings.ts).
 */
import { join } from 'node:path';
import { readSettingsLayers, runSettingsOf, type RunSettings } from '../context/run-settings.js';
import { contextSettingsOf } from '../context/memory.js';
import type { ActionSettings } from './inputs.js';
import type { TrustedConfig } from './trusted-config.js';

/** The context file names the trusted snapshot copies: the input's, and the `settings` input's context.fileName. */
export function snapshotContextNames(s: Pick<ActionSettings, 'contextFileNames' | 'settingsInput'>): string[] {
  const fromSettings = s.settingsInput ? (contextSettingsOf(s.settingsInput, '').fileNames ?? []) : [];
  return [...new Set([...s.contextFileNames, ...fromSettings])];
}

export async function readTrustedSettings(
  config: TrustedConfig,
  settingsInput: Record<string, unknown> | undefined,
  warn: (message: string) => void,
): Promise<RunSettings> {
  const repo = await readSettingsLayers([
    {
      path: join(config.memoryRoot, '.gemini', 'settings.json'),
      label: `.gemini/settings.json${config.fromCommit ? ` (commit ${config.fromCommit.slice(0, 12)})` : ''}`,
      origin: 'repository',
    },
  ]);
  for (const w of repo.warnings) warn(w);
  return runSettingsOf([
    ...repo.layers,
    ...(settingsInput ? [{ label: "input 'settings'", origin: 'workflow' as const, value: settingsInput }] : []),
  ]);
}
