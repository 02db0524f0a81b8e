/**
 * Exact string replacement, pure. Never fuzzy: a miss or an ambiguity is an answer that tells the
 * model how many matches there were and where, so its next attempt can be exact.
 */
export type ReplaceResult =
  { ok: true; text: string; count: number } | { ok: false; code: 'invalid_args' | 'failed'; message: string };

export interface ReplaceRequest {
  oldString: string;
  newString: string;
  /** Exactly this many occurrences must exist; undefined with `all`: any number >= 1. */
  expected?: number;
  all?: boolean;
}

export function applyReplacement(rel: string, text: string, req: ReplaceRequest): ReplaceResult {
  const { oldString, newString } = req;
  if (oldString === '')
    return {
      ok: false,
      code: 'invalid_args',
      message: `old_string is empty but ${rel} exists; use write_file to rewrite a whole file`,
    };
  if (oldString === newString)
    return { ok: false, code: 'invalid_args', message: 'old_string and new_string are identical; nothing to change' };
  const at = findOccurrences(text, oldString);
  if (at.length === 0) return { ok: false, code: 'failed', message: missMessage(rel, text, oldString) };
  const expected = req.expected ?? (req.all ? undefined : 1);
  if (expected !== undefined && at.length !== expected) {
    const lines = at.slice(0, 10).map((i) => lineOf(text, i));
    const where = `line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}${at.length > 10 ? ', …' : ''}`;
    const fix =
      at.length > expected
        ? `include more surrounding lines in old_string so it matches exactly ${expected === 1 ? 'one place' : `${expected} places`}, or set expected_replacements to ${at.length} to change them all`
        : `set expected_replacements to ${at.length}, or check old_string`;
    return {
      ok: false,
      code: 'failed',
      message: `old_string occurs ${at.length} times in ${rel} (${where}) but ${expected} replacement${expected === 1 ? ' was' : 's were'} expected; ${fix}. Nothing was changed.`,
    };
  }
  return { ok: true, text: replaceAt(text, at, { len: oldString.length, replacement: newString }), count: at.length };
}

/** Start offsets of non-overlapping occurrences, left to right. */
function findOccurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** Spliced by offsets, not String.replace: `$&` and friends in new_string stay literal. */
function replaceAt(text: string, at: number[], { len, replacement }: { len: number; replacement: string }): string {
  let out = '';
  let last = 0;
  for (const i of at) {
    out += text.slice(last, i) + replacement;
    last = i + len;
  }
  return out + text.slice(last);
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * A miss explained: where the first line of old_string appears when whitespace is ignored, so the
 * model can re-read those lines. It is a hint only; nothing is applied from it.
 */
function missMessage(rel: string, text: string, oldString: string): string {
  const base = `old_string was not found in ${rel}; it must match the file exactly, including whitespace and indentation. Nothing was changed.`;
  const first = oldString
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim();
  if (!first) return base;
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const want = squash(first);
  const hits: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (hits.length < 5 && squash(line).includes(want)) hits.push(i + 1);
  });
  if (hits.length === 0)
    return `${base} Its first line does not appear either; read_file the file again before retrying.`;
  return `${base} Its first line (ignoring whitespace) appears at line${hits.length > 1 ? 's' : ''} ${hits.join(', ')}; read_file those lines and copy them exactly.`;
}
