import { describe, expect, it } from 'vitest';
import {
  HONOURED_SETTINGS,
  mergeSettingsLayers,
  unusedSettingsPaths,
  unusedSettingsWarning,
} from '../../src/context/run-settings.js';

describe('mergeSettingsLayers: as Gemini CLI merges scopes', () => {
  it('a later scope replaces values and merges objects key by key', () => {
    expect(
      mergeSettingsLayers([
        { model: { maxSessionTurns: 10, skipNextSpeakerCheck: true }, tools: { core: ['read_file', 'glob'] } },
        { model: { maxSessionTurns: 1 }, tools: { core: ['read_file'] } },
      ]),
    ).toEqual({ model: { maxSessionTurns: 1, skipNextSpeakerCheck: true }, tools: { core: ['read_file'] } });
  });

  it('mcpServers merge server by server (a server is replaced whole); tools.exclude is the union; hooks concatenate', () => {
    const merged = mergeSettingsLayers([
      {
        mcpServers: { a: { command: 'repo-a', args: ['x'] }, b: { command: 'repo-b' } },
        tools: { exclude: ['glob', 'grep_search'] },
        hooks: { BeforeTool: [{ hooks: ['r'] }] },
      },
      {
        mcpServers: { a: { command: 'input-a' } },
        tools: { exclude: ['glob', 'write_file'] },
        hooks: { BeforeTool: [{ hooks: ['i'] }] },
      },
    ]);
    expect(merged).toEqual({
      mcpServers: { a: { command: 'input-a' }, b: { command: 'repo-b' } },
      tools: { exclude: ['glob', 'grep_search', 'write_file'] },
      hooks: { BeforeTool: [{ hooks: ['r'] }, { hooks: ['i'] }] },
    });
  });

  it('never merges __proto__ and does not change its inputs', () => {
    const a = JSON.parse('{"__proto__": {"polluted": true}, "tools": {"core": ["read_file"]}}') as Record<
      string,
      unknown
    >;
    const b = { tools: { core: ['glob'] } };
    const merged = mergeSettingsLayers([a, b]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(merged).toEqual({ tools: { core: ['glob'] } });
    expect(a.tools).toEqual({ core: ['read_file'] });
  });
});

describe('unused settings', () => {
  it('names each leaf no honoured path covers, and nothing under an honoured one', () => {
    expect(
      unusedSettingsPaths(
        {
          $schema: 'x',
          model: { name: 'gemini-2.5-pro', maxSessionTurns: 3 },
          mcpServers: { a: { command: 'x', anything: 1 } },
          telemetry: { enabled: true, target: 'local' },
          tools: { core: [], sandbox: true },
          ui: {},
        },
        HONOURED_SETTINGS,
      ),
    ).toEqual(['model.name', 'telemetry.enabled', 'telemetry.target', 'tools.sandbox', 'ui']);
  });

  it('one warning over every scope, each key with its scope; none when all are honoured', () => {
    expect(
      unusedSettingsWarning([
        { label: '.gemini/settings.json', origin: 'repository', value: { general: { vimMode: true } } },
        { label: "input 'settings'", origin: 'workflow', value: { telemetry: { enabled: true }, tools: { core: [] } } },
      ]),
    ).toMatch(
      /^settings agent-action does not use, ignored: general\.vimMode \(\.gemini\/settings\.json\), telemetry\.enabled \(input 'settings'\)\. It acts on mcpServers, /,
    );
    expect(unusedSettingsWarning([{ label: 'x', origin: 'user', value: { tools: { allowed: ['glob'] } } }])).toBe(
      undefined,
    );
  });
});
