/**
 * The loop's events as ACP `session/update` notifications: text and thoughts as chunks, each tool
 * call as a `tool_call` that later `tool_call_update`s carry through its life (its kind, the files
 * it touches once they are checked to lie in the workspace, an edit's diff, its output).
 * Pure apart from the small table of calls it keeps, so one translator serves one prompt turn.
 */
import { join } from 'node:path';
import { oneLine } from '../../common/text.js';
import type {
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolKind as AcpToolKind,
} from '@agentclientprotocol/sdk';
import type { LoopEvent } from '../../core/events.js';
import type { FileDiff, ToolKind } from '../../tools/define-tool.js';
import { planUpdate } from './plan.js';

/** What the translator remembers of a call: the permission request and the result reuse it. */
export interface CallView {
  name: string;
  args: Record<string, unknown>;
  title: string;
  kind: AcpToolKind;
  locations: ToolCallLocation[];
  diff?: FileDiff;
}

export interface UpdateTranslator {
  updatesOf(e: LoopEvent): SessionUpdate[];
  callView(id: string): CallView | undefined;
}

/** Text a tool call shows in an editor, at most: the model gets the whole output regardless. */
const MAX_SHOWN_OUTPUT = 8000;

export const acpKindOf = (kind: ToolKind | undefined): AcpToolKind => kind ?? 'other';

/** A call's one-line title before it is prepared (and in a replayed session, where it never is). */
export function titleOfCall(name: string, args: Record<string, unknown>): string {
  if (typeof args.command === 'string') return `run \`${oneLine(args.command, 120)}\``;
  const path = args.file_path ?? args.dir_path ?? args.pattern;
  return typeof path === 'string' ? `${name} ${oneLine(path, 120)}` : name;
}

export const textContent = (text: string): ToolCallContent => ({ type: 'content', content: { type: 'text', text } });

/** Gemini CLI's diff content, its `_meta.kind` included (add, modify, delete). */
export const diffContent = (d: FileDiff): ToolCallContent => ({
  type: 'diff',
  path: d.path,
  oldText: d.oldText,
  newText: d.newText,
  _meta: { kind: !d.oldText ? 'add' : d.newText === '' ? 'delete' : 'modify' },
});

export function shownOutput(text: string): string {
  return text.length > MAX_SHOWN_OUTPUT
    ? `${text.slice(0, MAX_SHOWN_OUTPUT)}\n… [${text.length - MAX_SHOWN_OUTPUT} more characters went to the model]`
    : text;
}

/** Workspace-relative paths of a prepared call (already confined) as absolute locations. */
const locationsOf = (root: string, paths: readonly string[]): ToolCallLocation[] =>
  paths.map((p) => ({ path: p === '.' ? root : join(root, p) }));

export function createUpdateTranslator(o: {
  root: string;
  toolKind: (name: string) => ToolKind | undefined;
}): UpdateTranslator {
  const calls = new Map<string, CallView>();

  function updatesOf(e: LoopEvent): SessionUpdate[] {
    switch (e.type) {
      case 'message':
        // The client showed its own prompt; only the model's words stream back.
        return e.role === 'assistant' && e.text
          ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.text } }]
          : [];
      case 'thought':
        return e.text ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: e.text } }] : [];
      case 'tool_use': {
        const view: CallView = {
          name: e.name,
          args: e.args,
          title: titleOfCall(e.name, e.args),
          kind: acpKindOf(o.toolKind(e.name)),
          locations: [],
        };
        calls.set(e.id, view);
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: e.id,
            title: view.title,
            kind: view.kind,
            status: 'pending',
            rawInput: e.args,
          },
        ];
      }
      case 'tool_state':
        return stateUpdate(e);
      case 'tool_result':
        return [resultUpdate(e)];
      case 'todos':
        return [planUpdate(e.todos)];
      case 'warning':
        return [{ sessionUpdate: 'notice', severity: 'warning', title: e.message }];
      case 'retry':
        return [
          {
            sessionUpdate: 'notice',
            severity: 'info',
            title: `retrying the model request (${e.reason}), attempt ${e.attempt}, in ${Math.round(e.waitMs / 1000)} s`,
          },
        ];
      default:
        return []; // init, compressed, approval_request, result: the prompt's response says how it ended
    }
  }

  function stateUpdate(e: Extract<LoopEvent, { type: 'tool_state' }>): SessionUpdate[] {
    const view = calls.get(e.id);
    if (e.status === 'prepared' && view) {
      view.title = e.title ?? view.title;
      view.kind = acpKindOf(e.kind ?? o.toolKind(e.name));
      view.locations = locationsOf(o.root, e.paths ?? []);
      if (e.diff) view.diff = e.diff;
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: e.id,
          title: view.title,
          kind: view.kind,
          locations: view.locations,
        },
      ];
    }
    if (e.status === 'executing')
      return [{ sessionUpdate: 'tool_call_update', toolCallId: e.id, status: 'in_progress' }];
    return [];
  }

  function resultUpdate(e: Extract<LoopEvent, { type: 'tool_result' }>): SessionUpdate {
    const view = calls.get(e.id);
    const content: ToolCallContent[] =
      e.ok && view?.diff
        ? [diffContent(view.diff)]
        : [
            textContent(
              shownOutput(
                !e.ok ? (e.error?.message ?? e.output) : view?.kind === 'execute' ? e.output : (e.forHuman ?? e.output),
              ),
            ),
          ];
    return {
      sessionUpdate: 'tool_call_update',
      toolCallId: e.id,
      status: e.ok ? 'completed' : 'failed',
      content,
      rawOutput: { output: e.output, ...(e.error ? { error: e.error } : {}) },
    };
  }

  return { updatesOf, callView: (id) => calls.get(id) };
}
