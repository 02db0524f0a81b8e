/**
 * Gemini CLI's `write_todos` tool: the model keeps a plan of the task as a list of subtasks, each
 * with a status, and rewrites the whole list whenever one changes. The name, the parameters and the
 * statuses are Gemini CLI's (@google/gemini-cli 0.61, `blocked` included), so prompts written for
 * it work unchanged; the rule it enforces is its too: at most one item `in_progress`.
 *
 * The tool touches nothing. The list it accepts is the plan: the loop keeps the latest one in the
 * run's state (core/plan.ts) and tells every face, which renders it (the progress comment's
 * checklist, the CLI's stream-json).
 */
import type { Static } from 'typebox';
import { defineTool, ToolFailure } from '../define-tool.js';

export const WRITE_TODOS = 'write_todos';

export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked'] as const;

const Params = {
  type: 'object',
  required: ['todos'],
  properties: {
    todos: {
      type: 'array',
      description: 'The whole list, in order. It replaces the previous one.',
      items: {
        type: 'object',
        required: ['description', 'status'],
        properties: {
          description: { type: 'string', description: 'What the subtask is.' },
          status: { type: 'string', enum: TODO_STATUSES },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

export type Todo = Static<typeof Params>['todos'][number];
export type TodoStatus = Todo['status'];

const DESCRIPTION = `Keeps the plan of a task with several steps as a list of subtasks the user sees as you work. Skip it for a task of one or two steps.
Send the whole list each time; it replaces the previous one. Update it as soon as a subtask starts, ends or is dropped, one change at a time.
Statuses: pending (not started); in_progress (set just before you start it; only one at a time); completed (done without open problems; split it if more work turned up); cancelled (no longer needed); blocked (cannot go on for now).`;

/** Refuses what Gemini CLI refuses: an empty description, and more than one item in progress. */
function assertTodos(todos: readonly Todo[]): void {
  todos.forEach((t, i) => {
    if (!t.description.trim()) throw new ToolFailure('invalid_args', `todo ${i + 1}: 'description' is empty`);
  });
  // Gemini CLI's words, so the stream-json of a refused list is the same as its own.
  if (todos.filter((t) => t.status === 'in_progress').length > 1)
    throw new ToolFailure('invalid_args', 'Invalid parameters: Only one task can be "in_progress" at a time.');
}

/** What the model reads back: the list as it now stands, numbered. */
function listText(todos: readonly Todo[]): string {
  if (todos.length === 0) return 'The todo list is now empty.';
  const lines = todos.map((t, i) => `${i + 1}. [${t.status}] ${t.description}`);
  return `Updated the todo list. It now reads:\n${lines.join('\n')}`;
}

export const writeTodosTool = defineTool({
  name: WRITE_TODOS,
  kind: 'other',
  description: DESCRIPTION,
  params: Params,
  prepare({ todos }) {
    assertTodos(todos);
    const done = todos.filter((t) => t.status === 'completed').length;
    const summary = todos.length === 0 ? 'clear the plan' : `plan: ${done} of ${todos.length} done`;
    return {
      title: summary,
      paths: [],
      policyArgs: { todos },
      run: () => Promise.resolve({ forModel: listText(todos), forHuman: summary }),
    };
  },
});
