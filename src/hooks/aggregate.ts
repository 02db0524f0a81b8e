/**
 * Several hooks' answers to one event as one, by Gemini CLI's HookAggregator rules. Pure.
 * - BeforeTool, AfterTool, BeforeAgent, AfterAgent, SessionStart: any `deny`/`block` blocks (an
 *   `ask` asks, when nothing blocks), `continue: false` anywhere stops, reasons, system messages
 *   and `additionalContext` are joined by newlines, other hook-specific fields: the later wins.
 *   One difference: BeforeTool's `tool_input` rewrites are merged in order (each hook's fields over
 *   the previous ones), as the hooks reference says ("merges with and overrides"), where Gemini CLI
 *   keeps only the last hook's object.
 * - BeforeModel, AfterModel: field by field (hook-specific fields too), the later wins.
 * - BeforeToolSelection: `NONE` anywhere wins, then `ANY`, else `AUTO`; function names are united.
 * - The rest: the later answer's top-level fields win.
 */
import type { HookEvent } from './config.js';
import type { HookOutput } from './run-hook.js';

export interface MergedOutput extends HookOutput {
  /** BeforeTool: the arguments' rewrites, merged in order. */
  toolInput?: Record<string, unknown>;
}

const OR_EVENTS: ReadonlySet<HookEvent> = new Set([
  'BeforeTool',
  'AfterTool',
  'BeforeAgent',
  'AfterAgent',
  'SessionStart',
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isBlocking = (d: unknown) => d === 'deny' || d === 'block';

export function mergeHookOutputs(event: HookEvent, outputs: readonly HookOutput[]): MergedOutput | undefined {
  if (outputs.length === 0) return undefined;
  if (OR_EVENTS.has(event)) return mergeWithOr(outputs);
  if (event === 'BeforeToolSelection') return mergeToolSelection(outputs);
  let merged: MergedOutput = {};
  if (event === 'BeforeModel' || event === 'AfterModel') {
    for (const o of outputs)
      merged = {
        ...merged,
        ...o,
        hookSpecificOutput: {
          ...merged.hookSpecificOutput,
          ...(isRecord(o.hookSpecificOutput) ? o.hookSpecificOutput : {}),
        },
      };
  } else for (const o of outputs) merged = { ...merged, ...o };
  return merged;
}

function mergeWithOr(outputs: readonly HookOutput[]): MergedOutput {
  const merged: MergedOutput = { continue: true, suppressOutput: false };
  const stops: string[] = [];
  const reasons: string[] = [];
  const messages: string[] = [];
  const contexts: string[] = [];
  let blocked = false;
  let specific: Record<string, unknown> | undefined;
  for (const o of outputs) {
    if (o.continue === false) {
      merged.continue = false;
      if (typeof o.stopReason === 'string') stops.push(o.stopReason);
    }
    if (isBlocking(o.decision)) {
      blocked = true;
      merged.decision = o.decision;
    } else if (o.decision === 'ask' && !blocked) merged.decision = 'ask';
    if (typeof o.reason === 'string' && o.reason) reasons.push(o.reason);
    if (typeof o.systemMessage === 'string' && o.systemMessage) messages.push(o.systemMessage);
    if (o.suppressOutput) merged.suppressOutput = true;
    const hs = isRecord(o.hookSpecificOutput) ? o.hookSpecificOutput : undefined;
    if (!hs) continue;
    specific = { ...specific, ...hs };
    if (typeof hs.additionalContext === 'string') contexts.push(hs.additionalContext);
    if (isRecord(hs.tool_input)) merged.toolInput = { ...merged.toolInput, ...hs.tool_input };
  }
  if (merged.decision === undefined && merged.continue !== false) merged.decision = 'allow';
  if (stops.length) merged.stopReason = stops.join('\n');
  if (reasons.length) merged.reason = reasons.join('\n');
  if (messages.length) merged.systemMessage = messages.join('\n');
  if (specific || contexts.length)
    merged.hookSpecificOutput = { ...specific, ...(contexts.length && { additionalContext: contexts.join('\n') }) };
  return merged;
}

function mergeToolSelection(outputs: readonly HookOutput[]): MergedOutput {
  let none = false;
  let any = false;
  const names = new Set<string>();
  for (const o of outputs) {
    const tc =
      isRecord(o.hookSpecificOutput) && isRecord(o.hookSpecificOutput.toolConfig)
        ? o.hookSpecificOutput.toolConfig
        : undefined;
    if (!tc) continue;
    if (tc.mode === 'NONE') none = true;
    else if (tc.mode === 'ANY') any = true;
    if (Array.isArray(tc.allowedFunctionNames))
      for (const n of tc.allowedFunctionNames) if (typeof n === 'string') names.add(n);
  }
  const mode = none ? 'NONE' : any ? 'ANY' : 'AUTO';
  return {
    hookSpecificOutput: {
      hookEventName: 'BeforeToolSelection',
      toolConfig: { mode, allowedFunctionNames: none ? [] : [...names].sort() },
    },
  };
}

/** Gemini CLI's getEffectiveReason. */
export const effectiveReason = (o: HookOutput) => o.stopReason || o.reason || 'No reason provided';

/** Gemini CLI's getAdditionalContext: the text, with `<` and `>` escaped so it cannot close the fence it goes in. */
export function additionalContextOf(o: HookOutput | undefined): string | undefined {
  const c = isRecord(o?.hookSpecificOutput) ? o.hookSpecificOutput.additionalContext : undefined;
  return typeof c === 'string' && c ? c.replace(/</g, '&lt;').replace(/>/g, '&gt;') : undefined;
}
