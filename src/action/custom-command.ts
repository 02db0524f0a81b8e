/**
 * Which custom command a task runs, if any. The commands come from the trusted commit only: its
 * `.gemini/commands/` and the `commands/` folder of each of its extensions (never the work tree,
 * which a pull request's author writes). A task names one in two ways:
 *
 * - a comment `/agent <name> args` (or `/agent /<name> args`): routing made it a question, since a
 *   word the router does not know is a question; it is a command when the trusted commit has one of
 *   that name. The built-in words (`fix`, `review`, `triage`, `approve`, `deny`, `answer`,
 *   `continue`, `help`) always mean the built-in: a command file of that name is reached only from
 *   the `prompt` input, and `/agent help` says so.
 * - the `prompt` input `/<name> args`. An unknown name is sent as written, with a warning (as
 *   Gemini CLI sends an unknown `/word`).
 *
 * The comment's text fills `{{args}}` only: the lookup is by its first word and nothing else.
 * A command runs as a `prompt` task (edits are published as for `fix`).
 */
import { join } from 'node:path';
import type { CustomCommand } from '../commands/command-file.js';
import { loadCommands, type CommandFolder, type CommandSet } from '../commands/load-commands.js';
import { parseInvocation, type Invocation } from '../commands/template.js';
import type { GeminiExtension } from '../core/gemini-extensions.js';
import type { AgentTask } from './run-context.js';

/** The words `/agent <word>` always means the built-in by. */
export const BUILT_IN_WORDS: ReadonlySet<string> = new Set([
  'fix',
  'review',
  'triage',
  'approve',
  'deny',
  'answer',
  'continue',
  'help',
]);

export interface ResolvedCommand {
  command: CustomCommand;
  invocation: Invocation;
}

/** The trusted commit's command folders: `.gemini/commands/`, then each extension's. */
function trustedCommandFolders(geminiDir: string, extensions: readonly GeminiExtension[]): CommandFolder[] {
  return [
    { dir: join(geminiDir, 'commands'), source: 'project', label: '.gemini/commands' },
    ...extensions.map((e): CommandFolder => ({
      dir: join(e.path, 'commands'),
      source: 'extension',
      label: `${e.label}/commands`,
      extension: e.name,
    })),
  ];
}

export const readTrustedCommands = (geminiDir: string, extensions: readonly GeminiExtension[]): Promise<CommandSet> =>
  loadCommands(trustedCommandFolders(geminiDir, extensions));

/** Pure: the custom command a task names, or undefined (then the task runs as it is); `warning` for an unknown `/name` prompt. */
export function resolveCustomCommand(
  task: AgentTask,
  commands: CommandSet['commands'],
): { resolved?: ResolvedCommand; warning?: string } {
  const text = task.instructions ?? '';
  if (task.command !== 'question' && !(task.command === 'prompt' && text.trimStart().startsWith('/'))) return {};
  const invocation = parseInvocation(text);
  if (!invocation) return {};
  const command = commands.get(invocation.name);
  if (command) return { resolved: { command, invocation } };
  if (task.command === 'question') return {};
  return {
    warning: `the prompt starts with /${invocation.name}, and the trusted commit has no custom command of that name (.gemini/commands/${invocation.name.replaceAll(':', '/')}.toml): it was sent to the model as written`,
  };
}
