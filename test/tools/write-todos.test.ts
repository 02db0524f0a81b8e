import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/tools/registry.js';
import { writeTodosTool } from '../../src/tools/builtin/write-todos.js';
import { ToolFailure, type ToolEnv } from '../../src/tools/define-tool.js';

const registry = createToolRegistry([writeTodosTool]);
const env = { root: '/nonexistent', secrets: [], baseEnv: {}, shellTimeoutMs: 1000 } as ToolEnv;
const prepare = (args: unknown) => registry.prepareCall('write_todos', args, env);

/** The refusal the model sees, or undefined when the call is accepted. */
async function refusal(args: unknown): Promise<string | undefined> {
  try {
    await prepare(args);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ToolFailure);
    expect((e as ToolFailure).code).toBe('invalid_args');
    return (e as ToolFailure).message;
  }
}

describe('write_todos', () => {
  it('accepts a list and reads it back to the model, numbered with each status', async () => {
    const call = await prepare({
      todos: [
        { description: 'Read the code', status: 'completed' },
        { description: 'Fix the bug', status: 'in_progress' },
        { description: 'Run the tests', status: 'pending' },
      ],
    });
    expect(call.title).toBe('plan: 1 of 3 done');
    expect(call.paths).toEqual([]);
    expect(await call.run({ signal: new AbortController().signal })).toEqual({
      forModel:
        'Updated the todo list. It now reads:\n1. [completed] Read the code\n2. [in_progress] Fix the bug\n3. [pending] Run the tests',
      forHuman: 'plan: 1 of 3 done',
    });
  });

  it('clears the plan with an empty list', async () => {
    const out = await (await prepare({ todos: [] })).run({ signal: new AbortController().signal });
    expect(out.forModel).toBe('The todo list is now empty.');
  });

  it('refuses two items in progress at once, in Gemini CLI words', async () => {
    const two = [
      { description: 'a', status: 'in_progress' },
      { description: 'b', status: 'in_progress' },
    ];
    expect(await refusal({ todos: two })).toBe('Invalid parameters: Only one task can be "in_progress" at a time.');
    expect(await refusal({ todos: [two[0], { description: 'b', status: 'pending' }] })).toBeUndefined();
  });

  it.each([
    [
      { todos: [{ description: 'a', status: 'done' }] },
      'must be one of "pending", "in_progress", "completed", "cancelled", "blocked"',
    ],
    [{ todos: [{ description: '  ', status: 'pending' }] }, "todo 1: 'description' is empty"],
    [{ todos: [{ description: 'a' }] }, "missing required field 'todos/0/status'"],
    [{ todos: 'a, b' }, '/todos'],
    [{}, "missing required field 'todos'"],
  ])('refuses %j', async (args, message) => {
    expect(await refusal(args)).toContain(message);
  });
});
