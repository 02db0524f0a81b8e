import { describe, expect, it } from 'vitest';
import { declarationOf } from '../../src/tools/define-tool.js';
import { askUserTool } from '../../src/tools/builtin/ask-user.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { makeTempDir } from '../support/git-repo.js';

const registry = createToolRegistry([askUserTool]);
const env = { root: makeTempDir(), secrets: [], baseEnv: {}, shellTimeoutMs: 1000 };
const prepare = (args: unknown) => registry.prepareCall('ask_user', args, env);

describe('ask_user tool', () => {
  it('declares Gemini CLI parameters', () => {
    const decl = declarationOf(askUserTool);
    expect(decl.name).toBe('ask_user');
    expect(decl.parametersJsonSchema).toMatchObject({
      required: ['questions'],
      properties: {
        questions: {
          minItems: 1,
          maxItems: 4,
          items: { required: ['question', 'header', 'type'], properties: { header: { maxLength: 16 } } },
        },
      },
    });
    expect(Object.keys((decl.parametersJsonSchema as any).properties.questions.items.properties)).toEqual([
      'question',
      'header',
      'type',
      'options',
      'multiSelect',
      'placeholder',
    ]);
  });

  it('turns a choice question into a question with numbered choices', async () => {
    const p = await prepare({
      questions: [
        {
          question: 'Which cache should I use?',
          header: 'Cache',
          type: 'choice',
          options: [
            { label: 'Redis', description: 'already deployed' },
            { label: 'In memory', description: '' },
          ],
        },
      ],
    });
    expect(p.question).toEqual({
      question: 'Which cache should I use?',
      choices: ['Redis: already deployed', 'In memory'],
    });
    expect(p.title).toBe('ask: Which cache should I use?');
    expect(p.paths).toEqual([]);
  });

  it.each([
    [
      'yesno',
      { question: 'Is the new behaviour intended?', header: 'Intent', type: 'yesno' },
      { question: 'Is the new behaviour intended?', choices: ['Yes', 'No'] },
    ],
    [
      'text with placeholder',
      { question: 'What\\nshould it be named?', header: 'Name', type: 'text', placeholder: 'fooBar' },
      { question: 'What\nshould it be named? (e.g. fooBar)' },
    ],
  ])('%s', async (_n, q, expected) => {
    expect((await prepare({ questions: [q] })).question).toEqual(expected);
  });

  it('lists several questions in one', async () => {
    const p = await prepare({
      questions: [
        { question: 'Keep the old API?', header: 'API', type: 'yesno' },
        { question: 'Release notes?', header: 'Notes', type: 'text' },
      ],
    });
    expect(p.question?.question).toBe(
      '1. **API**: Keep the old API?\n   a) Yes\n   b) No\n2. **Notes**: Release notes?\n\nAnswer each numbered question in one reply.',
    );
    expect(p.question?.choices).toBeUndefined();
  });

  it.each([
    ['no questions', { questions: [] }, /invalid arguments/],
    [
      'five questions',
      { questions: Array(5).fill({ question: 'q?', header: 'h', type: 'text' }) },
      /invalid arguments/,
    ],
    [
      'long header',
      { questions: [{ question: 'q?', header: 'a header that is far too long', type: 'text' }] },
      /invalid arguments/,
    ],
    ['unknown type', { questions: [{ question: 'q?', header: 'h', type: 'multi' }] }, /invalid arguments/],
    [
      'choice without options',
      { questions: [{ question: 'q?', header: 'h', type: 'choice' }] },
      /question 1: type 'choice' needs 'options' with 2 to 4 items/,
    ],
    [
      'empty label',
      {
        questions: [
          {
            question: 'q?',
            header: 'h',
            type: 'choice',
            options: [
              { label: ' ', description: '' },
              { label: 'b', description: '' },
            ],
          },
        ],
      },
      /option 1: 'label' is empty/,
    ],
    ['empty question', { questions: [{ question: '  ', header: 'h', type: 'text' }] }, /'question' is empty/],
  ])('refuses %s', async (_n, args, message) => {
    await expect(prepare(args)).rejects.toMatchObject({
      code: 'invalid_args',
      message: expect.stringMatching(message),
    });
  });

  it('run, reached only without a channel, tells the model to go on', async () => {
    const p = await prepare({ questions: [{ question: 'q?', header: 'h', type: 'text' }] });
    const out = await p.run({ signal: new AbortController().signal });
    expect(out.error?.code).toBe('failed');
    expect(out.forModel).toMatch(/Make the most reasonable assumption/);
  });
});
