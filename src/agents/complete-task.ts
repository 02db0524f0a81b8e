/**
 * Gemini CLI's `complete_task`: the only way a sub-agent finishes. Its parameter is `result` (text)
 * or, for an agent with a structured output, that output under its own name (the investigator's
 * `report`). The child loop ends after the batch in which it succeeded; what it submitted is read
 * back from the history (see `submittedResult`), so a completion survives a suspension.
 */
import type { TSchema } from 'typebox';
import type { Content } from '../model/wire.js';
import { defineTool, ToolFailure, type Tool } from '../tools/define-tool.js';
import type { AgentOutput } from './definition.js';

export const COMPLETE_TASK = 'complete_task';

const DONE_TEXT = 'Result submitted and task completed.';
const DONE_REPORT = 'Output submitted and task completed.';

export function createCompleteTaskTool(output: AgentOutput): Tool {
  // Plain JSON Schema, as the built-in tools' (src/tools/define-tool.ts says why).
  const params: TSchema =
    output.kind === 'text'
      ? {
          type: 'object',
          required: ['result'],
          properties: {
            result: {
              type: 'string',
              description:
                'Your final results or findings for the agent that asked. Make them complete, and follow any format your instructions ask for.',
            },
          },
          additionalProperties: false,
        }
      : {
          type: 'object',
          required: [output.name],
          properties: { [output.name]: { ...output.schema, description: output.description } },
          additionalProperties: false,
        };
  return defineTool({
    name: COMPLETE_TASK,
    kind: 'other',
    description:
      output.kind === 'text'
        ? 'Call this tool to submit your final findings and complete the task. This is the ONLY way to finish.'
        : 'Call this tool to submit your final answer and complete the task. This is the ONLY way to finish.',
    params,
    prepare(args: Record<string, unknown>) {
      if (output.kind === 'text' && typeof args.result === 'string' && !args.result.trim()) {
        throw new ToolFailure(
          'invalid_args',
          'Missing required "result" argument. You must provide your findings when calling complete_task.',
        );
      }
      return {
        title: 'complete the task',
        paths: [],
        policyArgs: args,
        run: async () => ({ forModel: output.kind === 'text' ? DONE_TEXT : DONE_REPORT, forHuman: 'task completed' }),
      };
    },
  });
}

/**
 * What a completed child submitted: the complete_task call of the last model turn whose response
 * (in the next user turn) is a success. undefined while the child has not completed. Pure.
 */
export function submittedResult(history: readonly Content[], output: AgentOutput): string | undefined {
  const last = history.at(-1);
  const model = history.at(-2);
  if (last?.role !== 'user' || model?.role !== 'model') return undefined;
  const done = last.parts.some(
    (p) => p.functionResponse?.name === COMPLETE_TASK && p.functionResponse.response.output !== undefined,
  );
  if (!done) return undefined;
  const call = model.parts.find((p) => p.functionCall?.name === COMPLETE_TASK)?.functionCall;
  const value = call?.args?.[output.kind === 'text' ? 'result' : output.name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
