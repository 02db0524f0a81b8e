/**
 * The tasks the agent runs for the action: the comment commands (`/agent fix`, ...) and the free
 * `prompt` input. Declared once; the router, the session codec's resume, the recorder tools and
 * the system prompt all take their kind from here.
 */
const TASK_KINDS = ['fix', 'review', 'triage', 'question', 'prompt'] as const;

export type TaskKind = (typeof TASK_KINDS)[number];

/** A stored or typed command name as a task kind, or undefined when it names none. */
export const taskKindOf = (name: string): TaskKind | undefined => TASK_KINDS.find((k) => k === name);
