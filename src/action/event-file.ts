/**
 * The webhook payload the runner wrote to GITHUB_EVENT_PATH, read and checked by us before anything
 * touches `@actions/github` (whose `context` parses the same file the moment it is first loaded, and
 * dies with a stack trace on a broken one). A bad file is a value naming the file and the problem.
 */
import { readFile } from 'node:fs/promises';
import { messageOf } from '../common/errors.js';

export type EventFile = { ok: true; payload: Record<string, unknown> } | { ok: false; message: string };

/** Never throws. No GITHUB_EVENT_PATH at all (a local run with a `prompt`) is an empty payload. */
export async function readEventFile(path: string): Promise<EventFile> {
  if (!path) return { ok: true, payload: {} };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder' : `cannot be read (${messageOf(e)})`;
    return { ok: false, message: `the event payload file ${path} (GITHUB_EVENT_PATH) ${why}` };
  }
  return parseEventText(text, path);
}

/** Pure: the file's text to a payload object, or what is wrong with it. */
function parseEventText(text: string, path: string): EventFile {
  const problem = (what: string): EventFile => ({
    ok: false,
    message: `the event payload file ${path} (GITHUB_EVENT_PATH) ${what}`,
  });
  if (text.trim() === '')
    return problem(
      `is empty${text.length > 0 ? ' (only white space)' : ''}: expected the webhook event as a JSON object`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return problem(`is not valid JSON, truncated or corrupt (${messageOf(e)}; ${text.length} characters)`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return problem(
      `holds ${Array.isArray(value) ? 'a JSON array' : value === null ? 'JSON null' : `a JSON ${typeof value}`}: expected the webhook event as a JSON object`,
    );
  }
  return { ok: true, payload: value as Record<string, unknown> };
}
