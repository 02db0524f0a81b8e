/**
 * Gemini CLI's `invoke_agent { agent_name, prompt }`: runs a sub-agent on a task in a loop of its
 * own and returns only its result. Policy sees the agent's name (a rule may name the agent as the
 * tool, as Gemini CLI allows), and the call can wait part-way when one of the child's own calls
 * needs a person: the scheduler saves the child with the batch and a later run goes on from there.
 */
import type { SubagentHost } from '../core/subagent-host.js';
import type { SuspendableCall } from '../scheduler/types.js';
import { defineTool, ToolFailure, type PreparedCall, type Tool } from '../tools/define-tool.js';
import { resumeChild, startChild, type ChildRun } from './child-run.js';
import type { AgentDefinition } from './definition.js';

export const INVOKE_AGENT = 'invoke_agent';

/** The agents this run offers, each with the tools it gets; and those refused, with the reason. */
export interface AgentCatalog {
  available: ReadonlyMap<string, { def: AgentDefinition; tools: readonly Tool[] }>;
  refused: ReadonlyMap<string, string>;
}

// Plain JSON Schema, as the built-in tools' (src/tools/define-tool.ts says why).
const Params = {
  type: 'object',
  required: ['agent_name', 'prompt'],
  properties: {
    agent_name: { type: 'string', description: 'Name of the sub-agent to invoke.' },
    prompt: {
      type: 'string',
      description:
        'The complete task for the sub-agent. It sees nothing of this conversation: include all the context, background and questions, and the form of answer you need. Never a short or partial instruction.',
    },
  },
  additionalProperties: false,
} as const;

export function createInvokeAgentTool(catalog: AgentCatalog, host: SubagentHost): Tool {
  const list = [...catalog.available.values()].map(({ def }) => `- ${def.name}: ${def.description}`).join('\n');
  return defineTool({
    name: INVOKE_AGENT,
    kind: 'other',
    description: `Invoke a sub-agent to perform a specific task or investigation in a conversation of its own; only its final result comes back. Sub-agents:\n${list}`,
    params: Params,
    prepare({ agent_name: name, prompt }): PreparedCall & SuspendableCall {
      const entry = catalog.available.get(name);
      if (!entry) {
        const refused = catalog.refused.get(name);
        const known = [...catalog.available.keys()].join(', ') || 'none';
        throw new ToolFailure(
          'not_found',
          refused
            ? `Subagent '${name}' is not available in this run: ${refused}`
            : `Subagent '${name}' not found. Available sub-agents: ${known}.`,
        );
      }
      if (!prompt.trim())
        throw new ToolFailure(
          'invalid_args',
          `invalid arguments for ${INVOKE_AGENT}: 'prompt' is empty; give the sub-agent its whole task`,
        );
      const child = (ctx: { signal: AbortSignal; callId?: string }): ChildRun => ({
        def: entry.def,
        tools: entry.tools,
        host,
        callId: ctx.callId ?? name,
        signal: ctx.signal,
      });
      return {
        title: `delegate to ${name}`,
        paths: [],
        policyArgs: { agent_name: name, prompt },
        runSuspendable: (ctx) => startChild(child(ctx), prompt),
        resumeSuspended: (ctx, saved, answers) => resumeChild(child(ctx), saved, answers),
        // Reached only by a caller that cannot hold a waiting call: then waiting is a failure.
        run: async (ctx) => {
          const r = await startChild(child(ctx), prompt);
          if ('output' in r) return r.output;
          const message = `Subagent '${name}' needs a person's approval, which this run cannot wait for.`;
          return { forModel: message, error: { code: 'failed', message } };
        },
      };
    },
  });
}
