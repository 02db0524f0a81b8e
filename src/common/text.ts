/**
 * Text on one line: every run of whitespace (newlines, tabs, Unicode spaces) becomes one space, the
 * ends are trimmed, and text longer than `max` characters ends in `…` within it. For titles,
 * labels and one-line summaries: a newline there would start a second line where one is expected
 * (a comment's list item, a pull request's title, a fenced field).
 */
export function oneLine(s: string, max = Infinity): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
