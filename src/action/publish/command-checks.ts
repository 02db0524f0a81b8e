/**
 * The commands the agent ran to check its work, with their exit codes, for a fix's pull request
 * body: a reviewer sees whether the tests passed without opening the job log. Read from the run's
 * history (a resumed run's included): each `run_shell_command` call paired with its response, in
 * the order the model asked (responses go back in that order). Only commands that ran: a denied or
 * refused call has no exit code. The exit code is the last `Exit Code:` line of the tool's own
 * output, which comes after the command's output, so a command cannot print one that counts. Each
 * command is redacted, cut to one line and shown as inert code; the list keeps the last ones.
 */
import { redactSecrets } from '../../common/redact.js';
import { oneLine } from '../../common/text.js';
import type { Content } from '../../model/wire.js';

const SHELL_TOOL = 'run_shell_command';
/** The list keeps the last commands (the final checks), saying how many earlier ones it left out. */
const MAX_LISTED = 20;
const MAX_COMMAND_CHARS = 160;

export interface CommandCheck {
  command: string;
  /** The exit code, or `(none)` for a command a signal ended. */
  exit: string;
}

/** Pure: every shell command of the history that ran, with its exit code. */
export function readCommandChecks(history: readonly Content[]): CommandCheck[] {
  const checks: CommandCheck[] = [];
  for (let i = 0; i < history.length - 1; i++) {
    if (history[i].role !== 'model') continue;
    const calls = history[i].parts.flatMap((p) => (p.functionCall ? [p.functionCall] : []));
    const responses = history[i + 1].parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    calls.forEach((call, n) => {
      const response = responses[n];
      const command = call.args?.command;
      if (call.name !== SHELL_TOOL || response?.name !== SHELL_TOOL || typeof command !== 'string') return;
      const exit = exitCodeOf(response.response);
      if (exit !== undefined && /^(-?\d+|\(none\))$/.test(exit)) checks.push({ command, exit });
    });
  }
  return checks;
}

function exitCodeOf(response: Record<string, unknown> | undefined): string | undefined {
  const text = typeof response?.output === 'string' ? response.output : undefined;
  if (text === undefined) return undefined;
  const codes = [...text.matchAll(/^Exit Code: (.+)$/gm)];
  return codes.at(-1)?.[1].trim();
}

/** The pull request body's section, or '' when no command ran. */
export function renderCommandChecks(checks: readonly CommandCheck[], secrets: readonly string[]): string {
  if (checks.length === 0) return '';
  const shown = checks.slice(-MAX_LISTED);
  const lines = shown.map(
    (c) => `- ${codeSpan(oneLine(redactSecrets(c.command, secrets), MAX_COMMAND_CHARS))}: exit ${c.exit}`,
  );
  const earlier = checks.length - shown.length;
  const more = earlier > 0 ? `\n\n(${earlier} earlier command${earlier === 1 ? '' : 's'} not listed.)` : '';
  return `### Commands the agent ran\n\n${lines.join('\n')}${more}`;
}

/** Inline code that no backtick run inside can close early (CommonMark: a longer fence, padded). */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}
