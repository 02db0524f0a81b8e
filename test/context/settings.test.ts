import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLoopSettings, readLoopSettings } from '../../src/context/settings.js';
import { makeTempDir } from '../support/git-repo.js';

describe('parseLoopSettings', () => {
  it("reads Gemini CLI's model.skipNextSpeakerCheck and agents.overrides", () => {
    expect(
      parseLoopSettings({
        model: { skipNextSpeakerCheck: true },
        agents: {
          overrides: {
            codebase_investigator: {
              enabled: false,
              modelConfig: { model: ' gemini-2.5-pro ' },
              runConfig: { maxTurns: 20, maxTimeMinutes: 5 },
            },
          },
        },
      }),
    ).toEqual({
      skipNextSpeakerCheck: true,
      agentOverrides: {
        codebase_investigator: { enabled: false, model: 'gemini-2.5-pro', maxTurns: 20, maxTimeMinutes: 5 },
      },
      warnings: [],
    });
  });

  it.each([
    ['nothing set', {}, { agentOverrides: {}, warnings: [] }],
    ['not an object', [], { agentOverrides: {}, warnings: [] }],
    [
      'a string for the check',
      { model: { skipNextSpeakerCheck: 'yes' } },
      {
        agentOverrides: {},
        warnings: ['.gemini/settings.json model.skipNextSpeakerCheck: expected true or false, got "yes"; ignored'],
      },
    ],
    [
      'overrides not an object',
      { agents: { overrides: [] } },
      {
        agentOverrides: {},
        warnings: ['.gemini/settings.json agents.overrides: expected an object of agent names; ignored'],
      },
    ],
    [
      'one override not an object',
      { agents: { overrides: { a: 3 } } },
      { agentOverrides: {}, warnings: ['.gemini/settings.json agents.overrides.a: expected an object; ignored'] },
    ],
    [
      'bad fields, each named',
      {
        agents: {
          overrides: {
            a: { enabled: 'no', modelConfig: { model: '' }, runConfig: { maxTurns: 0, maxTimeMinutes: 2.5 } },
          },
        },
      },
      {
        agentOverrides: { a: {} },
        warnings: [
          '.gemini/settings.json agents.overrides.a.enabled: expected true or false; ignored',
          '.gemini/settings.json agents.overrides.a.modelConfig.model: expected a model name; ignored',
          '.gemini/settings.json agents.overrides.a.runConfig.maxTurns: expected a positive whole number; ignored',
          '.gemini/settings.json agents.overrides.a.runConfig.maxTimeMinutes: expected a positive whole number; ignored',
        ],
      },
    ],
  ])('%s', (_, json, expected) => {
    expect(parseLoopSettings(json)).toEqual(expected);
  });
});

describe('readLoopSettings', () => {
  it('reads JSON with comments, and says when the file is not JSON', async () => {
    const root = makeTempDir('settings-');
    expect(await readLoopSettings(root)).toEqual({ agentOverrides: {}, warnings: [] });
    mkdirSync(join(root, '.gemini'));
    writeFileSync(
      join(root, '.gemini/settings.json'),
      '{\n  // off in this repository\n  "model": { "skipNextSpeakerCheck": true, },\n}\n',
    );
    expect(await readLoopSettings(root)).toEqual({ skipNextSpeakerCheck: true, agentOverrides: {}, warnings: [] });
    writeFileSync(join(root, '.gemini/settings.json'), '{ nope');
    expect((await readLoopSettings(root)).warnings).toEqual([
      expect.stringMatching(
        /^\.gemini\/settings\.json: not valid JSON \(.+\); the loop and agent settings are left at their defaults$/,
      ),
    ]);
  });
});
