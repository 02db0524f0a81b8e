/**
 * An ActionFace for running the action in-process (`runAction`): inputs read from INPUT_* variables
 * of a record exactly as `@actions/core`'s getInput reads them from process.env (upper-cased name,
 * spaces to `_`, trimmed), the record itself as the runner environment (secrets are deleted from it,
 * as from process.env), and a log that keeps its lines.
 */
import type { ActionFace } from '../../src/action/main.js';

const inputKey = (name: string): string => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;

export function createTestFace(
  env: Record<string, string | undefined>,
  extra: Partial<ActionFace> = {},
): ActionFace & { lines: string[]; masked: string[] } {
  const lines: string[] = [];
  const masked: string[] = [];
  return {
    getInput: (name) => (env[inputKey(name)] ?? '').trim(),
    env,
    setSecret: (s) => void masked.push(s),
    log: {
      info: (l) => lines.push(l),
      notice: (l) => lines.push(l),
      warning: (l) => lines.push(`warning: ${l}`),
      group: (_t, fn) => fn(),
    },
    retryAfterBaseMs: 1,
    lines,
    masked,
    ...extra,
  };
}
