/**
 * The model's plan as the loop sees it: the list of the last `write_todos` call that succeeded. It is
 * kept in the run's state (so it survives a suspension and a compressed history) and told to the
 * faces as a `todos` event, after the call's result and again when a saved run starts again.
 */
import { WRITE_TODOS, type Todo } from '../tools/builtin/write-todos.js';
import type { Emit, LoopEvent } from './events.js';
import type { RunState } from './run-state.js';

/**
 * An emit that also records the plan: a write_todos call's arguments are held from its `tool_use`
 * until its `tool_result`; when that succeeded, the list becomes the state's plan and a `todos`
 * event follows the result. Only this loop's own calls count (a sub-agent's come nested).
 */
export function withPlan(state: RunState, emit: Emit): Emit {
  const asked = new Map<string, Todo[]>();
  return (e: LoopEvent) => {
    if (e.type === 'tool_use' && e.name === WRITE_TODOS && Array.isArray(e.args.todos))
      asked.set(e.id, e.args.todos as Todo[]);
    emit(e);
    if (e.type !== 'tool_result' || e.name !== WRITE_TODOS) return;
    const todos = asked.get(e.id);
    asked.delete(e.id);
    if (!e.ok || !todos) return;
    state.todos = todos.map((t) => ({ description: t.description, status: t.status }));
    emit({ type: 'todos', todos: state.todos });
  };
}

/** On a run that goes on from a saved state: the plan it had, for faces that start empty. */
export function replayPlan(state: RunState, emit: Emit): void {
  if (state.todos?.length) emit({ type: 'todos', todos: state.todos });
}
