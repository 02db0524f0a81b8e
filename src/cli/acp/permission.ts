/**
 * The scheduler's ApprovalChannel over ACP: a call policy asks about becomes a live
 * `session/request_permission` (allow once, allow always, reject: Gemini CLI's options and ids);
 * the model's own question (`ask_user`) becomes a form (`elicitation/create`) when the editor offers
 * one, else a permission request whose options are the question's choices. Nothing suspends: the
 * editor answers, or the prompt is cancelled and the call with it.
 */
import {
  RequestError,
  type AgentContext,
  type PermissionOption,
  type ToolCallContent,
  type ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { messageOf } from '../../common/errors.js';
import type { ApprovalAnswer, ApprovalChannel, PendingApproval } from '../../scheduler/types.js';
import { diffContent, textContent, type CallView } from './updates.js';

/** Gemini CLI's option ids (its ToolConfirmationOutcome values), so clients keyed on them work. */
const ALLOW_ALWAYS = 'proceed_always';
const ALLOW_ONCE = 'proceed_once';
const REJECT = 'cancel';

const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: ALLOW_ALWAYS, name: 'Allow for this session', kind: 'allow_always' },
  { optionId: ALLOW_ONCE, name: 'Allow', kind: 'allow_once' },
  { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
];

const NO_ANSWER = 'no-answer';
const REJECTED_REASON = 'the user rejected it in the editor';
const UNANSWERABLE =
  'this editor cannot take a typed answer (it offers no forms). Make the most reasonable assumption, say which one you made, and go on.';

export interface AcpChannelOptions {
  client: AgentContext;
  sessionId: string;
  /** What the update stream knows of the call (title, kind, locations, diff); absent for a call asked again after a reload. */
  callView(id: string): CallView | undefined;
  /** The running prompt's signal: cancelling the prompt withdraws the question. */
  signal(): AbortSignal;
  /** The client renders `elicitation/create` forms. */
  forms: boolean;
}

export function createAcpChannel(o: AcpChannelOptions): ApprovalChannel {
  // Cancelling the prompt sends $/cancel_request and stops waiting for an answer at once.
  const options = () => ({ cancellationSignal: o.signal(), stopWaitingOnCancel: true });

  function toolCallOf(p: PendingApproval): ToolCallUpdate {
    const view = o.callView(p.id);
    const content: ToolCallContent[] = view?.diff
      ? [diffContent(view.diff)]
      : p.preview
        ? [textContent(p.preview)]
        : [];
    return {
      toolCallId: p.id,
      title: view?.title ?? p.title,
      kind: view?.kind ?? 'other',
      status: 'pending',
      locations: view?.locations ?? [],
      content,
      rawInput: p.args,
    };
  }

  async function approve(p: PendingApproval): Promise<ApprovalAnswer> {
    const r = await o.client.request(
      'session/request_permission',
      { sessionId: o.sessionId, toolCall: toolCallOf(p), options: [...PERMISSION_OPTIONS] },
      options(),
    );
    if (r.outcome.outcome !== 'selected') return { id: p.id, kind: 'deny', reason: 'the prompt was cancelled' };
    if (r.outcome.optionId === ALLOW_ALWAYS) return { id: p.id, kind: 'approve', always: true };
    if (r.outcome.optionId === ALLOW_ONCE) return { id: p.id, kind: 'approve' };
    return { id: p.id, kind: 'deny', reason: REJECTED_REASON };
  }

  async function ask(p: PendingApproval): Promise<ApprovalAnswer> {
    const q = p.question!;
    if (o.forms) {
      const answer = q.choices?.length
        ? { type: 'string' as const, title: 'Answer', oneOf: q.choices.map((c) => ({ const: c, title: c })) }
        : { type: 'string' as const, title: 'Answer', description: q.question };
      const r = await o.client.request(
        'elicitation/create',
        {
          mode: 'form',
          sessionId: o.sessionId,
          toolCallId: p.id,
          message: q.question,
          requestedSchema: { type: 'object', properties: { answer }, required: ['answer'] },
        },
        options(),
      );
      const text =
        r.action === 'accept' ? (r as { content?: Record<string, unknown> | null }).content?.answer : undefined;
      return typeof text === 'string' && text.trim()
        ? { id: p.id, kind: 'answer', text }
        : { id: p.id, kind: 'deny', reason: `the user did not answer (${r.action})` };
    }
    if (!q.choices?.length) return { id: p.id, kind: 'deny', reason: UNANSWERABLE };
    // No forms: the choices become the options of a permission request, the way a picker shows them.
    const choices: PermissionOption[] = q.choices.map((c, i) => ({
      optionId: `choice-${i + 1}`,
      name: c,
      kind: 'allow_once',
    }));
    const r = await o.client.request(
      'session/request_permission',
      {
        sessionId: o.sessionId,
        toolCall: { ...toolCallOf(p), title: q.question, content: [textContent(q.question)] },
        options: [...choices, { optionId: NO_ANSWER, name: "Don't answer", kind: 'reject_once' }],
      },
      options(),
    );
    const picked =
      r.outcome.outcome === 'selected'
        ? choices.find((c) => c.optionId === (r.outcome as { optionId: string }).optionId)
        : undefined;
    return picked
      ? { id: p.id, kind: 'answer', text: picked.name }
      : { id: p.id, kind: 'deny', reason: 'the user chose not to answer' };
  }

  return {
    async decide(p) {
      try {
        return await (p.question ? ask(p) : approve(p));
      } catch (e) {
        // Cancelled (-32800) or the editor went away: the call does not run, and the model is told why.
        const why =
          e instanceof RequestError && e.code === -32800
            ? 'the prompt was cancelled'
            : `the editor did not answer (${messageOf(e)})`;
        return { id: p.id, kind: 'deny', reason: why };
      }
    },
  };
}
