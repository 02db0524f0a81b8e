/**
 * Gemini CLI's settings.json as a value: JSON with comments and trailing commas, as Gemini CLI
 * accepts it. One reader for everything that steers a run from it (context file names, MCP
 * servers, hooks); a missing file is normal, a broken one is a warning that names the file.
 */
import { readFile } from 'node:fs/promises';
import { messageOf } from '../common/errors.js';

export interface SettingsFile {
  /** The parsed object; undefined when the file is absent or unusable. */
  value?: Record<string, unknown>;
  warnings: string[];
}

export async function readSettingsFile(path: string, label: string = path): Promise<SettingsFile> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch {
    return { warnings: [] };
  }
  return parseSettingsText(raw, label);
}

/** Pure: settings text to an object, or a warning that says what is wrong. */
function parseSettingsText(raw: string, label: string): SettingsFile {
  let json: unknown;
  try {
    json = JSON.parse(stripJsonComments(raw));
  } catch (e) {
    return { warnings: [`${label}: not valid JSON (${messageOf(e)}); its settings are ignored`] };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { warnings: [`${label}: must hold a JSON object; its settings are ignored`] };
  return { value: json as Record<string, unknown>, warnings: [] };
}

/** Removes // and /* *\/ comments and trailing commas outside strings. */
export function stripJsonComments(src: string): string {
  return src
    .replace(/("(?:[^"\\\n]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m, str: string | undefined) => str ?? '')
    .replace(
      /("(?:[^"\\\n]|\\.)*")|,(\s*[}\]])/g,
      (m, str: string | undefined, close: string | undefined) => str ?? close!,
    );
}
