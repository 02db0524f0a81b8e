/**
 * Attack (issue 26, third item): an imported session runs the model's hooks on a maintainer's
 * machine. In the Action the model writes `.gemini/settings.json` with a `BeforeModel` hook (only
 * `.gemini/policies/` is refused) and asks a question, so the run suspends with that file in its
 * work tree. On a laptop: `session import ID --restore-worktree`, then `--resume ID --approve`.
 * Both bundles (dist/index.js, dist/cli/index.js) as child processes.
 *
 * Defence: the CLI's folder trust (src/cli/folder-trust.ts): the restore marks the folder
 * DO_NOT_TRUST, and an untrusted folder's settings.json hooks and MCP servers, agents and policies
 * are not used; the CLI says how to trust it. `weaken.mjs ... folder-trust` trusts every folder.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliAt } from '../support/cli-runner.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';
import {
  API_KEY,
  assertBundle,
  developerClone,
  logOf,
  openThread,
  runFix,
  type Thread,
} from '../e2e/approval-support.js';

let t: Thread | undefined;
const dirs: string[] = [];
beforeAll(assertBundle);
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const HOOK = { hooks: { BeforeModel: [{ hooks: [{ type: 'command', command: 'echo ran >> hook-ran.txt' }] }] } };
const cliBundle = () =>
  join(
    process.env.E2E_ACTION_BUNDLE
      ? join(process.env.E2E_ACTION_BUNDLE, '..')
      : fileURLToPath(new URL('../../dist', import.meta.url)),
    'cli/index.js',
  );

describe('a work tree restored from an Action session, with the model’s hook in .gemini/settings.json', () => {
  it('the hook never runs on the developer’s machine, and the CLI says how to trust the folder', async () => {
    t = await openThread([
      reply([
        call('write_file', { file_path: '.gemini/settings.json', content: JSON.stringify(HOOK) }),
        call('run_shell_command', { command: 'node scripts/prep.js' }),
      ]),
      reply([text('Done.')]),
    ]);
    const first = await runFix(t);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id']!;

    const clone = developerClone(t.ws.origin);
    const state = makeTempDir('agent-action-state-');
    dirs.push(clone, state);
    const env = { GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: t.gemini.baseUrl, XDG_STATE_HOME: state };
    const cli = (args: string[]) => runCliAt(cliBundle(), [...args, '--cwd', clone], { env });

    const imported = await cli(['session', 'import', id, '--restore-worktree']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(readFileSync(join(clone, '.gemini/settings.json'), 'utf8')).toContain('hook-ran.txt');
    expect(imported.stderr).toContain('is now marked DO_NOT_TRUST');

    const resumed = await cli(['--resume', id, '--approve', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(clone, 'hook-ran.txt')), 'the model’s hook ran on the developer’s machine').toBe(false);
    expect(resumed.stderr).toMatch(
      /this folder is not trusted .*To trust it, review its \.gemini\/ and set ".*": "TRUST_FOLDER" in .*trustedFolders\.json/,
    );
  });
});
