/**
 * How a run's end reaches the runner: every output set (failed runs included, the rest empty or 0),
 * one error annotation per problem, each titled with what it is about (`input max-turns`,
 * `event payload`), and a failing exit code. Never a stack trace: an unexpected error is one
 * annotation with its message.
 */
import { isAgentError, messageOf } from '../common/errors.js';
import { setOutputs } from './outputs.js';
import { withPermissionHint } from './permissions.js';
import type { ActionResult } from './run-context.js';

export interface ErrorNote {
  /** The annotation's title: `input approval-mode`, `GITHUB_REPOSITORY`, `event payload`, `agent-action: config`. */
  title: string;
  message: string;
  file?: string;
  line?: number;
}

/** A run's end: the result (outputs) and the problems to annotate (none for a run that worked). */
export interface ActionOutcome {
  result: ActionResult;
  errors: ErrorNote[];
}

/** The parts of `@actions/core` reporting needs (local-action substitutes its own). */
export interface ReportToolkit {
  setOutput(name: string, value: string): void;
  error(message: string, properties: { title?: string; file?: string; startLine?: number }): void;
  /** Marks the step failed (a non-zero exit) without another annotation. */
  markFailed(): void;
}

/** A failed run whose summary is its first problem. */
export function failedOutcome(errors: ErrorNote[]): ActionOutcome {
  return { result: { status: 'failed', summary: errors[0]?.message ?? 'failed' }, errors };
}

/** An error that escaped the run, as an outcome: AgentErrors keep their site, anything else its message. */
export function outcomeOfError(e: unknown): ActionOutcome {
  // A push refused with 403 (a session ref, say) names the permission it lacked, like the API's refusals.
  if (!isAgentError(e)) return failedOutcome([{ title: 'agent-action', message: withPermissionHint(messageOf(e)) }]);
  const title = e.site.input ? `input ${e.site.input}` : `agent-action: ${e.kind}`;
  const first: ErrorNote = { title, message: withPermissionHint(e.message), file: e.site.file, line: e.site.line };
  // details[0] restates the first problem; the rest are further problems of the same pass.
  const more = e.details.slice(1).map((d) => ({ title, message: d }));
  return { result: { status: 'failed', summary: first.message }, errors: [first, ...more] };
}

export function reportOutcome(o: ActionOutcome, kit: ReportToolkit): void {
  setOutputs(o.result, kit.setOutput);
  const errors =
    o.errors.length > 0 || o.result.status !== 'failed'
      ? o.errors
      : [{ title: 'agent-action', message: o.result.summary.split('\n')[0] }];
  for (const e of errors) kit.error(e.message, { title: e.title, file: e.file, startLine: e.line });
  if (o.result.status === 'failed') kit.markFailed();
}
