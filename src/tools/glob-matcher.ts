import { RE2JS } from 're2js';
import { ToolFailure } from './define-tool.js';
import { GlobSyntaxError, translateGlob } from './glob-pattern.js';

/**
 * A pattern without a slash matches a file name at any depth (`*.ts`), as the model usually means;
 * one with a slash matches the path from the search directory. A leading `!` negates. Matching
 * runs in RE2 (linear time): see glob-pattern.ts. A pattern it cannot take is `invalid_args`.
 */
export function createGlobMatcher(pattern: string, caseSensitive: boolean): (rel: string) => boolean {
  let clean = pattern.startsWith('./') ? pattern.slice(2) : pattern;
  const negate = clean.startsWith('!') && !clean.startsWith('!(');
  if (negate) clean = clean.slice(1);
  let source: string;
  try {
    source = translateGlob(clean, 'glob');
  } catch (e) {
    if (e instanceof GlobSyntaxError)
      throw new ToolFailure('invalid_args', `glob pattern ${JSON.stringify(pattern)}: ${e.message}`);
    throw e;
  }
  const anchored = clean.includes('/') ? `^(?:${source})$` : `^(?:.*/)?(?:${source})$`;
  const re = RE2JS.compile(anchored, (caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE) | RE2JS.DOTALL);
  const mustEnd = literalTail(clean, caseSensitive);
  return (rel) => (mustEnd && !mustEnd(rel) ? negate : re.test(rel) !== negate);
}

/**
 * A quick reject before RE2 (most paths of a tree fail `**\/*.ts` at their last characters): the
 * pattern's ASCII literal tail, which every matching path ends with. Case-insensitive, RE2 folds
 * some non-ASCII letters to ASCII ones (`ſ` to `s`, the Kelvin sign to `k`), so a path whose tail
 * is not ASCII always goes to RE2.
 */
function literalTail(pattern: string, caseSensitive: boolean): ((rel: string) => boolean) | undefined {
  const tail = /[^\\*?[\]{}()!+@|]*$/.exec(pattern)![0];
  if (tail === '' || !/^[\x20-\x7e]+$/.test(tail)) return undefined;
  if (caseSensitive) return (rel) => rel.endsWith(tail);
  const lower = tail.toLowerCase();
  return (rel) => {
    const end = rel.slice(-tail.length);
    return end.toLowerCase() === lower || !/^[\x20-\x7e]*$/.test(end);
  };
}
