/** Builders for whole splitShell answers, so a row states only what differs from the plain case. */
import type { ShellPart, ShellSplit } from '../../src/policy/shell/split.js';

/** One simple command: its text, argv, which words are literal, and what differs from no assignments, no redirection. */
export const P = (
  text: string,
  words: string[],
  literal: boolean[],
  o: Partial<Pick<ShellPart, 'assignments' | 'redirected' | 'writesFile'>> = {},
): ShellPart => ({
  text,
  words,
  literal,
  assignments: o.assignments ?? [],
  redirected: o.redirected ?? false,
  writesFile: o.writesFile ?? false,
});

/** A whole answer: these parts, and what differs from no unknowns, no writes, no change of directory or environment. */
export const S = (parts: ShellPart[], o: Partial<Omit<ShellSplit, 'parts'>> = {}): ShellSplit => ({
  parts,
  unknowns: o.unknowns ?? [],
  writes: o.writes ?? [],
  changesDirectory: o.changesDirectory ?? false,
  changesEnvironment: o.changesEnvironment ?? false,
});
