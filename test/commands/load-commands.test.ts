import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../src/commands/load-commands.js';
import { makeTempDir } from '../support/git-repo.js';

function folder(files: Record<string, string>): string {
  const dir = makeTempDir('agent-action-commands-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe('loadCommands', () => {
  it("the project's command wins over the user's; an extension's that meets a taken name is renamed ext:name, then ext:name1", async () => {
    const user = folder({ 'sync.toml': 'prompt = "user sync"', 'only-user.toml': 'prompt = "u"' });
    const project = folder({ 'sync.toml': 'prompt = "project sync"', 'deploy.toml': 'prompt = "project deploy"' });
    const a = folder({ 'deploy.toml': 'prompt = "a deploy"', 'a/x.toml': 'prompt = "ax"' });
    const b = folder({ 'deploy.toml': 'prompt = "b deploy"' });
    const set = await loadCommands([
      { dir: b, source: 'extension', label: 'b', extension: 'b' },
      { dir: user, source: 'user', label: '~/.gemini/commands' },
      { dir: project, source: 'project', label: '.gemini/commands' },
      { dir: a, source: 'extension', label: 'a', extension: 'a' },
    ]);
    const prompts = Object.fromEntries([...set.commands].map(([n, c]) => [n, c.prompt]));
    expect(prompts).toEqual({
      sync: 'project sync',
      'only-user': 'u',
      deploy: 'project deploy',
      'a:deploy': 'a deploy',
      'a:x': 'ax',
      'b:deploy': 'b deploy',
    });
    expect(set.warnings).toEqual([]);
  });

  it('an extension named like a command prefix still gets a free name (numeric suffix)', async () => {
    const project = folder({ 'e/deploy.toml': 'prompt = "p"', 'deploy.toml': 'prompt = "q"' });
    const e = folder({ 'deploy.toml': 'prompt = "e"' });
    const set = await loadCommands([
      { dir: project, source: 'project', label: 'p' },
      { dir: e, source: 'extension', label: 'e', extension: 'e' },
    ]);
    expect(set.commands.get('e:deploy1')?.prompt).toBe('e');
    expect(set.commands.get('e:deploy')?.prompt).toBe('p');
  });

  it('a broken file is skipped with a warning naming it; a missing folder has no commands and no warning', async () => {
    const project = folder({ 'ok.toml': 'prompt = "fine"', 'bad.toml': 'description = "no prompt"', 'notes.md': 'x' });
    const set = await loadCommands([
      { dir: project, source: 'project', label: '.gemini/commands' },
      { dir: join(project, 'missing'), source: 'user', label: '~/.gemini/commands' },
    ]);
    expect([...set.commands.keys()]).toEqual(['ok']);
    expect(set.warnings).toEqual(["custom command skipped: .gemini/commands/bad.toml: the 'prompt' field is required"]);
  });
});
