import { describe, expect, it } from 'vitest';
import {
  parseDurationMs,
  parseFileSize,
  parseInputs,
  parsePolicyInput,
  parseRunnerEnv,
  readInputs,
  type ActionSettings,
} from '../../src/action/inputs.js';
import { readActionInputs } from '../support/action-yml.js';

const TOKEN = 'ghs_workflowtoken123';
const KEY = 'AIza-test-key-123456';
/** The header actions/checkout persists with TOKEN: base64 of `x-access-token:ghs_workflowtoken123`. */
const HEADER = 'eC1hY2Nlc3MtdG9rZW46Z2hzX3dvcmtmbG93dG9rZW4xMjM=';

/** A workflow's `with:`: these inputs set, every other one arriving empty. */
const given =
  (inputs: Record<string, string>) =>
  (name: string): string =>
    inputs[name] ?? '';

/** As a runner passes them: action.yml's defaults (parsed with the yaml package), the token evaluated. */
const runnerInputs = (overrides: Record<string, string> = {}) => {
  const defaults = Object.fromEntries(readActionInputs().map((i) => [i.name, i.default ?? '']));
  return given({ ...defaults, 'github-token': TOKEN, 'gemini-api-key': KEY, ...overrides });
};

const settingsOf = (r: ReturnType<typeof parseInputs>): ActionSettings => {
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.settings;
};

describe('parseInputs', () => {
  it("reads action.yml's defaults into settings", () => {
    expect(settingsOf(parseInputs(runnerInputs()))).toEqual({
      geminiApiKey: KEY,
      model: 'gemini-2.5-pro',
      geminiBaseUrl: undefined,
      githubToken: TOKEN,
      prompt: undefined,
      trigger: '/agent',
      triggerAnywhere: false,
      approvalMode: undefined,
      policy: { kind: 'none' },
      adminPolicy: { kind: 'none' },
      maxTurns: 40,
      maxFileBytes: 104_857_600,
      mcpNetwork: [],
      vertex: undefined,
      baseBranch: undefined,
      branchPrefix: 'agent-action/',
      commitSigning: false,
      outputSchema: undefined,
      timeoutMs: 30 * 60_000,
      maxCostUsd: undefined,
      triageLabel: 'needs-triage',
      fixLabel: 'agent-fix',
      reviewLabel: 'agent-review',
      allowedBots: [],
      approvalTimeoutMs: 7 * 86_400_000,
      contextFileNames: ['GEMINI.md'],
      sandbox: 'required',
      sandboxNetwork: false,
      sandboxEnv: {},
      sandboxLimits: { processes: 1024, memoryBytes: 8 * 1024 ** 3, fileSizeBytes: 1024 ** 3, openFiles: 8192 },
      sessionKey: undefined,
      triageLabels: [],
      mcpServers: [],
      mcpStart: 'eager',
      issueNumber: undefined,
      mode: 'event',
      triage: {
        issues: [],
        triagedLabel: 'agent:triaged',
        maxShards: 20,
        shardSize: 20,
        maxParallel: 4,
        concurrency: 2,
        maxCostUsdPerIssue: undefined,
        dryRun: false,
        writesPerMinute: 80,
        writesPerHour: 500,
      },
    });
  });

  it('an input that arrives empty takes its action.yml default: never an error for what the workflow did not set', () => {
    const onlyRequired = parseInputs(given({ 'github-token': TOKEN, 'gemini-api-key': KEY }));
    expect(onlyRequired).toEqual(parseInputs(runnerInputs()));
  });

  it('trims values (local-action hands them over untrimmed)', () => {
    const s = settingsOf(
      parseInputs(runnerInputs({ 'max-turns': ' 12\n', model: '  gemini-2.5-flash ', 'sandbox-network': ' TRUE ' })),
    );
    expect([s.maxTurns, s.model, s.sandboxNetwork]).toEqual([12, 'gemini-2.5-flash', true]);
  });

  it('an empty Gemini API key is not an input error here (a skipped event needs no model)', () => {
    expect(settingsOf(parseInputs(runnerInputs({ 'gemini-api-key': '' }))).geminiApiKey).toBe('');
  });

  it.each([
    ['approval-mode', 'always'],
    ['max-turns', '0'],
    ['max-turns', 'ten'],
    ['timeout-minutes', '-5'],
    ['max-cost-usd', 'lots'],
    ['policy', '[[rule]\ntoolName = "x"'],
    ['admin-policy', 'rules.json'],
    ['approval-timeout', 'a week'],
    ['trigger', '/agent please'],
    ['gemini-base-url', 'ftp://x'],
    ['issue-number', '#12'],
    ['sandbox', 'sometimes'],
    ['sandbox-network', 'yes'],
    ['mode', 'triage-all'],
    ['issues', '12, x'],
    ['issues', '[12, 0]'],
    ['issues', '{"a": 1}'],
    ['shard-size', '0'],
    ['max-shards', '257'],
    ['triage-concurrency', '0'],
    ['max-cost-usd-per-issue', '-1'],
    ['dry-run', 'maybe'],
    ['writes-per-minute', 'fast'],
    ['max-file-size', '200MB'],
    ['max-file-size', 'big'],
    ['max-file-size', '0'],
  ])('%s=%j is one error naming that input and quoting the value', (input, value) => {
    const r = parseInputs(runnerInputs({ [input]: value }));
    expect(r.ok ? [] : r.errors).toEqual([
      {
        input,
        source: 'input',
        message: expect.stringContaining(`input '${input}' is ${JSON.stringify(value)}: expected `),
      },
    ]);
  });

  it.each([
    ['20MB', 20 * 1024 * 1024],
    ['500 KiB', 500 * 1024],
    ['1.5mb', 1_572_864],
    ['2048', 2048],
    ['100MB', 104_857_600],
  ])('max-file-size=%j is %d bytes (units of 1024, as GitHub counts MB)', (raw, bytes) => {
    expect(parseFileSize(raw)).toBe(bytes);
    expect(settingsOf(parseInputs(runnerInputs({ 'max-file-size': raw }))).maxFileBytes).toBe(bytes);
  });

  it("max-file-size over GitHub's 100 MiB, or not a size, is refused", () => {
    for (const raw of ['101MB', '104857601', '1GB', '-1', 'ten MB', '5 TB'])
      expect(parseFileSize(raw), raw).toBeUndefined();
  });

  it('trigger-anywhere is true or false; output-schema is a JSON Schema, refused naming the input and the path', () => {
    expect(settingsOf(parseInputs(runnerInputs({ 'trigger-anywhere': 'true' }))).triggerAnywhere).toBe(true);
    const bad = parseInputs(runnerInputs({ 'trigger-anywhere': 'yes', 'output-schema': '{"type": 3}' }));
    expect(bad.ok ? [] : bad.errors.map((e) => e.message)).toEqual([
      'input \'trigger-anywhere\' is "yes": expected true or false',
      expect.stringMatching(
        /^input 'output-schema' is "\{\\"type\\": 3\}": expected a JSON Schema as JSON text: not a valid JSON Schema: \/type /,
      ),
    ]);
    const good = settingsOf(parseInputs(runnerInputs({ 'output-schema': '{"type": "object"}' }))).outputSchema;
    expect(good?.schema).toEqual({ type: 'object' });
    expect(good?.check([])).toBe('/ must be object');
  });

  it('collects every error at once, each with its own input', () => {
    const r = parseInputs(runnerInputs({ 'approval-mode': 'x', 'max-turns': 'y', sandbox: 'z' }));
    expect(r.ok ? [] : r.errors.map((e) => e.input)).toEqual(['approval-mode', 'max-turns', 'sandbox']);
  });

  it('an unevaluated ${{ github.token }} (local-action without INPUT_GITHUB-TOKEN) says what to set', () => {
    const r = parseInputs(given({ 'gemini-api-key': KEY }));
    expect(r.ok ? [] : r.errors).toEqual([
      { input: 'github-token', source: 'input', message: expect.stringContaining('set INPUT_GITHUB-TOKEN') },
    ]);
  });

  it.each([
    ['auto_edit', 'autoEdit'],
    ['default', 'default'],
    ['yolo', 'yolo'],
    ['plan', 'plan'],
  ])('approval-mode %s maps to %s', (value, mode) => {
    expect(settingsOf(parseInputs(runnerInputs({ 'approval-mode': value }))).approvalMode).toBe(mode);
  });

  it.each([
    ['[12, 15, 12]', [12, 15]],
    ['12,15', [12, 15]],
    ['#12 15\n19', [12, 15, 19]],
    ['["12", 15]', [12, 15]],
  ])('issues %j is %j (duplicates dropped, order kept)', (raw, issues) => {
    expect(settingsOf(parseInputs(runnerInputs({ mode: 'triage', issues: raw }))).triage.issues).toEqual(issues);
  });

  it('mode triage without issues is an error naming issues; mode triage-plan needs none', () => {
    const r = parseInputs(runnerInputs({ mode: 'triage' }));
    expect(r.ok ? [] : r.errors).toEqual([
      {
        input: 'issues',
        source: 'input',
        message: expect.stringContaining('input \'issues\' is "": expected the issues of this shard'),
      },
    ]);
    expect(settingsOf(parseInputs(runnerInputs({ mode: 'triage-plan' }))).mode).toBe('triage-plan');
  });

  it('splits allowed-bots and lower-cases them', () => {
    expect(
      settingsOf(parseInputs(runnerInputs({ 'allowed-bots': 'Dependabot[bot],\nrenovate[bot]' }))).allowedBots,
    ).toEqual(['dependabot[bot]', 'renovate[bot]']);
  });
});

describe('parseRunnerEnv', () => {
  const env = {
    GITHUB_REPOSITORY: 'octo/hello',
    GITHUB_EVENT_NAME: 'issue_comment',
    GITHUB_EVENT_PATH: '/tmp/e.json',
    GITHUB_WORKSPACE: '/tmp/ws',
    GITHUB_API_URL: 'http://127.0.0.1:9/',
  };

  it('reads the runner variables', () => {
    const r = parseRunnerEnv(env);
    expect(r.ok && r.runner).toMatchObject({
      eventName: 'issue_comment',
      eventPath: '/tmp/e.json',
      workspace: '/tmp/ws',
      repository: { owner: 'octo', repo: 'hello' },
      apiUrl: 'http://127.0.0.1:9',
    });
  });

  it('a missing GITHUB_REPOSITORY and GITHUB_EVENT_NAME are two errors, each naming its variable', () => {
    const r = parseRunnerEnv({ ...env, GITHUB_REPOSITORY: 'solo', GITHUB_EVENT_NAME: '' });
    expect(r.ok ? [] : r.errors.map((e) => [e.input, e.source])).toEqual([
      ['GITHUB_REPOSITORY', 'runner'],
      ['GITHUB_EVENT_NAME', 'runner'],
    ]);
  });
});

describe('readInputs', () => {
  it('masks every secret input before parsing, even when other inputs are wrong', () => {
    const masked: string[] = [];
    const r = readInputs(
      runnerInputs({ 'max-turns': 'nope', 'session-key': 'session-secret-42' }),
      { GITHUB_REPOSITORY: 'o/r', GITHUB_EVENT_NAME: 'push' },
      (s) => masked.push(s),
    );
    expect(masked).toEqual([KEY, TOKEN, 'session-secret-42', HEADER]);
    expect(r.ok ? [] : r.errors.map((e) => e.input)).toEqual(['max-turns']);
    expect(r.secrets).toEqual([KEY, TOKEN, 'session-secret-42', HEADER]);
  });

  it("the runner's tokens are secrets from the start: masked and redacted like the inputs", () => {
    const masked: string[] = [];
    const env = {
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_EVENT_NAME: 'push',
      ACTIONS_RUNTIME_TOKEN: 'runtime-token-1',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token-1',
      ACTIONS_CACHE_URL: 'https://cache.test/',
    };
    const r = readInputs(runnerInputs(), env, (s) => masked.push(s));
    expect(r.secrets).toEqual([KEY, TOKEN, HEADER, 'runtime-token-1', 'oidc-token-1']);
    expect(masked).toEqual(r.secrets);
  });

  it('reports input and runner problems together', () => {
    const r = readInputs(runnerInputs({ trigger: 'two words' }), { GITHUB_EVENT_NAME: 'push' }, () => {});
    expect(r.ok ? [] : r.errors.map((e) => e.input)).toEqual(['trigger', 'GITHUB_REPOSITORY']);
  });
});

describe('parsePolicyInput', () => {
  it.each([
    ['', { kind: 'none' }],
    ['policies/a.toml, policies/b.toml', { kind: 'paths', paths: ['policies/a.toml', 'policies/b.toml'] }],
    ['[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 10\n', { kind: 'inline' }],
  ])('%j', (raw, expected) => {
    expect(parsePolicyInput(raw)).toMatchObject(expected);
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['30s', 30_000],
    ['90m', 5_400_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['45', 2_700_000],
    ['0d', undefined],
    ['soon', undefined],
  ])('%s', (raw, ms) => expect(parseDurationMs(raw)).toBe(ms));
});

describe("the mcp-servers input (settings.json's mcpServers schema)", () => {
  const RUNNER = { GITHUB_REPOSITORY: 'o/r', GITHUB_EVENT_NAME: 'push' };

  it('servers from JSON, in either form; $VAR in env and headers from the step environment; credentials join the secrets', () => {
    const masked: string[] = [];
    const servers = {
      github: {
        command: 'github-mcp-server',
        args: ['stdio'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '$GH_PAT', LOG_LEVEL: '${LEVEL}' },
      },
      api: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
    };
    const env = {
      ...RUNNER,
      GH_PAT: 'ghp_patFromTheWorkflow0001',
      LEVEL: 'debug',
      API_TOKEN: 'api-token-from-secret-42',
    };
    for (const raw of [JSON.stringify(servers), JSON.stringify({ mcpServers: servers })]) {
      masked.length = 0;
      const r = readInputs(runnerInputs({ 'mcp-servers': raw }), env, (s) => masked.push(s));
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect(r.settings.mcpServers.map((s) => [s.name, s.source, s.transport])).toEqual([
        [
          'github',
          { label: "input 'mcp-servers'", origin: 'workflow' },
          {
            kind: 'stdio',
            command: 'github-mcp-server',
            args: ['stdio'],
            env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_patFromTheWorkflow0001', LOG_LEVEL: 'debug' },
            shown: 'github-mcp-server stdio',
          },
        ],
        [
          'api',
          { label: "input 'mcp-servers'", origin: 'workflow' },
          {
            kind: 'http',
            url: 'https://mcp.example.com/mcp',
            protocol: 'auto',
            headers: { Authorization: 'Bearer api-token-from-secret-42' },
          },
        ],
      ]);
      // The token and the header carrying one are secrets now; the log level is not.
      expect(r.secrets).toEqual([KEY, TOKEN, HEADER, 'ghp_patFromTheWorkflow0001', 'Bearer api-token-from-secret-42']);
      expect(masked).toEqual(r.secrets);
    }
  });

  it.each([
    ['{not json', /input 'mcp-servers' is .*: expected a JSON object of server names to settings/],
    ['{"s": {"args": []}}', /expected valid MCP server settings: s: left out: needs `command`/],
    ['{"s": {"command": "x", "comand": "y"}}', /s.comand: is not a field Gemini CLI knows/],
  ])('%j is an input error that says what is wrong', (raw, message) => {
    const r = parseInputs(runnerInputs({ 'mcp-servers': raw }));
    expect(r.ok ? [] : r.errors.map((e) => [e.input, e.message])).toEqual([
      ['mcp-servers', expect.stringMatching(message)],
    ]);
  });

  it('mcp-start is eager or lazy', () => {
    expect(settingsOf(parseInputs(runnerInputs({ 'mcp-start': 'lazy' }))).mcpStart).toBe('lazy');
    const r = parseInputs(runnerInputs({ 'mcp-start': 'sometimes' }));
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([
      'input \'mcp-start\' is "sometimes": expected eager or lazy',
    ]);
  });
});

describe('the base-branch, branch-prefix and commit-signing inputs', () => {
  it('reads a base branch, a prefix and commit signing', () => {
    const s = settingsOf(
      parseInputs(
        runnerInputs({ 'base-branch': 'release/2.x', 'branch-prefix': 'bots/agent-', 'commit-signing': 'true' }),
      ),
    );
    expect([s.baseBranch, s.branchPrefix, s.commitSigning]).toEqual(['release/2.x', 'bots/agent-', true]);
  });

  it.each([
    [
      'base-branch',
      'main..dev',
      'input \'base-branch\' is "main..dev": expected a branch name (it contains ".."), or empty for the default branch',
    ],
    [
      'base-branch',
      'feature/.x',
      'input \'base-branch\' is "feature/.x": expected a branch name (its part ".x" starts with "."), or empty for the default branch',
    ],
    [
      'branch-prefix',
      'bad prefix/',
      'input \'branch-prefix\' is "bad prefix/": expected the start of a branch name, such as agent-action/ (as a branch name such as bad prefix/issue-1, it contains a space)',
    ],
    [
      'branch-prefix',
      'agent//',
      'input \'branch-prefix\' is "agent//": expected the start of a branch name, such as agent-action/ (as a branch name such as agent//issue-1, it contains "//")',
    ],
    ['commit-signing', 'yes', 'input \'commit-signing\' is "yes": expected true or false'],
  ])('%s %j is refused, naming the input', (input, raw, message) => {
    const r = parseInputs(runnerInputs({ [input]: raw }));
    expect(r.ok ? [] : r.errors.map((e) => [e.input, e.message])).toEqual([[input, message]]);
  });
});

describe('the sandbox-env and sandbox-limits inputs', () => {
  const RUNNER = { GITHUB_REPOSITORY: 'o/r', GITHUB_EVENT_NAME: 'push' };

  it("sandbox-env: the named variables' values, read from the step's environment; a credential's name makes its value a secret", () => {
    const masked: string[] = [];
    const env = {
      ...RUNNER,
      JAVA_HOME: '/usr/lib/jvm/17',
      NPM_TOKEN: 'npm_tokenForTheTests01',
      PGPASSWORD: 'not-named-1',
    };
    const r = readInputs(runnerInputs({ 'sandbox-env': 'JAVA_HOME, NPM_TOKEN UNSET_ONE' }), env, (s) => masked.push(s));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.settings.sandboxEnv).toEqual({ JAVA_HOME: '/usr/lib/jvm/17', NPM_TOKEN: 'npm_tokenForTheTests01' });
    expect(r.secrets).toEqual([KEY, TOKEN, HEADER, 'npm_tokenForTheTests01']);
    expect(masked).toEqual(r.secrets);
  });

  it.each([
    [
      'GITHUB_TOKEN',
      "input 'sandbox-env' is \"GITHUB_TOKEN\": expected names of variables of the step's environment, separated by commas or spaces (GITHUB_TOKEN is the runner's or the action's own (a token, an input or a file command): commands never get it)",
    ],
    ['ACTIONS_RUNTIME_TOKEN', /ACTIONS_RUNTIME_TOKEN is the runner's or the action's own/],
    ['GITHUB_ENV', /GITHUB_ENV is the runner's or the action's own/],
    ['INPUT_GITHUB-TOKEN', /INPUT_GITHUB-TOKEN is not a variable name/],
    ['1ABC', /1ABC is not a variable name/],
  ])('sandbox-env %j is refused, naming the input', (names, message) => {
    const r = parseInputs(runnerInputs({ 'sandbox-env': names }));
    expect(r.ok ? [] : r.errors.map((e) => [e.input, e.message])).toEqual([
      ['sandbox-env', message instanceof RegExp ? expect.stringMatching(message) : message],
    ]);
  });

  it("a named variable holding the action's own token is refused: commands never get it, under any name", () => {
    const r = readInputs(runnerInputs({ 'sandbox-env': 'MY_COPY' }), { ...RUNNER, MY_COPY: `x-${TOKEN}-y` }, () => {});
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([
      "input 'sandbox-env': MY_COPY holds a secret input's value or a runner token; commands never get those",
    ]);
  });

  it.each([
    [
      'processes=2048 memory=12G',
      { processes: 2048, memoryBytes: 12 * 1024 ** 3, fileSizeBytes: 1024 ** 3, openFiles: 8192 },
    ],
    ['memory=unlimited,file-size=512M', { processes: 1024, fileSizeBytes: 512 * 1024 ** 2, openFiles: 8192 }],
    ['open-files=unlimited', { processes: 1024, memoryBytes: 8 * 1024 ** 3, fileSizeBytes: 1024 ** 3 }],
  ])('sandbox-limits %j', (raw, bounds) => {
    expect(settingsOf(parseInputs(runnerInputs({ 'sandbox-limits': raw }))).sandboxLimits).toEqual(bounds);
  });

  it.each([
    ['processes=10', /processes=10: expected a whole number from 64 to 1000000\)/],
    ['processes=unlimited', /processes=unlimited: expected a whole number from 64 to 1000000\)/],
    ['memory=1G', /memory=1G: expected a size from 2G to 1T \(K, M, G, T\) or unlimited/],
    ['memory=lots', /memory=lots: expected a size/],
    ['cpu=10', /'cpu' is not a limit \(processes, memory, file-size, open-files\)/],
  ])('sandbox-limits %j is an input error that says what is wrong', (raw, message) => {
    const r = parseInputs(runnerInputs({ 'sandbox-limits': raw }));
    expect(r.ok ? [] : r.errors.map((e) => [e.input, e.message])).toEqual([
      ['sandbox-limits', expect.stringMatching(message)],
    ]);
  });
});
