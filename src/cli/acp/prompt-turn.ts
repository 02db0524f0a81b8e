/**
 * The two ends of an ACP prompt turn: the editor's content blocks as the model's text, and the
 * loop's outcome as the turn's stop reason (or a JSON-RPC error). Pure.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RequestError, type ContentBlock, type PromptResponse } from '@agentclientprotocol/sdk';
import type { Outcome } from '../../core/events.js';
import { isModelFailure } from '../../model/client.js';

/** How the turn ended, in ACP's terms; an error ends the request with a JSON-RPC error. */
export function responseOf(outcome: Outcome): PromptResponse {
  switch (outcome.status) {
    case 'success':
    case 'awaiting_approval':
      return { stopReason: 'end_turn' };
    case 'cancelled':
      return { stopReason: 'cancelled' };
    case 'limit':
      return { stopReason: outcome.which === 'tokens' ? 'max_tokens' : 'max_turn_requests' };
    case 'error': {
      const cause = outcome.error.cause;
      if (isModelFailure(cause) && cause.kind === 'safety') return { stopReason: 'refusal' };
      if (outcome.error.kind === 'auth') throw new RequestError(-32000, outcome.error.message);
      throw new RequestError(-32603, outcome.error.message);
    }
  }
}

/**
 * The prompt's blocks as the model's text: text as it is, a linked file by its path (the model
 * reads it with its tools), an embedded resource with its content, as Gemini CLI quotes it.
 */
export function promptText(blocks: readonly ContentBlock[], root: string): string {
  const parts: string[] = [];
  const embedded: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`@${pathOf(b.uri, root)}`);
    else if (b.type === 'resource' && 'text' in b.resource)
      embedded.push(`Content from @${pathOf(b.resource.uri, root)}:\n${b.resource.text}`);
    else
      parts.push(
        `[${b.type === 'resource' ? 'a binary resource' : `an ${b.type}`} was attached; this agent reads text only]`,
      );
  }
  const text = parts.join(' ').trim();
  return embedded.length
    ? `${text}\n--- Content from referenced files ---\n${embedded.join('\n\n')}\n--- End of content ---`
    : text;
}

/** A file URI inside the workspace as a workspace-relative path; anything else as given. */
function pathOf(uri: string, root: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    const abs = fileURLToPath(uri);
    return uri.startsWith(pathToFileURL(`${root}/`).href) ? abs.slice(root.length + 1) : abs;
  } catch {
    return uri;
  }
}
