/**
 * Git's rules for a branch name, as `git check-ref-format --branch` applies them (git's
 * Documentation/git-check-ref-format.txt), written once so an input is refused before any git runs
 * with it: a name git would refuse fails the push at the end of a run, after the model's work.
 */

/** Pure: why `name` is not a branch name git accepts, or undefined when it is one. */
export function whyNotBranchName(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name.startsWith('-')) return 'it starts with "-"';
  if (name === 'HEAD' || name === '@') return `"${name}" names no branch`;
  // Control characters, space and the characters revision syntax gives a meaning.
  const bad = /[\x00-\x20\x7f~^:?*[\\]/.exec(name);
  if (bad) return `it contains ${describeChar(bad[0])}`;
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name.startsWith('/') || name.endsWith('/')) return 'it starts or ends with "/"';
  if (name.includes('//')) return 'it contains "//"';
  if (name.endsWith('.')) return 'it ends with "."';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return `its part "${part}" starts with "."`;
    if (part.endsWith('.lock')) return `its part "${part}" ends with ".lock"`;
  }
  return undefined;
}

const describeChar = (c: string): string => {
  if (c === ' ') return 'a space';
  const code = c.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `a control character (U+${code.toString(16).padStart(4, '0')})` : `"${c}"`;
};
