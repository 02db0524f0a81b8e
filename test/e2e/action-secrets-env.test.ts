/**
 * Secrets leave the action's environment before any tool exists (issue #11). Through the bundled
 * action, with the runner's tokens set as a runner sets them: a command the model runs prints `env`,
 * and every git process the action itself starts writes its environment to a log (a `git` wrapper
 * first on PATH). Neither may hold a secret. The command's environment is also scrubbed by the tool
 * and confined by the sandbox; the git log shows what is left in the action's own process.env.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import { BUNDLE, issueCommentPayload } from '../support/e2e-runner.js';
import { functionResponses, logOf } from './approval-support.js';

let world: ActionWorld | undefined;
const dirs: string[] = [];
beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
});
afterEach(async () => {
  await world?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const INPUT_SECRETS = { 'gemini-api-key': 'AIza-e2e-secret-env-1111', 'session-key': 'session-secret-e2e-2222' };
const RUNNER_SECRETS = {
  ACTIONS_RUNTIME_TOKEN: 'actions-runtime-secret-3333',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-secret-4444',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.actions.test/token?secret-5555',
  ACTIONS_CACHE_URL: 'https://cache.actions.test/secret-6666/',
  ACTIONS_RESULTS_URL: 'https://results.actions.test/secret-7777/',
  GITHUB_TOKEN: 'ghs_jobEnvSecret8888',
  GH_TOKEN: 'ghs_ghCliSecret9999',
};
const SECRET_NAMES = [
  'INPUT_GEMINI-API-KEY',
  'INPUT_SESSION-KEY',
  'INPUT_GITHUB-TOKEN',
  ...Object.keys(RUNNER_SECRETS),
];

describe('the bundled action keeps no secret in its environment', () => {
  it('a command printing env, and every git the action runs, see none of them', async () => {
    const bin = makeTempDir('agent-action-gitwrap-');
    dirs.push(bin);
    const gitLog = join(bin, 'git-env.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\n{ echo "=== git $*"; env; } >> '${gitLog}'\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);

    world = await startActionWorld({
      files: { 'src/x.js': 'export const x = 1 - 1;\n' },
      event: { name: 'issue_comment' },
      script: [
        reply([
          call('run_shell_command', { command: 'env', description: 'look around' }),
          call('replace', { file_path: 'src/x.js', old_string: '1 - 1', new_string: '1 + 1' }),
        ]),
        reply([text('x is now 1 + 1.')]),
      ],
    });
    const { ws, gh, gemini } = world;
    dirs.push(ws.dir, ws.origin);
    gh.addIssue({ number: 3, title: 'x should be 2' });
    const trigger = gh.addComment(3, '/agent fix', { login: 'maintainer' });
    const payload = issueCommentPayload(3, { id: trigger.id, body: trigger.body });

    const r = await world.run({
      eventName: 'issue_comment',
      payload,
      inputs: { ...INPUT_SECRETS, 'approval-mode': 'yolo' },
      env: { PATH: `${bin}:${process.env.PATH}`, ...RUNNER_SECRETS },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status, logOf(r)).toBe('success');
    const inputToken = r.env['INPUT_GITHUB-TOKEN'];
    expect(inputToken).toMatch(/^ghs_/);

    // What the command printed went back to the model: it answered the call, without a secret.
    const [envResult] = functionResponses(gemini.requests[1].body).filter(
      (f) => f.id === 'e1' || f.name === 'run_shell_command',
    );
    expect(envResult).toBeDefined();
    const printed = JSON.stringify(envResult.response);
    for (const secret of [...Object.values(INPUT_SECRETS), ...Object.values(RUNNER_SECRETS), inputToken])
      expect(printed).not.toContain(secret);
    for (const name of SECRET_NAMES) expect(printed).not.toContain(`${name}=`);

    // Every git the action ran (status, add, commit, push...) inherited no secret either. The
    // github-token input is left out here: handing it to the one `git push` that needs it is allowed.
    const logged = readFileSync(gitLog, 'utf8');
    expect(logged.match(/^=== git /gm)?.length ?? 0).toBeGreaterThan(2);
    for (const secret of [...Object.values(INPUT_SECRETS), ...Object.values(RUNNER_SECRETS)])
      expect(logged).not.toContain(secret);
    for (const name of SECRET_NAMES) expect(logged).not.toContain(`${name}=`);
  });
});
