/**
 * For tests of the approval flow, which need a command that is asked about: the shipped shell rules
 * (policies/shell.toml) without its `sandboxed = true` allow, as a User-tier `policy` input ahead of
 * the test's own. Sandboxed commands then ask as they did before that rule, read-only ones stay
 * allowed, and the test's own rules (higher priorities in the same tier) still win. Unconfined runs
 * are unchanged: the rule left out never applies there.
 */
import { readFileSync } from 'node:fs';

const SHELL_TOML = new URL('../../policies/shell.toml', import.meta.url);

/** policies/shell.toml's [[rule]] tables, except any with `sandboxed = true`. */
export function shippedAsksText(): string {
  const text = readFileSync(SHELL_TOML, 'utf8');
  const tables = text.split(/^(?=\[\[rule\]\])/m).filter((t) => t.startsWith('[[rule]]'));
  const kept = tables.filter((t) => !/^sandboxed\s*=\s*true/m.test(t));
  if (kept.length === tables.length)
    throw new Error('commands-asked: policies/shell.toml has no sandboxed rule to leave out');
  return kept.join('\n');
}

/** The inputs with the asking shell rules before the test's inline `policy` (if any). */
export function withCommandsAsked(inputs: Record<string, string> = {}): Record<string, string> {
  const own = inputs.policy ?? '';
  if (own !== '' && !own.includes('[[rule]]'))
    throw new Error('commands-asked: the test passes policy files; add the asking rules to them instead');
  return { ...inputs, policy: `${shippedAsksText()}\n${own}` };
}
