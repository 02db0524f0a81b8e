/**
 * What settings.json files add to a run, read as the faces read them, and the policy rules they
 * imply decided by the real engine: a repository's `trust` sits under the workflow's own rules.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettingsLayers } from '../../src/context/run-settings.js';
import { readExtensionSettings, serverRule } from '../../src/core/settings-extensions.js';
import { loadPolicy } from '../../src/policy/load.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';

/** The two scopes as the CLI reads them (run-settings.ts), lowest precedence first. */
async function files(project: unknown, user?: unknown) {
  const dir = makeTempDir('agent-action-settings-');
  writeFiles(dir, {
    'project/.gemini/settings.json': JSON.stringify(project),
    ...(user !== undefined && { 'home/.gemini/settings.json': JSON.stringify(user) }),
  });
  const read = await readSettingsLayers([
    { path: join(dir, 'home/.gemini/settings.json'), label: '~/.gemini/settings.json', origin: 'user' as const },
    { path: join(dir, 'project/.gemini/settings.json'), label: '.gemini/settings.json', origin: 'repository' as const },
  ]);
  return read.layers;
}

describe('readExtensionSettings', () => {
  it('servers from both files (the project’s wins by name), hooks from both, $VAR from the given environment only', async () => {
    const ext = readExtensionSettings({
      layers: await files(
        {
          mcpServers: { a: { command: 'project-a', env: { K: '$VISIBLE $HIDDEN' } } },
          hooks: { BeforeTool: [{ hooks: [{ type: 'command', command: 'p' }] }] },
        },
        {
          mcpServers: { a: { command: 'user-a' }, b: { command: 'user-b' } },
          hooks: { AfterTool: [{ hooks: [{ type: 'command', command: 'u' }] }] },
        },
      ),
      env: { VISIBLE: 'v' },
    });
    // An unset reference is named, with the server, the field and what to do (Gemini CLI says nothing).
    expect(ext.warnings).toEqual([
      "MCP server a (.gemini/settings.json): $HIDDEN in env.K is empty, so the server gets empty text there; a repository's settings see only the variables every command gets: name HIDDEN in the `sandbox-env` input",
    ]);
    expect(ext.servers.map((s) => [s.name, s.source.label, s.transport])).toEqual([
      ['b', '~/.gemini/settings.json', expect.objectContaining({ command: 'user-b' })],
      ['a', '.gemini/settings.json', expect.objectContaining({ command: 'project-a', env: { K: 'v ' } })],
    ]);
    expect(ext.hooks.map((h) => [h.event, h.hooks[0]!.command])).toEqual([
      ['AfterTool', 'u'],
      ['BeforeTool', 'p'],
    ]);
  });

  it('the workflow’s input servers win by name over the repository’s', async () => {
    const input = {
      name: 'a',
      source: { label: "input 'mcp-servers'", origin: 'workflow' as const },
      transport: { kind: 'stdio' as const, command: 'workflow-a', args: [], env: {} },
      trust: false,
    };
    const ext = readExtensionSettings({
      layers: await files({ mcpServers: { a: { command: 'repo-a' } } }),
      inputServers: [input],
      env: {},
    });
    expect(ext.servers).toEqual([input]);
  });

  it('problems name the file and the field', async () => {
    const ext = readExtensionSettings({
      layers: await files({ mcpServers: { s: { args: [] } }, hooks: { OnWhatever: [] } }),
      env: {},
    });
    expect(ext.warnings).toEqual([
      '.gemini/settings.json mcpServers.s: left out: needs `command` (a stdio server) or `url`/`httpUrl` (an HTTP server)',
      '.gemini/settings.json hooks.OnWhatever: is not a hook event (one of SessionStart, SessionEnd, BeforeAgent, AfterAgent, BeforeModel, AfterModel, BeforeToolSelection, BeforeTool, AfterTool, PreCompress, Notification); skipped',
    ]);
  });

  it('implied rules: trust and mcp.allowed allow (not in plan), mcp.excluded denies; a repository’s in the Workspace tier, under the workflow’s', async () => {
    const ext = readExtensionSettings({
      layers: await files({
        mcpServers: { t: { command: 'x', trust: true }, u: { command: 'y' } },
        mcp: { allowed: ['u'], excluded: ['v'] },
      }),
      env: {},
    });
    expect(ext.selection).toEqual({ allowed: ['u'], excluded: ['v'] });
    expect(ext.policy.user).toEqual([]);
    const workflowDeny = {
      inline: '[[rule]]\ntoolName = "mcp_t_*"\ndecision = "deny"\npriority = 100\n',
      label: 'workflow policy',
    };
    const engine = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { workspace: ext.policy.workspace, user: [workflowDeny] },
    });
    const decide = async (toolName: string, server: string, mode: 'default' | 'plan' = 'default') =>
      (await engine.decide({ toolName, args: {}, mcpServer: server }, mode)).decision;
    // The workflow's User-tier deny outranks the repository's trust (Gemini CLI would put trust in its User tier, above it).
    expect(await decide('mcp_t_x', 't')).toBe('deny');
    expect(await decide('mcp_u_x', 'u')).toBe('allow');
    expect(await decide('mcp_u_x', 'u', 'plan')).toBe('deny');
    expect(await decide('mcp_v_x', 'v')).toBe('deny');
    // A rule for a server never covers another server's tools, whatever the tool is called.
    expect(await decide('mcp_u_x', 'evil')).toBe('deny');
  });

  it('--allowed-mcp-server-names replaces mcp.allowed and its rules sit in the User tier', async () => {
    const ext = readExtensionSettings({
      layers: await files({ mcp: { allowed: ['a'] } }),
      allowedNames: ['b'],
      env: {},
    });
    expect(ext.selection.allowed).toEqual(['b']);
    expect(ext.policy).toEqual({
      workspace: [],
      user: [serverRule('b', { decision: 'allow', priority: 100, label: '--allowed-mcp-server-names' })],
    });
  });
});
