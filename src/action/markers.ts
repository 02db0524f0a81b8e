/**
 * Hidden markers in the action's own comments. Every comment the action posts carries one, so a
 * comment containing `<!-- agent-action` never triggers a run (the action cannot talk to itself),
 * and later runs can find their own comments (the progress comment, an approval request).
 */
const MARKER_PREFIX = '<!-- agent-action';

/** `<!-- agent-action:progress run=123 -->`; values must not contain `--` or `>`. */
export function formatMarker(kind: string, fields: Record<string, string> = {}): string {
  const attrs = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${v.replace(/--|>|\s/g, '_')}`)
    .join('');
  return `${MARKER_PREFIX}:${kind}${attrs} -->`;
}

export const hasActionMarker = (body: string | null | undefined): boolean => (body ?? '').includes(MARKER_PREFIX);

/** Reads the first marker of `kind` in a body, or undefined. */
export function tryParseMarker(body: string, kind: string): Record<string, string> | undefined {
  const re = new RegExp(`${MARKER_PREFIX}:${kind.replace(/[^\w-]/g, '')}((?: [\\w-]+=[^\\s>]*)*) -->`);
  const m = re.exec(body);
  if (!m) return undefined;
  const fields: Record<string, string> = {};
  for (const pair of m[1].trim().split(' ').filter(Boolean)) {
    const eq = pair.indexOf('=');
    fields[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return fields;
}
