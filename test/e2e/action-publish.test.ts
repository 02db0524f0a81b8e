/**
 * Publishing controls end to end, through the bundled dist/index.js against the fakes and a real bare
 * origin: `base-branch` and `branch-prefix` (the pull request's base and head names at the fake, the
 * work started from the base branch), and `commit-signing: true` (the commit made through the fake's
 * Git database API, which writes real objects into the origin: no git push reaches it).
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { assertBundle, asUser, examplePayload, readCommit, retarget } from '../support/e2e-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { FAKE_SIGNATURE, REFLOG_MESSAGE } from '../support/fake-github-git-data.js';

const API_KEY = 'AIza-e2e-publish-key-00000';

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

function issueCommentPayload(issue: number, commentId: number, body: string) {
  const p = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  p.issue.number = issue;
  delete p.issue.pull_request;
  p.comment.id = commentId;
  p.comment.body = body;
  asUser(p.comment.user, 'maintainer');
  asUser(p.sender, 'maintainer');
  return p;
}

const originGit = (origin: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', origin, ...args], { encoding: 'utf8' }).trim();

/** The pull request the run opened at the fake. */
const openedPull = (w: ActionWorld) => [...w.gh.state.issues.values()].find((i) => i.pull);

describe('the bundled action: base-branch and branch-prefix', () => {
  it('starts from the base branch, names the branch with the prefix, and targets the base', async () => {
    world = await startActionWorld({
      files: { 'src/version.js': 'export const version = "3.0.0";\n' },
      branches: { 'release/2.x': { 'src/version.js': 'export const version = "2.4.0";\n' } },
      event: { name: 'issue_comment' },
      script: [
        // The line exists only on release/2.x: the edit succeeds only if the work started there.
        reply([
          call('replace', {
            file_path: 'src/version.js',
            old_string: 'version = "2.4.0"',
            new_string: 'version = "2.4.1"',
          }),
        ]),
        reply([text('Bumped the patch version.')]),
      ],
    });
    const { gh, ws } = world;
    gh.addIssue({ number: 7, title: 'Release 2.4.1', body: 'Bump it.', user: { login: 'reporter' } });
    const trigger = gh.addComment(7, '/agent fix', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(7, trigger.id, trigger.body),
      inputs: { 'gemini-api-key': API_KEY, 'base-branch': 'release/2.x', 'branch-prefix': 'bots/agent-' },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    const branch = 'bots/agent-issue-7-release-2-4-1';
    expect(r.outputs).toMatchObject({ status: 'success', branch });
    const pr = openedPull(world);
    expect(pr?.pull).toMatchObject({ head: { ref: branch }, base: { ref: 'release/2.x' } });
    expect(readCommit(ws.origin, `refs/heads/${branch}`).parents).toEqual([ws.shas['release/2.x']]);
    expect(originGit(ws.origin, 'show', `${branch}:src/version.js`)).toBe('export const version = "2.4.1";');
  });

  it('refuses a base branch git would refuse, naming the input, before any model request', async () => {
    world = await startActionWorld({ files: { 'a.txt': 'a\n' }, event: { name: 'issue_comment' }, script: [] });
    const { gh } = world;
    gh.addIssue({ number: 3, title: 'x', body: '', user: { login: 'reporter' } });
    const trigger = gh.addComment(3, '/agent fix', { login: 'maintainer' });
    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(3, trigger.id, trigger.body),
      inputs: { 'gemini-api-key': API_KEY, 'base-branch': 'main..evil' },
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(
      'input \'base-branch\' is "main..evil": expected a branch name (it contains ".."), or empty for the default branch',
    );
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(world.gemini.requests).toEqual([]);
  });
});

/** A script in the repository that makes every kind of change the tree API has to carry. */
const CHANGE_SCRIPT = [
  "printf '\\211PNG\\r\\n\\032\\n\\000\\001\\377\\376' > logo.png",
  'rm old.txt',
  'chmod +x run.sh',
  'mv notes.txt docs-notes.txt',
  'ln -s README.md readme-link',
  '',
].join('\n');

describe('the bundled action: commit-signing', () => {
  it('makes the commit through the API (binary, deletion, mode, rename, symlink), pushes nothing, and moves the checkout to it', async () => {
    world = await startActionWorld({
      files: {
        'README.md': '# hello\n',
        'old.txt': 'to be deleted\n',
        'run.sh': '#!/bin/sh\necho run\n',
        'notes.txt': 'renamed, same content\n',
        'tools/change.sh': CHANGE_SCRIPT,
      },
      event: { name: 'issue_comment' },
      script: [
        reply([call('run_shell_command', { command: 'sh tools/change.sh' })]),
        reply([text('Made the changes.')]),
      ],
    });
    const { gh, ws } = world;
    originGit(ws.origin, 'config', 'core.logAllRefUpdates', 'always');
    gh.addIssue({ number: 9, title: 'Assets', body: 'Add the logo.', user: { login: 'reporter' } });
    const trigger = gh.addComment(9, '/agent fix', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(9, trigger.id, trigger.body),
      inputs: {
        'gemini-api-key': API_KEY,
        'commit-signing': 'true',
        policy:
          '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "sh tools/change.sh"\ndecision = "allow"\npriority = 100\n',
      },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    const branch = 'agent-action/issue-9-assets';
    expect(r.outputs).toMatchObject({ status: 'success', branch });

    // The API made the commit: a blob per new content (base64), one tree on main's, a commit, a ref.
    const blobs = gh.calls('POST', /\/git\/blobs$/);
    expect(blobs.length).toBeGreaterThan(0);
    expect(blobs.every((b) => (b.body as { encoding: string }).encoding === 'base64')).toBe(true);
    const [treeCall] = gh.calls('POST', /\/git\/trees$/);
    expect((treeCall.body as { base_tree: string }).base_tree).toBe(originGit(ws.origin, 'rev-parse', 'main^{tree}'));
    expect((treeCall.body as { tree: unknown[] }).tree).toEqual(
      expect.arrayContaining([
        { path: 'old.txt', mode: '100644', type: 'blob', sha: null },
        { path: 'notes.txt', mode: '100644', type: 'blob', sha: null },
        expect.objectContaining({ path: 'docs-notes.txt', mode: '100644' }),
        expect.objectContaining({ path: 'run.sh', mode: '100755' }),
        expect.objectContaining({ path: 'readme-link', mode: '120000' }),
        expect.objectContaining({ path: 'logo.png', mode: '100644' }),
      ]),
    );
    const [commitCall] = gh.calls('POST', /\/git\/commits$/);
    expect(commitCall.body).not.toHaveProperty('author');
    expect(commitCall.body).not.toHaveProperty('committer');
    expect(gh.calls('POST', /\/git\/refs$/)).toHaveLength(1);

    // The branch is the commit the fake signed, on main, with exactly the agent's changes.
    const head = readCommit(ws.origin, `refs/heads/${branch}`);
    expect(head.parents).toEqual([ws.mainSha]);
    expect(head.committer).toBe('GitHub <noreply@github.com>');
    expect(originGit(ws.origin, 'cat-file', 'commit', branch)).toContain(FAKE_SIGNATURE);
    expect(head.message).toContain('Co-authored-by: maintainer <maintainer@users.noreply.github.com>');
    const logo = execFileSync('git', ['--git-dir', ws.origin, 'cat-file', 'blob', `${branch}:logo.png`]);
    expect([...logo]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x01, 0xff, 0xfe]);
    expect(originGit(ws.origin, 'ls-tree', '-r', '--format=%(objectmode) %(path)', branch).split('\n').sort()).toEqual(
      [
        '100644 README.md',
        '100644 docs-notes.txt',
        '100644 logo.png',
        '100644 tools/change.sh',
        '100755 run.sh',
        '120000 readme-link',
      ].sort(),
    );
    expect(originGit(ws.origin, 'cat-file', 'blob', `${branch}:readme-link`)).toBe('README.md');

    // No push reached the origin: the branch's only update is the API's.
    expect(originGit(ws.origin, 'reflog', 'show', '--format=%gs', `refs/heads/${branch}`).split('\n')).toEqual([
      REFLOG_MESSAGE,
    ]);
    // The pull request is from that branch; the workspace's HEAD is the commit GitHub made.
    expect(openedPull(world)?.pull).toMatchObject({
      head: { ref: branch, sha: originGit(ws.origin, 'rev-parse', branch) },
    });
    expect(execFileSync('git', ['-C', ws.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()).toBe(
      originGit(ws.origin, 'rev-parse', branch),
    );
  });
});

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
/** The repository's check: fails until add() adds. */
const CHECK_SH = "grep -q 'a + b' src/math.js && echo 'check passed' || { echo 'check failed'; exit 1; }\n";
const checkScript = () => [
  reply([call('run_shell_command', { command: 'sh scripts/check.sh' })]),
  reply([call('replace', { file_path: 'src/math.js', old_string: 'a - b', new_string: 'a + b' })]),
  reply([call('run_shell_command', { command: 'sh scripts/check.sh' })]),
  reply([text('Fixed add(); the check passes now.')]),
];

async function checkWorld(): Promise<ActionWorld> {
  const w = await startActionWorld({
    files: { 'src/math.js': BUGGY, 'scripts/check.sh': CHECK_SH },
    event: { name: 'issue_comment' },
    script: checkScript(),
  });
  w.gh.addIssue({ number: 4, title: 'add() subtracts', body: 'add(2, 2) is 0.', user: { login: 'reporter' } });
  return w;
}

describe('the bundled action: sandboxed commands under the shipped policy', () => {
  it('runs a sandboxed check without a question, and the pull request lists it with its exit codes', async () => {
    world = await checkWorld();
    const { gh } = world;
    const trigger = gh.addComment(4, '/agent fix', { login: 'maintainer' });
    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(4, trigger.id, trigger.body),
      inputs: { 'gemini-api-key': API_KEY, sandbox: 'required' },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    expect(gh.state.comments.some((c) => c.body.includes('/agent approve'))).toBe(false);
    expect(r.summary).toContain(
      'Shipped policy: commands run in the sandbox without asking in default and auto_edit modes',
    );
    const body = openedPull(world)?.body ?? '';
    expect(body).toContain(
      '### Commands the agent ran\n\n- `sh scripts/check.sh`: exit 1\n- `sh scripts/check.sh`: exit 0',
    );
  });

  it('asks about the same command when the sandbox is off, and says why', async () => {
    world = await checkWorld();
    const { gh } = world;
    const trigger = gh.addComment(4, '/agent fix', { login: 'maintainer' });
    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(4, trigger.id, trigger.body),
      inputs: { 'gemini-api-key': API_KEY, sandbox: 'off' },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('awaiting_approval');
    const question = gh.state.comments.find((c) => c.body.includes('/agent approve'));
    expect(question?.body).toContain('sh scripts/check.sh');
    expect(question?.body).toContain(
      'Without the sandbox, the shipped policy asks about every command that is not read-only.',
    );
    expect(r.summary).toContain(
      'Shipped policy: without the sandbox, every command that is not read-only is asked about.',
    );
    expect(openedPull(world)).toBeUndefined();
  });
});
