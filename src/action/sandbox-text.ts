/**
 * How commands ran, in words for maintainers: one line for the job summary, and one sentence under
 * a `run_shell_command` in the approval question. Pure, from the sandbox's resolved status; the
 * `sandbox` input's mode tells `off` from an `auto` that found no sandbox (both run unconfined).
 * The texts hold bubblewrap's and sudo's words (a probe's first line): made inert before posting.
 */
import type { SandboxMode, SandboxStatus } from '../sandbox/types.js';
import { makeInertLine } from './publish/inert-text.js';

/** What the summary and the question need to know about the run's sandbox. */
export interface SandboxView {
  mode: SandboxMode;
  status: SandboxStatus;
}

const networkOf = (s: Extract<SandboxStatus, { kind: 'sandboxed' }>) => (s.network ? 'network on' : 'network off');

/** The job summary's line: how this run's commands ran (or would have run: a run may run none). */
export function describeSandboxRun(v: SandboxView): string {
  const s = v.status;
  switch (s.kind) {
    case 'sandboxed':
      return `Commands ran in the bubblewrap sandbox (${networkOf(s)}).`;
    case 'refused':
      return makeInertLine(
        `⚠️ Commands were refused: the sandbox is required and unavailable: ${s.reason}. To fix: ${s.fix}.`,
      );
    case 'unconfined':
      return v.mode === 'off'
        ? '⚠️ Commands ran unconfined (sandbox: off).'
        : makeInertLine(`⚠️ Commands ran unconfined (sandbox: auto, no sandbox here): ${s.warning}.`);
  }
}

/**
 * Under a waiting shell command in the question: where it runs once approved. The resumed run
 * probes again with the same inputs; this says what this run found, and stays one short line
 * (the reason and the fix are in the job summary and the progress comment).
 */
export function describeApprovedCommand(v: SandboxView): string {
  const s = v.status;
  switch (s.kind) {
    case 'sandboxed':
      return `If approved, it runs in the bubblewrap sandbox (${networkOf(s)}).`;
    case 'refused':
      return '⚠️ If approved, it is still refused: the sandbox is required and unavailable on this runner (the job summary says why).';
    case 'unconfined':
      return v.mode === 'off'
        ? "⚠️ If approved, it runs unconfined (sandbox: off), with the runner's full access."
        : "⚠️ If approved, it runs unconfined: no sandbox on this runner (sandbox: auto), with the runner's full access.";
  }
}

/**
 * Which of the shipped policy's command rules applies (policies/shell.toml): sandboxed commands run
 * without asking in default and auto_edit modes; unconfined, every command that is not read-only is
 * asked about. For the job summary, under the line above; undefined when commands are refused.
 */
export function describeCommandPolicy(v: SandboxView): string | undefined {
  switch (v.status.kind) {
    case 'sandboxed':
      return 'Shipped policy: commands run in the sandbox without asking in default and auto_edit modes; destructive ones, sudo, lines the policy cannot fully read and writes into .git/, .github/ or .gemini/ are still asked about or denied.';
    case 'unconfined':
      return 'Shipped policy: without the sandbox, every command that is not read-only is asked about.';
    case 'refused':
      return undefined;
  }
}

/** Under a waiting shell command in the question: why the shipped policy asked, given the sandbox. */
export function describeAskedCommandPolicy(v: SandboxView): string | undefined {
  switch (v.status.kind) {
    case 'sandboxed':
      return 'Sandboxed commands run without asking under the shipped policy (default and auto_edit modes); this one is asked about for the reason above.';
    case 'unconfined':
      return 'Without the sandbox, the shipped policy asks about every command that is not read-only.';
    case 'refused':
      return undefined;
  }
}
