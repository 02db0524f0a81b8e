/**
 * An MCP `CallToolResult` as the model and a person see it, following Gemini CLI's
 * transformMcpContentToParts and convertToFunctionResponse: text blocks (fenced as untrusted, as
 * Gemini CLI fences them), images as inline data beside the response with a line that names them,
 * audio and video left out with a note (the API does not take them in a function response),
 * embedded resources as their text (or, for images and PDFs, their data), resource links as a
 * line. Ours in addition: `structuredContent` is shown as JSON unless a text block already carries
 * it, the text is cut like the shell tool's output (head and tail) and secrets are redacted.
 * `isError` makes the result a tool error the model sees.
 */
import { stableStringify } from '../../common/json.js';
import type { ToolMedia, ToolOutput } from '../define-tool.js';
import { oneLine, redactSecrets } from '../tool-output.js';

/** The text the model gets from one call, at most (head and tail kept). */
export const MAX_MCP_TEXT_CHARS = 32 * 1024;
/** Inline data (base64 characters) per call, at most; more is left out with a note. */
export const MAX_MCP_MEDIA_CHARS = 4 * 1024 * 1024;

/** The part of the SDK's CallToolResult this module reads (kept loose: servers send what they send). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

interface Rendered {
  texts: string[];
  /** The same texts without the fences, for people. */
  plain: string[];
  media: ToolMedia[];
  notes: string[];
}

export function toolOutputOf(toolName: string, r: McpCallResult, secrets: readonly string[]): ToolOutput {
  const out: Rendered = { texts: [], plain: [], media: [], notes: [] };
  const blocks = Array.isArray(r.content) ? r.content : [];
  for (const block of blocks) renderBlock(toolName, block, out);
  const structured = r.structuredContent;
  if (structured !== undefined && structured !== null && !blocks.some((b) => carriesJson(b, structured))) {
    push(out, `Structured content:\n${JSON.stringify(structured, null, 2)}`);
  }
  if (!Array.isArray(r.content) && structured === undefined) out.notes.push('[Error: Could not parse tool response]');
  fitMedia(out);
  const text = cut(redactSecrets([...out.texts, ...out.notes].join('\n'), secrets));
  const plain = redactSecrets([...out.plain, ...out.notes].join(' '), secrets);
  const media = out.media.length ? { media: out.media } : {};
  if (r.isError === true || r.isError === 'true') {
    const message = `MCP tool '${toolName}' reported an error: ${text || '(no message)'}`;
    return { forModel: message, forHuman: oneLine(`error: ${plain}`), error: { code: 'failed', message }, ...media };
  }
  const human = out.media.length ? `${oneLine(plain, 120)} (+${out.media.length} inline ${out.media.length === 1 ? 'item' : 'items'})` : oneLine(plain);
  return { forModel: text || '(no output)', forHuman: human || '(no output)', ...media };
}

function renderBlock(toolName: string, block: unknown, out: Rendered): void {
  if (typeof block !== 'object' || block === null) return;
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      if (typeof b.text === 'string') push(out, b.text, true);
      return;
    case 'image':
    case 'audio':
      addData(toolName, String(b.type), b.mimeType, b.data, out);
      return;
    case 'resource': {
      const res = (b.resource ?? {}) as Record<string, unknown>;
      if (typeof res.text === 'string') push(out, res.text, true);
      else if (typeof res.blob === 'string') addData(toolName, 'embedded resource', res.mimeType ?? 'application/octet-stream', res.blob, out);
      return;
    }
    case 'resource_link':
      push(out, `Resource Link: ${String(b.title ?? b.name ?? '')} at ${String(b.uri ?? '')}`);
      return;
    default:
      out.notes.push(`[Unknown content type: ${String(b.type)}]`);
  }
}

function addData(toolName: string, what: string, mimeType: unknown, data: unknown, out: Rendered): void {
  const mime = typeof mimeType === 'string' && mimeType ? mimeType : 'application/octet-stream';
  if (typeof data !== 'string' || data === '') return;
  if (!/^(image\/|application\/pdf$)/.test(mime)) {
    out.notes.push(`[SYSTEM: Binary content (${mime}) stripped from response due to protocol limitations.]`);
    return;
  }
  push(out, `[Tool '${toolName}' provided the following ${what} data with mime-type: ${mime}]`);
  out.media.push({ mimeType: mime, data });
}

function push(out: Rendered, text: string, untrusted = false): void {
  out.texts.push(untrusted ? fenceUntrusted(text) : text);
  out.plain.push(text);
}

/** Inline data beyond the budget is dropped, last first, and the model is told. */
function fitMedia(out: Rendered): void {
  let total = out.media.reduce((n, m) => n + m.data.length, 0);
  while (total > MAX_MCP_MEDIA_CHARS && out.media.length > 0) {
    const dropped = out.media.pop()!;
    total -= dropped.data.length;
    out.notes.push(`[${dropped.mimeType} data of ${Math.round((dropped.data.length * 3) / 4 / 1024)} KB left out: a call may return at most ${MAX_MCP_MEDIA_CHARS / 1024 / 1024} MB of inline data]`);
  }
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
