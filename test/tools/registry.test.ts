import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { defineTool } from '../../src/tools/define-tool.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry, editDistance, suggestNames } from '../../src/tools/registry.js';
import { createRepo } from '../support/git-repo.js';
import { makeEnv, refusal, registry } from './helpers.js';

describe('tool registry', () => {
  it('finds tools by name and by alias', () => {
    expect(registry.get('grep_search')?.name).toBe('grep_search');
    expect(registry.get('search_file_content')?.name).toBe('grep_search');
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.names()).toEqual([
      'list_directory',
      'read_file',
      'glob',
      'grep_search',
      'write_file',
      'replace',
      'run_shell_command',
      'write_todos',
    ]);
  });

  it.each([
    ['read_files', 'read_file'],
    ['grep', 'grep_search'],
    ['list_dir', 'list_directory'],
    ['shell', 'run_shell_command'],
    ['frobnicate', undefined],
  ])('unknown %s suggests %s', async (name, suggestion) => {
    const { dir } = createRepo();
    const r = await refusal(makeEnv(dir), name, {});
    expect(r.code).toBe('not_found');
    expect(r.message).toMatch(new RegExp(`^unknown tool ${name}`));
    if (suggestion) expect(r.message).toContain(`did you mean ${suggestion}`);
    else expect(r.message).toContain('available tools: glob, grep_search, list_directory');
  });

  it.each([
    ['read_file', { file_path: 3 }, '/file_path must be string'],
    ['read_file', {}, "missing required field 'file_path'"],
    ['read_file', { file_path: 'a', start_line: 0 }, '/start_line must be >= 1'],
    ['read_file', { file_path: 'a', limit: 5 }, "unknown field 'limit'"],
    ['replace', { file_path: 'a', old_string: 'x' }, "missing required field 'new_string'"],
    [
      'replace',
      { file_path: 'a', old_string: 'x', new_string: 'y', expected_replacements: 1.5 },
      '/expected_replacements must be integer',
    ],
    ['list_directory', { dir_path: '.', ignore: [1] }, '/ignore/0 must be string'],
    ['run_shell_command', { command: '' }, '/command must NOT have fewer than 1 characters'],
    ['grep_search', null, "missing required field 'pattern'"],
  ])('%s with %j is invalid_args naming the field', async (name, args, message) => {
    const { dir } = createRepo();
    const r = await refusal(makeEnv(dir), name, args as Record<string, unknown>);
    expect(r.code).toBe('invalid_args');
    expect(r.message).toContain(message);
  });

  it('rejects a tool registered twice under one name', () => {
    const t = defineTool({
      name: 'x',
      kind: 'read',
      description: 'd',
      params: Type.Object({}),
      prepare: () => ({ title: 't', paths: [], policyArgs: {}, run: async () => ({ forModel: 'x' }) }),
    });
    expect(() => createToolRegistry([t, { ...t, aliases: ['y'] }])).toThrow(/registered twice/);
  });

  it('sends the same declarations with every request, and nothing can change them in between', () => {
    const a = registry.declarations();
    expect(() => ((a[0].parametersJsonSchema as { type: string }).type = 'mutated')).toThrow(TypeError);
    expect(
      () => ((a[0].parametersJsonSchema.properties as Record<string, { type: string }>).dir_path!.type = 'number'),
    ).toThrow(TypeError);
    expect(registry.declarations()[0].parametersJsonSchema.type).toBe('object');
    expect(registry.declarations()).toBe(a);
  });

  it('shows the model the schema without what only validation reads, and still validates it all', async () => {
    const t = defineTool({
      name: 'x',
      kind: 'read',
      description: 'd',
      params: Type.Object(
        {
          side: Type.Optional(Type.Union([Type.Literal('LEFT'), Type.Literal('RIGHT')], { default: 'RIGHT' })),
          body: Type.String({ minLength: 1, maxLength: 5 }),
        },
        { additionalProperties: false },
      ),
      prepare: () => ({ title: 't', paths: [], policyArgs: {}, run: async () => ({ forModel: 'x' }) }),
    });
    const r = createToolRegistry([t]);
    expect(r.declarations()[0]!.parametersJsonSchema).toEqual({
      type: 'object',
      // Every tool also gets Gemini CLI's wait_for_previous (the scheduler reads it).
      properties: {
        side: { type: 'string', enum: ['LEFT', 'RIGHT'] },
        body: { type: 'string' },
        wait_for_previous: expect.objectContaining({ type: 'boolean' }),
      },
      required: ['body'],
    });
    const env = makeEnv(createRepo().dir);
    await expect(r.prepareCall('x', { body: '' }, env)).rejects.toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('/body must NOT have fewer than 1 characters'),
    });
    await expect(r.prepareCall('x', { body: 'abcdef' }, env)).rejects.toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('/body must NOT have more than 5 characters'),
    });
    await expect(r.prepareCall('x', { body: 'a', side: 'UP' }, env)).rejects.toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('/side'),
    });
    await expect(r.prepareCall('x', { body: 'a', extra: 1 }, env)).rejects.toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining("unknown field 'extra'"),
    });
  });

  it('offers wait_for_previous to every tool but an edit, which runs alone and in order anyway', () => {
    const props = (name: string) =>
      Object.keys(
        (
          createToolRegistry(createDefaultTools())
            .declarations()
            .find((d) => d.name === name)!.parametersJsonSchema as { properties: object }
        ).properties,
      );
    expect(props('read_file')).toContain('wait_for_previous');
    expect(props('run_shell_command')).toContain('wait_for_previous');
    expect(props('write_file')).not.toContain('wait_for_previous');
    expect(props('replace')).not.toContain('wait_for_previous');
  });

  it('edit distance and suggestions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(suggestNames('writefile', ['write_file', 'read_file'])).toEqual(['write_file']);
  });

  // A changed description or parameter shows up here in review: the model's view of our tools.
  it('declarations as the model sees them', () => {
    expect(createToolRegistry(createDefaultTools()).declarations()).toMatchSnapshot();
  });
});
