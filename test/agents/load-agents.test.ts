/**
 * User agents from `.gemini/agents/*.md`: Gemini CLI's front matter, read with a real YAML parser,
 * every problem named with its file and line; a broken file stops the run before any tool runs.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { readAgentFiles } from '../../src/agents/load-agents.js';
import { parseAgentFile } from '../../src/agents/parse-agent-file.js';
import { makeTempDir } from '../support/git-repo.js';
import { closeSessions, openSession } from './support.js';

afterEach(closeSessions);

const FILE = '.gemini/agents/a.md';
const problemsOf = (src: string) => {
  const r = parseAgentFile(FILE, src);
  return r.ok ? [] : r.problems.map((p) => `${p.line}: ${p.message}`);
};

describe('parseAgentFile', () => {
  it("reads Gemini CLI's fields, the body as the system prompt, and its defaults (30 turns, 10 minutes, the parent's model)", () => {
    const r = parseAgentFile(
      FILE,
      '---\nname: security-auditor\ndescription: Finds vulnerabilities.\nkind: local\ntools:\n  - read_file\n  - grep_search\ntemperature: 0.2\n---\n\nYou audit code.\n',
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.agent).toMatchObject({
      name: 'security-auditor',
      description: 'Finds vulnerabilities.',
      tools: ['read_file', 'grep_search'],
      temperature: 0.2,
      maxTurns: 30,
      timeoutMs: 600_000,
      systemPrompt: 'You audit code.',
      source: FILE,
      output: { kind: 'text' },
    });
    expect(r.agent.model).toBeUndefined();
    expect(r.agent.firstMessage('do it')).toBe('do it');
  });

  it('takes max_turns, timeout_mins and a model; `inherit` means the parent model', () => {
    const r = parseAgentFile(
      FILE,
      '---\nname: a\ndescription: d\nmodel: gemini-2.5-pro\nmax_turns: 4\ntimeout_mins: 2\n---\nx\n',
    );
    expect(r.ok && [r.agent.model, r.agent.maxTurns, r.agent.timeoutMs]).toEqual(['gemini-2.5-pro', 4, 120_000]);
    const inherit = parseAgentFile(FILE, '---\nname: a\ndescription: d\nmodel: inherit\n---\nx\n');
    expect(inherit.ok && inherit.agent.model).toBeUndefined();
  });

  it.each([
    [
      'no front matter',
      '# just markdown\n',
      [
        '1: an agent file must start with YAML front matter between two `---` lines (---\\nname: my-agent\\ndescription: ...\\n---)',
      ],
    ],
    [
      'bad YAML, on its line',
      '---\nname: a\ndescription: [unclosed\n---\nx\n',
      [expect.stringMatching(/^3: the front matter is not valid YAML: /)],
    ],
    [
      'an unknown field, with a suggestion',
      '---\nname: a\ndescription: d\ntimeout: 5\n---\nx\n',
      [expect.stringMatching(/^4: unknown field `timeout`; did you mean timeout_mins\?/)],
    ],
    [
      'a name that is not a slug',
      '---\nname: My Agent\ndescription: d\n---\nx\n',
      ['2: `name` must be a slug: lowercase letters, digits, - and _'],
    ],
    [
      'missing name and description',
      '---\ntools: [read_file]\n---\nx\n',
      ['2: missing field `name`', '2: missing field `description`'],
    ],
    [
      'tools not a list of names',
      '---\nname: a\ndescription: d\ntools: read_file\n---\nx\n',
      ['4: `tools` must be a list of tool names (wildcards: `*`, `prefix*`)'],
    ],
    [
      'max_turns zero',
      '---\nname: a\ndescription: d\nmax_turns: 0\n---\nx\n',
      ['4: `max_turns` must be a whole number of at least 1'],
    ],
    [
      'timeout_mins not whole',
      '---\nname: a\ndescription: d\ntimeout_mins: 1.5\n---\nx\n',
      ['4: `timeout_mins` must be a whole number of at least 1'],
    ],
    [
      'a remote agent',
      '---\nname: a\ndescription: d\nkind: remote\n---\nx\n',
      ['4: `kind` is remote: agent-action runs local agents only'],
    ],
    [
      'mcp_servers',
      '---\nname: a\ndescription: d\nmcp_servers: {}\n---\nx\n',
      ['4: `mcp_servers` is not supported: an agent uses tools of the run that invokes it'],
    ],
    [
      'temperature out of range',
      '---\nname: a\ndescription: d\ntemperature: 3\n---\nx\n',
      ['4: `temperature` must be a number from 0 to 2'],
    ],
    [
      'a duplicated key',
      '---\nname: a\nname: b\ndescription: d\n---\nx\n',
      [expect.stringMatching(/^3: the front matter is not valid YAML: Map keys must be unique/)],
    ],
    [
      'no instructions',
      '---\nname: a\ndescription: d\n---\n\n',
      ["1: the agent has no instructions: write its system prompt below the front matter's closing ---"],
    ],
  ])('%s', (_, src, problems) => {
    expect(problemsOf(src)).toEqual(problems);
  });
});

describe('readAgentFiles', () => {
  it('reads *.md, skips _drafts, other extensions and a missing folder, and refuses symbolic links', async () => {
    const root = makeTempDir('agents-');
    expect(await readAgentFiles(root)).toEqual({ agents: [], problems: [] });
    const dir = join(root, '.gemini/agents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'b.md'), '---\nname: b\ndescription: d\n---\nx\n');
    writeFileSync(join(dir, '_draft.md'), 'not even front matter');
    writeFileSync(join(dir, 'notes.txt'), 'not an agent');
    writeFileSync(join(root, 'elsewhere.md'), '---\nname: c\ndescription: d\n---\nx\n');
    symlinkSync(join(root, 'elsewhere.md'), join(dir, 'c.md'));
    const r = await readAgentFiles(root);
    expect(r.agents.map((a) => a.name)).toEqual(['b']);
    expect(r.problems).toEqual([
      { file: '.gemini/agents/c.md', line: 1, message: 'is a symbolic link; agent files must be regular files' },
    ]);
  });

  it('a broken agent file stops the run before any tool runs, naming file and line', async () => {
    const err = await openSession({
      files: {
        'README.md': 'x\n',
        '.gemini/agents/bad.md': '---\nname: bad\ndescription: d\nmax_turns: many\n---\nx\n',
      },
      script: [],
    }).catch((e: unknown) => e);
    expect(isAgentError(err) && [err.kind, err.message, err.site]).toEqual([
      'config',
      'bad agent definition: .gemini/agents/bad.md:4: `max_turns` must be a whole number of at least 1',
      { file: '.gemini/agents/bad.md', line: 4 },
    ]);
  });

  it('a user agent may not take a built-in name', async () => {
    const err = await openSession({
      files: {
        'README.md': 'x\n',
        '.gemini/agents/ci.md': '---\nname: codebase_investigator\ndescription: d\n---\nx\n',
      },
      script: [],
    }).catch((e: unknown) => e);
    expect(isAgentError(err) && err.message).toBe(
      'bad agent definition: .gemini/agents/ci.md:1: the agent name `codebase_investigator` is already taken (built-in)',
    );
  });
});
