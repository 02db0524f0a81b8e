/**
 * Custom commands over ACP, as in `-p`: the same folders (cli-extensions.ts), a `/name args` prompt
 * expanded by the agent (`{{args}}`, `@{}` from the workspace, `!{}` through policy and sandbox),
 * any other prompt, or an unknown name, as typed. The editor learns the names from an
 * `available_commands_update`, Gemini CLI's way of offering its slash commands.
 */
import { RequestError, type AvailableCommand, type SessionUpdate } from '@agentclientprotocol/sdk';
import { isAgentError, messageOf } from '../../common/errors.js';
import type { Agent } from '../../compose/prepare-agent.js';
import type { CommandSet } from '../../commands/load-commands.js';
import { ARGS_PLACEHOLDER, parseInvocation } from '../../commands/template.js';

/** The commands as ACP lists them; undefined when there are none (nothing to offer). */
export function availableCommandsUpdate(set: CommandSet): SessionUpdate | undefined {
  const availableCommands: AvailableCommand[] = [...set.commands.values()].map((c) => ({
    name: c.name,
    description: c.description,
    // What follows the name fills {{args}}, or is appended to a prompt without it.
    input: { hint: c.prompt.includes(ARGS_PLACEHOLDER) ? 'arguments' : 'more context (optional)' },
  }));
  return availableCommands.length ? { sessionUpdate: 'available_commands_update', availableCommands } : undefined;
}

/**
 * The prompt the model gets: a custom command's expansion, with its warnings (a file not
 * injected) for the editor; a `!{}` policy refuses ends the request with an error saying why.
 */
export async function expandPrompt(
  text: string,
  set: CommandSet,
  agent: Pick<Agent, 'expandCommand'>,
): Promise<{ text: string; warnings: string[] }> {
  const invocation = text.trimStart().startsWith('/') ? parseInvocation(text) : undefined;
  const command = invocation && set.commands.get(invocation.name);
  if (!invocation || !command) return { text, warnings: [] };
  try {
    return await agent.expandCommand(command, invocation);
  } catch (e) {
    if (isAgentError(e)) throw RequestError.invalidParams({ command: `/${command.name}` }, e.message);
    throw new RequestError(-32603, `/${command.name} could not be expanded: ${messageOf(e)}`);
  }
}
