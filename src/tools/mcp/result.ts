/**
 * An MCP `CallToolResult` as the model and a person see it, following Gemini CLI step by step
 * (transformMcpContentToParts, then convertToFunctionResponse): text blocks fenced as untrusted,
 * an image as a line that names it plus inline data beside the response, audio and video left out
 * with a note, an embedded resource as its text (or data), a resource link as a line, unknown
 * blocks dropped; the texts joined by newlines; only binary content: "Binary content provided".
 *
 * Where we differ, on purpose: `isError` gives the model the server's text (Gemini CLI gives the
 * whole response as JSON); inline data other than images and PDFs is left out with a note (the API
 * refuses arbitrary types); `structuredContent` is shown as JSON unless a text block already
 * carries it (Gemini CLI drops it); the text is cut like the shell tool's output (head and tail);
 * secrets are redacted.
 */
import { stableStringify } from '../../common/json.js';
import type { ToolMedia, ToolOutput } from '../define-tool.js';
import { oneLine } from '../../common/text.js';
import { HUMAN_LINE } from '../tool-output.js';
import { redactSecrets } from '../../common/redact.js';

/** The text the model gets from one call, at most (head and tail kept). */
const MAX_MCP_TEXT_CHARS = 32 * 1024;
/** Inline data (base64 characters) per call, at most; more is left out with a note. */
const MAX_MCP_MEDIA_CHARS = 4 * 1024 * 1024;

/** The part of the SDK's CallToolResult this module reads (kept loose: servers send what they send). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/** One of Gemini CLI's intermediate parts: text (and its unfenced form for people) or inline data. */
type Piece = { text: string; plain: string } | { data: ToolMedia };

/** `serverTool`: the tool's name on its server (Gemini CLI names that one in its notes). */
export function toolOutputOf(serverTool: string, r: McpCallResult, secrets: readonly string[]): ToolOutput {
  const blocks = Array.isArray(r.content) ? r.content : undefined;
  const pieces = blocks
    ? blocks.flatMap((b) => piecesOf(serverTool, b))
    : [{ text: '[Error: Could not parse tool response]', plain: '(an unreadable response)' }];
  const structured = r.structuredContent;
  if (structured !== undefined && structured !== null && !(blocks ?? []).some((b) => carriesJson(b, structured))) {
    const json = `Structured content:\n${JSON.stringify(structured, null, 2)}`;
    if (!blocks || blocks.length === 0) pieces.splice(0, pieces.length);
    pieces.push({ text: json, plain: json });
  }
  const texts: string[] = [];
  const plain: string[] = [];
  const media: ToolMedia[] = [];
  const unsupported = new Set<string>();
  for (const p of pieces) {
    if ('text' in p) {
      texts.push(p.text);
      plain.push(p.plain);
    } else if (/^(image\/|application\/pdf$)/.test(p.data.mimeType)) media.push(p.data);
    else unsupported.add(p.data.mimeType);
  }
  if (unsupported.size > 0)
    texts.unshift(
      `[SYSTEM: Binary content (${[...unsupported].join(', ')}) stripped from response due to protocol limitations.]`,
    );
  const dropped = fitMedia(media);
  if (dropped) texts.push(dropped);
  const joined =
    texts.length === 0 && media.length > 0 ? `Binary content provided (${media.length} item(s)).` : texts.join('\n');
  const text = cut(redactSecrets(joined, secrets));
  const human = redactSecrets(plain.join(' '), secrets);
  const withMedia = media.length ? { media } : {};
  if (r.isError === true || r.isError === 'true') {
    const message = `MCP tool '${serverTool}' reported an error: ${text || '(no message)'}`;
    return {
      forModel: message,
      forHuman: oneLine(`error: ${human}`, HUMAN_LINE),
      error: { code: 'failed', message },
      ...withMedia,
    };
  }
  const forHuman = media.length
    ? `${oneLine(human, 120)} (+${media.length} inline ${media.length === 1 ? 'item' : 'items'})`
    : oneLine(human, HUMAN_LINE);
  return { forModel: text || '(no output)', forHuman: forHuman || '(no output)', ...withMedia };
}

function piecesOf(serverTool: string, block: unknown): Piece[] {
  if (typeof block !== 'object' || block === null) return [];
  const b = block as Record<string, unknown>;
  const say = (t: string): Piece => ({ text: t, plain: t });
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? [{ text: fenceUntrusted(b.text), plain: b.text }] : [];
    case 'image':
    case 'audio': {
      const mime = String(b.mimeType);
      return [
        say(`[Tool '${serverTool}' provided the following ${String(b.type)} data with mime-type: ${mime}]`),
        ...dataPiece(mime, b.data),
      ];
    }
    case 'resource': {
      const res = (b.resource ?? {}) as Record<string, unknown>;
      if (typeof res.text === 'string' && res.text) return [{ text: fenceUntrusted(res.text), plain: res.text }];
      if (typeof res.blob === 'string' && res.blob) {
        const mime = typeof res.mimeType === 'string' && res.mimeType ? res.mimeType : 'application/octet-stream';
        return [
          say(`[Tool '${serverTool}' provided the following embedded resource with mime-type: ${mime}]`),
          ...dataPiece(mime, res.blob),
        ];
      }
      return [];
    }
    case 'resource_link':
      return [say(`Resource Link: ${String(b.title || b.name)} at ${String(b.uri)}`)];
    default:
      return [];
  }
}

const dataPiece = (mimeType: string, data: unknown): Piece[] =>
  typeof data === 'string' ? [{ data: { mimeType, data } }] : [];

/** Inline data beyond the budget is dropped, last first; returns the note for the model. */
function fitMedia(media: ToolMedia[]): string | undefined {
  let total = media.reduce((n, m) => n + m.data.length, 0);
  const dropped: string[] = [];
  while (total > MAX_MCP_MEDIA_CHARS && media.length > 0) {
    const m = media.pop()!;
    total -= m.data.length;
    dropped.push(`${m.mimeType} (${Math.round((m.data.length * 3) / 4 / 1024)} KB)`);
  }
  return dropped.length
    ? `[Inline data left out: ${dropped.join(', ')}; a call may return at most ${MAX_MCP_MEDIA_CHARS / 1024 / 1024} MB of it]`
    : undefined;
}

/** Gemini CLI's wrapUntrusted: what a server returns is data, never instructions. */
function fenceUntrusted(text: string): string {
  return `<untrusted_context>\n${text.replaceAll('</untrusted_context>', '&lt;/untrusted_context&gt;')}\n</untrusted_context>`;
}

function carriesJson(block: unknown, structured: unknown): boolean {
  const b = block as { type?: unknown; text?: unknown } | null;
  if (!b || b.type !== 'text' || typeof b.text !== 'string') return false;
  try {
    return stableStringify(JSON.parse(b.text)) === stableStringify(structured);
  } catch {
    return false;
  }
}

/** Head and tail of a long text, with what was left out in between. */
function cut(text: string): string {
  if (text.length <= MAX_MCP_TEXT_CHARS) return text;
  const half = Math.floor(MAX_MCP_TEXT_CHARS / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n[... ${omitted} characters in the middle were omitted: the result exceeded ${MAX_MCP_TEXT_CHARS / 1024} KB. Ask the tool for less (a narrower query, a page) if you need them.]\n${text.slice(-half)}`;
}
