import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extensionContextFiles, readGeminiExtensions } from '../../src/core/gemini-extensions.js';
import { readExtensionSettings } from '../../src/core/settings-extensions.js';
import { makeTempDir } from '../support/git-repo.js';

function tree(files: Record<string, string>): string {
  const dir = makeTempDir('agent-action-ext-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const manifest = (m: Record<string, unknown>) => JSON.stringify({ version: '1.0.0', ...m });

describe('readGeminiExtensions', () => {
  it('reads name, context files, servers (with ${extensionPath}, without trust) and excludeTools', async () => {
    const dir = tree({
      'lint/gemini-extension.json': manifest({
        name: 'lint',
        contextFileName: ['LINT.md', 'MISSING.md'],
        mcpServers: {
          l: { command: 'node', args: ['${extensionPath}${/}s.js', '${workspacePath}', '${other}'], trust: true },
        },
        excludeTools: ['glob', 'run_shell_command(rm -rf)'],
      }),
      'lint/LINT.md': 'lint rules',
      'plain/gemini-extension.json': manifest({ name: 'plain' }),
      'plain/GEMINI.md': 'plain memory',
      'not-an-extension/README.md': 'x',
    });
    const { extensions, warnings } = await readGeminiExtensions(
      [{ dir, label: '.gemini/extensions', origin: 'repository', runPathOf: (n) => `/ws/.gemini/extensions/${n}` }],
      { workspace: '/ws' },
    );
    expect(warnings).toEqual([]);
    expect(extensions.map((e) => e.name)).toEqual(['lint', 'plain']);
    const [lint, plain] = extensions;
    expect(lint!.contextFiles).toEqual([join(dir, 'lint', 'LINT.md')]);
    expect(lint!.servers).toHaveLength(1);
    expect(lint!.servers[0]).toMatchObject({
      name: 'l',
      trust: false,
      transport: { kind: 'stdio', command: 'node', args: ['/ws/.gemini/extensions/lint/s.js', '/ws', '${other}'] },
    });
    expect(plain!.contextFiles).toEqual([join(dir, 'plain', 'GEMINI.md')]);
    expect(extensionContextFiles(extensions).map((f) => f.label)).toEqual([
      '.gemini/extensions/lint/LINT.md',
      '.gemini/extensions/plain/GEMINI.md',
    ]);

    const settings = readExtensionSettings({ layers: [], extensions, env: {} });
    expect(settings.excludeTools).toEqual(['glob']);
    expect(settings.policy.workspace).toEqual([
      {
        inline:
          '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm -rf"\ndecision = "deny"\npriority = 900\n',
        label: '.gemini/extensions/lint/gemini-extension.json excludeTools',
      },
    ]);
    // No allow rule comes from an extension's `trust`.
    expect(settings.policy.user).toEqual([]);
  });

  it.each([
    [manifest({ name: 'a b' }), 'invalid name "a b"'],
    [JSON.stringify({ name: 'x' }), '"version" is required'],
    [manifest({}), '"name" is required'],
    [manifest({ name: 'x', contextFileName: '../../etc/passwd' }), 'outside the extension'],
    ['{', 'is not valid JSON'],
  ])('%s is skipped: %s', async (text, why) => {
    const dir = tree({ 'bad/gemini-extension.json': text });
    const r = await readGeminiExtensions([{ dir, label: '.gemini/extensions', origin: 'repository' }], {
      workspace: '/ws',
    });
    expect(r.extensions).toEqual([]);
    expect(r.warnings).toEqual([expect.stringContaining(why)]);
    expect(r.warnings[0]).toMatch(/^extension \.gemini\/extensions\/bad skipped: /);
  });

  it("a settings file's server wins over an extension's of the same name", async () => {
    const dir = tree({
      'e/gemini-extension.json': manifest({ name: 'e', mcpServers: { s: { command: 'from-extension' } } }),
      'settings.json': JSON.stringify({ mcpServers: { s: { command: 'from-settings' } } }),
    });
    const { extensions } = await readGeminiExtensions([{ dir, label: 'x', origin: 'user' }], { workspace: '/ws' });
    const s = readExtensionSettings({
      layers: [
        {
          label: 'settings.json',
          origin: 'repository',
          value: JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>,
        },
      ],
      extensions,
      env: {},
    });
    expect(s.servers.map((x) => [x.name, x.transport.kind === 'stdio' && x.transport.command])).toEqual([
      ['s', 'from-settings'],
    ]);
  });
});
