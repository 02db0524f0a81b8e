/**
 * The model's plan (write_todos) as ACP's `plan` session update: every entry with its status, the
 * whole list each time (the client replaces its plan with each update). ACP knows three statuses;
 * `blocked` shows as pending (not being worked on), and a cancelled item is left out, because it
 * is no longer part of the plan and ACP has no way to mark it so. Gemini CLI's own ACP server sends
 * no plan for write_todos, so this mapping is ours. Pure.
 */
import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Todo } from '../../tools/builtin/write-todos.js';

export function planUpdate(todos: readonly Todo[]): SessionUpdate {
  return { sessionUpdate: 'plan', entries: todos.flatMap(entryOf) };
}

function entryOf(t: Todo): PlanEntry[] {
  if (t.status === 'cancelled') return [];
  const status = t.status === 'blocked' ? 'pending' : t.status;
  return [{ content: t.description, priority: 'medium', status }];
}
