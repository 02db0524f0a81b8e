/**
 * Attack: a hostile model leans on a workflow's `settings` tools.allowed, which ranks in the User
 * tier (above the repository's Workspace-tier policy, as Gemini CLI ranks it), to run a command the
 * repository's own trusted policy denies. The workflow allows `node` commands to skip confirmation;
 * the repository denies `node -e` outright.
 *
 * Defence: a settings allow rule (tools.allowed, tools.core) never beats a deny rule of the
 * repository's policy files that matches the call (policy/decide.ts, rule.belowWorkspaceDenies).
 * weaken.mjs settings-allow-yields switches it off: the command then runs and leaves its marker.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, text } from '../support/fake-gemini.js';
import { assertBundle, call, logOf, openHostile, resultOf, type Hostile } from './harness.js';

let h: Hostile | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const REPO_DENY =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "node -e"\ndecision = "deny"\npriority = 100\n';

describe("settings' tools.allowed against the repository's deny rules", () => {
  it('a command the workflow allowed but the repository denies is denied, and never runs', async () => {
    h = await openHostile({ files: { '.gemini/policies/deny.toml': REPO_DENY } });
    h.gemini.push(
      reply([
        call('run_shell_command', { command: `node -e "require('fs').writeFileSync('pwned.txt', 'ran')"` }, 'x1'),
        call('run_shell_command', { command: 'node --version' }, 'ok1'),
      ]),
      reply([text('Done.')]),
    );
    const r = await h.runComment('/agent fix', {
      mode: 'default',
      inputs: { settings: JSON.stringify({ tools: { allowed: ['run_shell_command(node)'] } }) },
    });
    const log = logOf(r);
    expect(r.code, log).toBe(0);
    expect(resultOf(h, 'x1'), log).toMatch(/deny by rule at .*deny\.toml.*may not override/);
    expect(existsSync(join(h.ws.dir, 'pwned.txt'))).toBe(false);
    // The same settings rule allows what the repository does not deny.
    expect(resultOf(h, 'ok1'), log).toMatch(/v\d+\.\d+/);
  });
});
