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
  /** What is wrong with a file that is there but unusable (and where), for a face that stops on it. */
  error?: string;
  warnings: string[];
}

export async function readSettingsFile(path: string, label: string = path): Promise<SettingsFile> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch {
    return { warnings: [] };
  }
  const parsed = parseSettingsText(raw);
  if ('error' in parsed)
    return { error: parsed.error, warnings: [`${label}: ${parsed.error}; its settings are ignored`] };
  return { value: parsed.value, warnings: [] };
}

/**
 * Pure: settings text to an object, or what is wrong with it and where (line and column, counted
 * in the text as written: comments are blanked, not cut, so positions stay those of the input).
 */
export function parseSettingsText(raw: string): { value: Record<string, unknown> } | { error: string } {
  const text = stripJsonComments(raw);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `not valid JSON: ${describeJsonError(messageOf(e), text)}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { error: 'must hold a JSON object (such as {"tools": {"core": ["read_file"]}})' };
  return { value: json as Record<string, unknown> };
}

/** V8's message without its echo of the text, with the line and column where the text stops being JSON. */
function describeJsonError(message: string, text: string): string {
  const what = message
    .split('\n')[0]!
    .replace(/, "[\s\S]*" is not valid JSON$/, '')
    .replace(/\s*in JSON at position \d+.*$/, '')
    .replace(/^Unexpected token '(.)'$/, "unexpected '$1'");
  const before = text.slice(0, errorOffset(text)).split('\n');
  return `${what.charAt(0).toLowerCase()}${what.slice(1)} at line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/**
 * Where JSON.parse gives up: the longest prefix whose only fault is ending early (V8 names no
 * position for an unexpected token). A binary search over prefixes, a few dozen parses at most.
 */
function errorOffset(text: string): number {
  const endsEarly = (k: number): boolean => {
    try {
      JSON.parse(text.slice(0, k));
      return true;
    } catch (e) {
      const m = messageOf(e);
      const at = /at position (\d+)/.exec(m);
      return at ? Number(at[1]) >= k : /end of JSON input|Unterminated string/i.test(m);
    }
  };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (endsEarly(mid)) lo = mid;
    else hi = mid - 1;
  }
  // The fault is the first character after the longest prefix that only ends early.
  return Math.min(lo, text.length);
}

/** Blanks // and /* *\/ comments and trailing commas outside strings (newlines kept, so positions stay). */
export function stripJsonComments(src: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return src
    .replace(/("(?:[^"\\\n]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m, str: string | undefined) => str ?? blank(m))
    .replace(
      /("(?:[^"\\\n]|\\.)*")|,(\s*[}\]])/g,
      (m, str: string | undefined, close: string | undefined) => str ?? ` ${close!}`,
    );
}
