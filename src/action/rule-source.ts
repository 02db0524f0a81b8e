/**
 * A policy rule's file as a maintainer knows it, for comments: relative to the repository
 * (`.gemini/policies/deps.toml`, `ci/agent-policy.toml`), or `agent-action/policies/shell.toml` for
 * the action's own defaults. Never a runner path such as `/home/runner/work/_actions/...` or the
 * temporary folder trusted configuration is read into.
 */
import { basename, isAbsolute, relative, sep } from 'node:path';
import { builtinPoliciesDir } from '../policy/load.js';

export function displayRuleSource(source: string, workspace?: string): string {
  if (!isAbsolute(source)) return source; // inline-input labels, `always-approval`, already relative
  const builtin = tryBuiltinDir();
  if (builtin && isInside(builtin, source)) return `agent-action/policies/${relative(builtin, source).split(sep).join('/')}`;
  if (workspace && isInside(workspace, source)) return relative(workspace, source).split(sep).join('/');
  // The workspace tier read from a trusted commit into a temporary folder: the repository path starts at .gemini/.
  const at = source.lastIndexOf(`${sep}.gemini${sep}`);
  if (at >= 0) return source.slice(at + 1).split(sep).join('/');
  return basename(source);
}

const isInside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

function tryBuiltinDir(): string | undefined {
  try {
    return builtinPoliciesDir();
  } catch {
    return undefined;
  }
}
