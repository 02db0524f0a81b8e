import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareExtensions } from '../../src/core/extensions.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { makeTempDir } from '../support/git-repo.js';

/** An environment that records whether anything listed or read it. */
function watchedEnv(vars: Record<string, string>): { env: Record<string, string>; touched: () => boolean } {
  let touched = false;
  const env = new Proxy(vars, {
    ownKeys(t) {
      touched = true;
      return Reflect.ownKeys(t);
    },
    get(t, k) {
      touched = true;
      return Reflect.get(t, k);
    },
  });
  return { env, touched: () => touched };
}

describe('prepareExtensions', () => {
  it('leaves the environment unread when no server or hook will start a process', async () => {
    const root = makeTempDir('agent-action-ext-');
    for (const o of [undefined, { mcp: { servers: [] }, hooks: [] }]) {
      const { env, touched } = watchedEnv({ PATH: '/usr/bin:/bin', GH_TOKEN: 'ghp_not-a-real-token' });
      const ext = await prepareExtensions(o, {
        root,
        sandbox: createSandbox({ mode: 'off', hostEnv: {} }),
        baseEnv: env,
        secrets: [],
        warn: () => undefined,
      });
      expect(ext.mcp).toBeUndefined();
      expect(ext.hooks).toBeUndefined();
      await ext.close();
      expect(touched()).toBe(false);
    }
  });

  it("gives a hook's command the allow-listed environment and its own env block, nothing else", async () => {
    const root = makeTempDir('agent-action-ext-');
    const out = join(root, 'env.txt');
    const { env, touched } = watchedEnv({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOOK_OUT: out,
      GH_TOKEN: 'a-named-secret',
      NOTE: 'holds the-run-secret inside',
      KEPT: 'plain',
    });
    const ext = await prepareExtensions(
      {
        hooks: [
          {
            event: 'SessionEnd',
            sequential: true,
            hooks: [
              { name: 'dump', command: 'env > "$HOOK_OUT"', timeoutMs: 30_000, env: { HOOK_OUT: out }, source: 'test' },
            ],
          },
        ],
      },
      {
        root,
        sandbox: createSandbox({ mode: 'off', hostEnv: {} }),
        baseEnv: env,
        secrets: ['the-run-secret'],
        warn: () => undefined,
      },
    );
    expect(touched()).toBe(true);
    await ext.close();
    const seen = readFileSync(out, 'utf8');
    expect(seen).toContain('PATH=');
    expect(seen).toContain(`HOOK_OUT=${out}`);
    expect(seen).not.toContain('KEPT'); // default deny: a harmless name is no reason to pass it
    expect(seen).not.toContain('GH_TOKEN');
    expect(seen).not.toContain('the-run-secret');
  });
});
