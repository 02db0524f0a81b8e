/**
 * Where a comment addresses the agent when the trigger may stand anywhere (`trigger-anywhere`):
 * the first trigger word in the comment's own prose, found with a CommonMark parser (mdast), not
 * with patterns. Code (fenced, indented, inline), quotes (`>` lines, which is how GitHub's "Quote
 * reply" and e-mail replies carry someone else's words) and raw HTML (comments included) are never
 * a mention: a quoted `/agent fix` is the other person's request, a code sample is not a request.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';

/** What the walk reads of an mdast node. */
interface Walked {
  type: string;
  children?: Walked[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** Nodes whose text is never the commenter's request. */
const NOT_PROSE = new Set(['code', 'inlineCode', 'blockquote', 'html', 'definition']);

/**
 * The offset in `body` where the first prose mention of `trigger` starts (the trigger standing as a
 * word: white space or the text's edge on both sides), or undefined.
 */
export function findProseMention(body: string, trigger: string): number | undefined {
  if (!trigger) return undefined;
  const tree = fromMarkdown(body) as unknown as Walked;
  return firstIn(tree, body, trigger);
}

function firstIn(node: Walked, body: string, trigger: string): number | undefined {
  if (NOT_PROSE.has(node.type)) return undefined;
  if (node.type === 'text') return mentionInText(node, body, trigger);
  for (const child of node.children ?? []) {
    const at = firstIn(child, body, trigger);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** Searches the text node's source (not its decoded value), so the offset is the body's own. */
function mentionInText(node: Walked, body: string, trigger: string): number | undefined {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return undefined;
  const source = body.slice(start, end).toLowerCase();
  const word = trigger.toLowerCase();
  for (let i = source.indexOf(word); i >= 0; i = source.indexOf(word, i + 1)) {
    // A text node's edges are word edges: markup (`**`, a link's bracket) or a block's start is around it.
    const before = i === 0 ? '' : source[i - 1];
    const after = source[i + word.length] ?? '';
    if ((before === '' || /\s/.test(before)) && (after === '' || /\s/.test(after))) return start + i;
  }
  return undefined;
}
