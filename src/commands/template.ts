/**
 * A command's template split into its pieces, left to right, in one pass: plain text, `@{path}`
 * (a file's content) and `!{command}` (a command's output). The content of an injection runs to
 * its matching `}`, braces counted (Gemini CLI's rule: `!{echo '{"a": 1}'}` is one command; an
 * unbalanced one is an error). Unlike Gemini CLI, which runs its `@{}` pass and then its `!{}` and
 * `{{args}}` pass over the result, nothing injected is scanned again: a file that holds `!{...}`
 * or `{{args}}` is text, never a command, and `!{cat @{x}}` runs `cat @{x}` as written.
 */
import { AgentError } from '../common/errors.js';

export type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'file'; path: string; raw: string }
  | { kind: 'shell'; command: string; raw: string };

export const ARGS_PLACEHOLDER = '{{args}}';

/** Pure. Throws AgentError('config') naming the command for an injection that never closes. */
export function parseTemplate(template: string, commandLabel: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  for (;;) {
    const start = nextTrigger(template, at);
    if (start === -1) break;
    const end = closingBrace(template, start + 2);
    if (end === -1)
      throw new AgentError(
        'config',
        `${commandLabel}: the injection '${template.slice(start, start + 2)}' at offset ${start} never closes; braces inside @{...} and !{...} must balance`,
      );
    if (start > at) pieces.push({ kind: 'text', text: template.slice(at, start) });
    const raw = template.slice(start, end + 1);
    const content = template.slice(start + 2, end).trim();
    pieces.push(
      template[start] === '@' ? { kind: 'file', path: content, raw } : { kind: 'shell', command: content, raw },
    );
    at = end + 1;
  }
  if (at < template.length) pieces.push({ kind: 'text', text: template.slice(at) });
  return pieces;
}

function nextTrigger(s: string, from: number): number {
  const a = s.indexOf('@{', from);
  const b = s.indexOf('!{', from);
  if (a === -1) return b;
  if (b === -1) return a;
  return Math.min(a, b);
}

/** The index of the `}` that closes a brace opened just before `from`, or -1. */
function closingBrace(s: string, from: number): number {
  let depth = 1;
  for (let i = from; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** What the person typed after the command's name, as Gemini CLI splits it. */
export interface Invocation {
  name: string;
  /** The words after the name, joined by single spaces (Gemini CLI collapses the whitespace between them). */
  args: string;
  /** The whole invocation as typed, `/name args`: appended to a template without `{{args}}`. */
  raw: string;
}

/** Pure: `/git:commit fix the bug` (or `git:commit fix the bug`) as an invocation; undefined when there is no name. */
export function parseInvocation(text: string): Invocation | undefined {
  const trimmed = text.trim();
  const body = trimmed.startsWith('/') ? trimmed.slice(1).trim() : trimmed;
  const words = body.split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  return { name: words[0], args: words.slice(1).join(' '), raw: trimmed.startsWith('/') ? trimmed : `/${trimmed}` };
}

/** Pure: a POSIX shell word that is exactly `s` (single quotes; an inner `'` as `'\''`). Empty stays empty, as in Gemini CLI. */
export function shellEscape(s: string): string {
  return s === '' ? '' : `'${s.replace(/'/g, `'\\''`)}'`;
}
