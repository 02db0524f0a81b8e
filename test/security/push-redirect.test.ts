/**
 * Attack (our own): making the action push elsewhere, or push what it should not. With the sandbox
 * off (a user's `sandbox: off`, or `auto` where bubblewrap cannot run), the model can rewrite
 * `.git/config`: origin's url and pushurl pointed at another repository, a `url.<x>.insteadOf`
 * rewrite, a `remote.origin.receivepack` that is a command. And a stranger's issue title is shaped
 * like git options and refspecs (`--force`, `+main:refs/heads/main`, `..`), since the branch the
 * action pushes is named from it.
 *
 * Defences: the push URL read once before the model ran and defined only for the push process
 * (src/session/git.ts, src/action/action-remote.ts); a rewrite of that URL, and a receivepack,
 * make the action refuse to push, saying why; branch names made of `[a-z0-9-]` only, pushed with
 * an explicit `HEAD:refs/heads/<name>` refspec, never forced.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/git-repo.js';
import { call, reply, text } from '../support/fake-gemini.js';
import {
  assertBundle,
  assertContained,
  expectNoMarkers,
  logOf,
  openHostile,
  readOriginRefs,
  type Hostile,
} from './harness.js';

let h: Hostile | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A bare repository the attacker controls, standing in for another host. */
function evilRemote(): string {
  const dir = makeTempDir('agent-action-evil-remote-');
  execFileSync('git', ['init', '-q', '--bare', dir]);
  return dir;
}

const refsIn = (gitDir: string) =>
  execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' }).trim();

const FIX = call('write_file', { file_path: 'src/app.js', content: 'export const fixed = true;\n' });

describe('pushing elsewhere', () => {
  it("sandbox off: origin's url and pushurl rewritten by the model; the action pushes to the origin it read at the start", async () => {
    h = await openHostile();
    const evil = evilRemote();
    h.gemini.push(
      reply([
        call('run_shell_command', {
          command: `git remote set-url origin ${evil} && git config remote.origin.pushurl ${evil} && git config remote.pushDefault origin && git remote -v`,
        }),
        FIX,
      ]),
      reply([text('Done.')]),
    );
    const mainBefore = readOriginRefs(h.ws.origin)['refs/heads/main'];

    const r = await h.runComment('/agent fix', { mode: 'yolo', sandbox: 'off' });

    expectNoMarkers(h);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(refsIn(evil)).toBe('');
    expect(readOriginRefs(h.ws.origin)[`refs/heads/${r.outputs.branch}`]).toMatch(/^[0-9a-f]{40}$/);
    expect(readOriginRefs(h.ws.origin)['refs/heads/main']).toBe(mainBefore);
    assertContained(h, [r]);
  });

  it.each([
    [
      'a url.insteadOf rewrite of the origin',
      (origin: string, evil: string) => `git config url.${evil}.insteadOf ${origin}`,
      /rewrites/,
    ],
    [
      'a receivepack command',
      (_o: string, _e: string, marker: string) =>
        `git config remote.origin.receivepack 'touch ${marker}; git-receive-pack'`,
      /receivepack/,
    ],
  ])(
    'sandbox off: %s makes the action refuse to push, and say why; nothing reaches the other repository',
    async (_name, plant, why) => {
      h = await openHostile();
      const evil = evilRemote();
      h.gemini.push(
        reply([
          call('run_shell_command', {
            command: `${plant(h.ws.origin, evil, h.marker('receivepack'))} && echo planted`,
          }),
          FIX,
        ]),
        reply([text('Done.')]),
      );

      const r = await h.runComment('/agent fix', { mode: 'yolo', sandbox: 'off' });

      expectNoMarkers(h);
      expect(r.outputs.status, logOf(r)).toBe('failed');
      expect(r.outputs.summary).toMatch(why);
      expect(refsIn(evil)).toBe('');
      expect(Object.keys(readOriginRefs(h.ws.origin))).toEqual(['refs/heads/main']);
      assertContained(h, [r]);
    },
  );

  it('a stranger’s issue title shaped like options and refspecs: the branch is a plain name, main does not move, the title is inert', async () => {
    h = await openHostile({ title: '--force +main:refs/heads/main ../../x HEAD~1 @octo/maintainers' });
    h.gemini.push(reply([FIX]), reply([text('Done.')]));
    const mainBefore = readOriginRefs(h.ws.origin)['refs/heads/main'];

    const r = await h.runComment('/agent fix --force', { mode: 'autoEdit' });

    expectNoMarkers(h);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(r.outputs.branch).toBe('agent-action/issue-7-force-main-refs-heads-main-x-head-1-octo');
    expect(readOriginRefs(h.ws.origin)['refs/heads/main']).toBe(mainBefore);
    const pull = [...h.gh.state.issues.values()].find((i) => i.pull)!;
    expect(pull.title).toBe('Fix #7: --force +main:refs/heads/main ../../x HEAD~1 @\u200Bocto/maintainers');
    assertContained(h, [r]);
  });
});
