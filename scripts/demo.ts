/**
 * `npm run demo`: the bundled action (dist/index.js) run the way a GitHub runner runs it, on an
 * `issue_comment` "/agent fix" event, against a loopback GitHub server and a local git origin, with
 * a RECORDED model session played back by a loopback Gemini server. No network, no account.
 * Prints what the action posted (reaction, comments, pull request) and pushed (log and diff).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, reply, startFakeGemini, text, usage, type FakeReply } from '../test/support/fake-gemini.js';
import { startFakeGitHub } from '../test/support/fake-github.js';
import { asUser, BUNDLE, examplePayload, REPO_ROOT, refsOf, retarget, runAction } from '../test/support/e2e-runner.js';
import { createJob } from '../test/support/runner-model.js';

const BUG = "export function slugify(title) {\n  return title.trim().replace(/[^A-Za-z0-9]+/g, '-');\n}\n";
const FILES = {
  'package.json': '{ "name": "slugs", "type": "module", "scripts": { "test": "node --test" } }\n',
  'src/slugify.js': BUG,
  'test/slugify.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slugify.js';\n\ntest('slugs are lower case', () => assert.equal(slugify('Hello World'), 'hello-world'));\n",
};

/** The model's side of a real fix session, recorded as wire replies and played back verbatim. */
const RECORDING: FakeReply[] = [
  reply(
    [
      text('Let me read the function and its test.'),
      call('read_file', { file_path: 'src/slugify.js' }, 'r1'),
      call('read_file', { file_path: 'test/slugify.test.js' }, 'r2'),
    ],
    {
      usage: usage(2140, 61),
    },
  ),
  reply(
    [
      text('The test expects lower case, but slugify never lower-cases. '),
      call(
        'replace',
        {
          file_path: 'src/slugify.js',
          old_string: '  return title.trim().replace(',
          new_string: '  return title.trim().toLowerCase().replace(',
        },
        'e1',
      ),
    ],
    { usage: usage(2390, 74) },
  ),
  reply(
    [
      text(
        '`slugify` now lower-cases the title before replacing runs of other characters with `-`, so `slugify("Hello World")` is `hello-world` and the test passes.',
      ),
    ],
    {
      usage: usage(2520, 41),
    },
  ),
];

const rule = (title: string) =>
  console.log(`\n${'='.repeat(8)} ${title} ${'='.repeat(Math.max(0, 70 - title.length))}`);
const indent = (s: string) => s.replace(/^/gm, '    ');
const gitIn = (gitDir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).trimEnd();

async function demo(): Promise<number> {
  console.log('agent-action demo: the bundled action on an issue_comment "/agent fix" event.');
  console.log('NOTE: the model is a RECORDING. A loopback server replays a recorded Gemini session;');
  console.log('      no request leaves this machine, and no account or API key is needed.');
  console.log('      GitHub is a loopback fake too; git pushes go to a local bare repository.');

  if (!existsSync(BUNDLE)) {
    rule('building dist/index.js (first run only)');
    const b = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('the build failed');
  }

  // The repository on a loopback "GitHub" and the job the comment starts: its checkout as actions/checkout leaves it.
  const job = createJob(FILES);
  const ws = { dir: job.checkout.dir, origin: job.remote.dir };
  const gh = await startFakeGitHub();
  const gemini = await startFakeGemini(RECORDING);
  try {
    gh.state.resolveRef = refsOf(ws.origin);
    gh.addIssue({
      number: 1,
      title: 'slugify keeps upper-case letters',
      body: '`slugify("Hello World")` gives `Hello-World`; URLs want `hello-world`.',
      user: { login: 'reporter' },
    });
    const trigger = gh.addComment(1, '/agent fix', { login: 'maintainer' });

    rule('the repository before');
    console.log(`origin (bare): ${ws.origin}\nworkspace (the runner's clone): ${ws.dir}`);
    const before = spawnSync(process.execPath, ['--test'], { cwd: ws.dir, encoding: 'utf8' });
    console.log(`node --test: ${before.status === 0 ? 'passes' : 'FAILS'} (exit ${before.status})`);

    const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
    payload.issue.number = 1;
    delete payload.issue.pull_request;
    payload.comment.id = trigger.id;
    payload.comment.body = trigger.body;
    asUser(payload.comment.user, 'maintainer');
    asUser(payload.sender, 'maintainer');

    rule('running node dist/index.js (maintainer commented "/agent fix" on issue #1)');
    const r = await runAction({
      eventName: 'issue_comment',
      payload,
      job,
      inputs: {
        'gemini-api-key': 'demo-key-not-a-secret',
        'gemini-base-url': gemini.baseUrl,
        model: 'gemini-2.5-flash',
      },
      env: { GITHUB_API_URL: gh.url },
    });
    console.log(
      `exit code ${r.code}; model requests served from the recording: ${gemini.requests.length} of ${RECORDING.length}`,
    );
    if (r.code !== 0) console.log(indent(r.stdout + r.stderr));

    rule('outputs (GITHUB_OUTPUT)');
    for (const [k, v] of Object.entries(r.outputs)) console.log(`  ${k}: ${v.includes('\n') ? `\n${indent(v)}` : v}`);

    rule("what it posted on GitHub (the loopback server's state)");
    for (const x of gh.state.reactions) console.log(`  reaction :${x.content}: on comment ${x.id} by ${x.user.login}`);
    for (const c of gh.state.comments.filter((c) => c.id !== trigger.id)) {
      console.log(
        `  comment ${c.id} on #${c.issue_number} by ${c.user.login} (edited ${gh.calls('PATCH', new RegExp(`/issues/comments/${c.id}$`)).length} times):`,
      );
      console.log(indent(c.body));
    }
    for (const pr of [...gh.state.issues.values()].filter((i) => i.pull)) {
      console.log(`  pull request #${pr.number}: ${pr.title}  (${pr.pull!.head.ref} -> ${pr.pull!.base.ref})`);
      console.log(indent(pr.body));
    }

    const branch = r.outputs.branch;
    rule(`what it pushed: ${branch || '(nothing)'}`);
    if (branch) {
      console.log(
        gitIn(
          ws.origin,
          'log',
          '--format=commit %H%nAuthor: %an <%ae>%nCommitter: %cn <%ce>%n%n%w(0,4,4)%B',
          `main..${branch}`,
        ),
      );
      console.log(gitIn(ws.origin, 'diff', '--stat', '--patch', `main...${branch}`));
      const check = join(ws.dir, '..', `${ws.dir.split('/').pop()}-check`);
      execFileSync('git', ['clone', '-q', '--branch', branch, ws.origin, check], { stdio: 'ignore' });
      const after = spawnSync(process.execPath, ['--test'], { cwd: check, encoding: 'utf8' });
      console.log(
        `\nnode --test on a fresh clone of ${branch}: ${after.status === 0 ? 'passes' : 'FAILS'} (exit ${after.status})`,
      );
    }

    rule('done');
    console.log(`status=${r.outputs.status}. Again: the model's replies were a recording, not a live Gemini session.`);
    return r.code === 0 && r.outputs.status === 'success' && Boolean(branch) ? 0 : 1;
  } finally {
    await gh.close();
    await gemini.close();
  }
}

demo().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`demo failed: ${e instanceof Error ? e.stack : String(e)}`);
    process.exit(1);
  },
);
