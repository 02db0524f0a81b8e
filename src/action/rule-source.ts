/**
 * A policy rule's file as a maintainer knows it, for comments: relative to the repository
 * (`.gemini/policies/deps.toml`, `ci/agent-policy.toml`), or `agent-action/policies/shell.toml` for
 * the action's own defaults. Never a runner path such as `/home/runner/work/_actions/...` or the
 * temporary folder trusted configuration is read into.
 */
import { basename, isAbsolute, relative, sep } from 'node:path';
import { builtinPoliciesDir } from '../policy/load.js';
import { isInside } from '../common/paths.js';

export function displayRuleSource(source: string, workspace?: string): string {
  if (!isAbsolute(source)) return source; // inline-input labels, `always-approval`, already relative
  const builtin = tryBuiltinDir();
  if (builtin && isBelow(builtin, source))
    return `agent-action/policies/${relative(builtin, source).split(sep).join('/')}`;
  if (workspace && isBelow(workspace, source)) return relative(workspace, source).split(sep).join('/');
  // The workspace tier read from a trusted commit into a temporary folder: the repository path starts at .gemini/.
  const at = source.lastIndexOf(`${sep}.gemini${sep}`);
  if (at >= 0)
    return source
      .slice(at + 1)
      .split(sep)
      .join('/');
  return basename(source);
}

/** Strictly below `dir`: a policy file is never the folder itself. */
const isBelow = (dir: string, path: string): boolean => relative(dir, path) !== '' && isInside(dir, path);

function tryBuiltinDir(): string | undefined {
  try {
    return builtinPoliciesDir();
  } catch {
    return undefined;
  }
}
