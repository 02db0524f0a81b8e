/**
 * Custom commands through the bundle, with the requester's text as the attacker's lever:
 *
 * 1. `@{path}` reads through the file tools' confined opens: a symlink in the work tree (planted by
 *    an earlier step, or committed on a pull request's head) that points at a secret outside the
 *    workspace is refused, and nothing of the secret reaches the model. `weaken.mjs ...
 *    command-file-confinement` reads the path as it is: the secret then reaches the model.
 * 2. `!{cmd}` is decided by the policy like a run_shell_command call before anything runs: a
 *    command file whose `!{}` no rule allows (unconfined, so "sandboxed commands" does not apply)
 *    runs nothing, and the reply names why; the comment's
 *    text, substituted into an allowed `!{echo {{args}}}`, stays one shell word. `weaken.mjs ...
 *    command-shell-policy` skips the decision: the denied command then runs (its marker appears).
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { assertBundle, asUser, examplePayload, retarget } from '../support/e2e-runner.js';
import { reply, text } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

const ALLOW_ECHO =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\npriority = 100\n';

async function comment(body: string, files: Record<string, string>) {
  world = await startActionWorld({ files, event: { name: 'issue_comment' }, script: [reply([text('ok')])] });
  world.gh.addIssue({ number: 1, title: 'x' });
  const trigger = world.gh.addComment(1, body, { login: 'maintainer' });
  const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  payload.issue.number = 1;
  payload.comment.id = trigger.id;
  payload.comment.body = body;
  asUser(payload.comment.user, 'maintainer');
  asUser(payload.sender, 'maintainer');
  return payload;
}

const sentToModel = (w: ActionWorld) => JSON.stringify(w.gemini.requests.map((r) => r.body));

describe('custom commands, through the bundle', () => {
  it('@{path} through a symlink out of the workspace: refused, the secret never reaches the model', async () => {
    const payload = await comment('/agent show', {
      '.gemini/commands/show.toml': 'prompt = "Here: @{notes/today.md}"\n',
    });
    const outside = makeTempDir('agent-action-sec-outside-');
    writeFileSync(join(outside, 'id_ed25519'), 'PRIVATE-KEY-MATERIAL\n');
    mkdirSync(join(world!.ws.dir, 'notes'), { recursive: true });
    symlinkSync(join(outside, 'id_ed25519'), join(world!.ws.dir, 'notes', 'today.md'));
    const r = await world!.run({
      eventName: 'issue_comment',
      payload,
      inputs: { 'gemini-api-key': 'AIza-sec-cmd-0000' },
    });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
    expect(world!.gemini.requests.length).toBeGreaterThan(0);
    expect(sentToModel(world!)).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(sentToModel(world!)).toContain('Here: @{notes/today.md}');
  });

  it('a !{} no rule allows runs nothing and the reply says why; the comment fills {{args}} of an allowed one as one word', async () => {
    const files = {
      '.gemini/commands/deploy.toml': 'prompt = "!{touch marker-denied-ran}"\n',
      '.gemini/commands/say.toml': 'prompt = "!{echo {{args}}}"\n',
      '.gemini/policies/echo.toml': ALLOW_ECHO,
    };
    const payload = await comment('/agent deploy', files);
    // Unconfined, so the shipped "sandboxed commands" allow does not apply and the catch-all asks.
    const r = await world!.run({
      eventName: 'issue_comment',
      payload,
      inputs: { 'gemini-api-key': 'AIza-sec-cmd-0000', sandbox: 'off' },
    });
    expect(existsSync(join(world!.ws.dir, 'marker-denied-ran'))).toBe(false);
    expect(r.outputs.status).toBe('failed');
    expect(world!.gemini.requests).toEqual([]);
    // Unconfined, the shipped default asks about commands; nobody can be asked here, so it is
    // refused, rule named.
    expect(world!.gh.state.comments.at(-1)!.body).toContain(
      'its !{touch marker-denied-ran} policy would ask a person first (rule agent-action/policies/shell.toml:',
    );
    await world!.close();

    const say = await comment('/agent say $(touch marker-injected); touch marker-injected2', files);
    const s = await world!.run({
      eventName: 'issue_comment',
      payload: say,
      inputs: { 'gemini-api-key': 'AIza-sec-cmd-0000' },
    });
    expect(s.outputs.status, s.stdout + s.stderr).toBe('success');
    expect(existsSync(join(world!.ws.dir, 'marker-injected'))).toBe(false);
    expect(existsSync(join(world!.ws.dir, 'marker-injected2'))).toBe(false);
    expect(sentToModel(world!)).toContain('$(touch marker-injected); touch marker-injected2');
  });
});
