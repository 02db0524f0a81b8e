import { describe, expect, it } from 'vitest';
import { parseLoopSettings } from '../../src/context/settings.js';

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
    expect(parseLoopSettings(json, '.gemini/settings.json')).toEqual(expected);
  });
});

describe('parseLoopSettings: model.maxSessionTurns', () => {
  it.each([
    [1, { maxSessionTurns: 1, agentOverrides: {}, warnings: [] }],
    [-1, { agentOverrides: {}, warnings: [] }],
    [
      0,
      {
        agentOverrides: {},
        warnings: [
          "input 'settings' model.maxSessionTurns: expected a positive whole number or -1 (unlimited), got 0; ignored",
        ],
      },
    ],
  ])('%j', (turns, expected) => {
    expect(parseLoopSettings({ model: { maxSessionTurns: turns } }, "input 'settings'")).toEqual(expected);
  });
});
