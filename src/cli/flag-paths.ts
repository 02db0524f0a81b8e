import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AgentError } from '../common/errors.js';

/**
 * Policy paths named on the command line, absolute, each checked to exist: a mistyped path is a
 * bad flag ("--policy ./p.toml: not found"), not a policy file that failed to parse.
 */
export function resolveFlagPaths(flag: string, paths: readonly string[], cwd: string): string[] {
  return paths.map((p) => {
    const abs = resolve(cwd, p);
    if (!statSync(abs, { throwIfNoEntry: false })) {
      throw new AgentError('input', `${flag} ${p}: not found${abs === p ? '' : ` (looked for ${abs})`}`, {
        site: { input: flag, file: abs },
      });
    }
    return abs;
  });
}
