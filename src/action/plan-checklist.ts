/**
 * The model's plan (write_todos) as a GitHub task list, for the progress comment and the job summary:
 * `- [x]` done, `- [ ]` still to do, the item in progress in bold with an arrow, a cancelled one
 * struck through. The descriptions are the model's words: one line each, inert, capped.
 */
import type { Todo, TodoStatus } from '../tools/builtin/write-todos.js';
import { makeInert } from './publish/inert-text.js';

/** Items shown; a longer plan says how many more it has. With the descriptions capped, the list stays
 * within what the final comment keeps free beside the capped summary (publish/body-cap.ts). */
const MAX_ITEMS = 25;
/** Characters of one description shown. */
const MAX_DESCRIPTION = 120;

const ITEM: Readonly<Record<TodoStatus, (text: string) => string>> = {
  completed: (t) => `- [x] ${t}`,
  in_progress: (t) => `- [ ] → **${t}**`,
  pending: (t) => `- [ ] ${t}`,
  cancelled: (t) => `- [ ] ~~${t}~~ (cancelled)`,
  blocked: (t) => `- [ ] ${t} (blocked)`,
};

/** One description as one line of plain text: no HTML, no mentions, no line breaks, no emphasis markers to unbalance ours. */
function lineOf(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  const cut = flat.length > MAX_DESCRIPTION ? `${flat.slice(0, MAX_DESCRIPTION - 1)}…` : flat;
  return makeInert(cut.replace(/[<>*~]/g, (c) => `&#${c.charCodeAt(0)};`));
}

/** The plan under its own heading; empty when there is none. */
export function renderChecklist(todos: readonly Todo[] | undefined): string {
  if (!todos?.length) return '';
  const done = todos.filter((t) => t.status === 'completed').length;
  const shown = todos.slice(0, MAX_ITEMS).map((t) => ITEM[t.status](lineOf(t.description)));
  const more = todos.length > MAX_ITEMS ? [`- … and ${todos.length - MAX_ITEMS} more`] : [];
  return `\n\n**Plan** (${done} of ${todos.length} done)\n\n${[...shown, ...more].join('\n')}`;
}
