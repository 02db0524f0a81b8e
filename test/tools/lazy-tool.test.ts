/**
 * Built-in tools load their implementation on their first call (default-tools.ts): the registry,
 * the model's declarations and argument validation work from the declaration alone.
 */
import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { lazyTool } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { makeEnv } from './helpers.js';

const declaration = {
  name: 'echo_text',
  kind: 'read',
  description: 'Says the text back.',
  params: Type.Object({ text: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
} as const;

/** A lazy echo_text whose loads are counted; `failures` loads fail before one succeeds. */
function countedTool(failures = 0) {
  const loads = { count: 0 };
  const real = defineTool({
    ...declaration,
    prepare: (args) => ({ title: `echo ${args.text}`, paths: [], policyArgs: args, run: async () => ({ forModel: args.text }) }),
  });
  const tool: Tool = lazyTool(declaration, async () => {
    loads.count++;
    if (loads.count <= failures) throw new Error('chunk 1234 is missing');
    return real;
  });
  return { tool, loads };
}

const env = makeEnv('/nonexistent');

describe('lazyTool', () => {
  it('declares the tool to the model without loading it', () => {
    const { tool, loads } = countedTool();
    const registry = createToolRegistry([tool]);
    expect(registry.declarations()).toEqual([
      {
        name: 'echo_text',
        description: 'Says the text back.',
        parametersJsonSchema: {
          type: 'object',
          properties: { text: { type: 'string' }, wait_for_previous: { type: 'boolean', description: "Wait for this turn's earlier calls to finish first (this call needs their output)." } },
          required: ['text'],
        },
      },
    ]);
    expect(registry.get('echo_text')?.kind).toBe('read');
    expect(loads.count).toBe(0);
  });

  it('refuses bad arguments from the declaration alone, naming the field, without loading', async () => {
    const { tool, loads } = countedTool();
    const registry = createToolRegistry([tool]);
    await expect(registry.prepareCall('echo_text', { text: 3 }, env)).rejects.toMatchObject({ code: 'invalid_args', message: 'invalid arguments for echo_text: /text must be string' });
    await expect(registry.prepareCall('echo_text', { text: 'a', extra: 1 }, env)).rejects.toMatchObject({ code: 'invalid_args', message: "invalid arguments for echo_text: unknown field 'extra'" });
    expect(loads.count).toBe(0);
  });

  it('loads the implementation on the first call only, and runs it', async () => {
    const { tool, loads } = countedTool();
    const registry = createToolRegistry([tool]);
    const first = await registry.prepareCall('echo_text', { text: 'one' }, env);
    const second = await registry.prepareCall('echo_text', { text: 'two' }, env);
    expect([first.title, second.title]).toEqual(['echo one', 'echo two']);
    expect((await second.run({ signal: new AbortController().signal })).forModel).toBe('two');
    expect(loads.count).toBe(1);
  });

  it('calls made together share one load', async () => {
    const { tool, loads } = countedTool();
    const titles = await Promise.all(['a', 'b', 'c'].map(async (text) => (await tool.prepare({ text }, env)).title));
    expect(titles).toEqual(['echo a', 'echo b', 'echo c']);
    expect(loads.count).toBe(1);
  });

  it('a load that fails fails that call with its reason, and the next call loads again', async () => {
    const { tool, loads } = countedTool(1);
    await expect(tool.prepare({ text: 'x' }, env)).rejects.toThrow('chunk 1234 is missing');
    expect((await tool.prepare({ text: 'y' }, env)).title).toBe('echo y');
    expect(loads.count).toBe(2);
  });
});
