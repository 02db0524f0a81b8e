/**
 * .gitignore / .geminiignore rules, matched in linear time. The model can write these files, and
 * the `ignore` package compiles each line to a backtracking regex: `a/**` followed by six `/**`
 * and `/b` takes it minutes on one path. Here every line becomes an RE2 pattern (glob-pattern.ts,
 * gitignore flavour) and the rules behave as git's (and as the `ignore` package that Gemini CLI
 * uses): the last matching line wins, `!` re-includes, a trailing `/` matches directories only, a
 * slash anywhere else anchors the line to the file's directory, and a path under an ignored
 * directory is ignored whatever later lines say. Case-insensitive, like `ignore`'s default.
 */
import { RE2JS } from 're2js';
import { translateGlob } from './glob-pattern.js';

interface Rule {
  re: RE2JS;
  negate: boolean;
  dirOnly: boolean;
}

export interface IgnoreRules {
  /** Adds the lines of an ignore file; a line that cannot be read is skipped (as git skips it). */
  add(text: string): IgnoreRules;
  /** `path` relative to the file's directory, `/`-separated; a trailing `/` marks a directory. */
  ignores(path: string): boolean;
}

export function createIgnoreRules(): IgnoreRules {
  const rules: Rule[] = [];
  const dirCache = new Map<string, boolean>();
  const decide = (p: string, isDir: boolean): boolean | undefined => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i];
      if (r.dirOnly && !isDir) continue;
      if (r.re.test(p)) return !r.negate;
    }
    return undefined;
  };
  const dirIgnored = (dir: string): boolean => {
    let hit = dirCache.get(dir);
    if (hit === undefined) {
      hit = decide(dir, true) === true;
      dirCache.set(dir, hit);
    }
    return hit;
  };
  const api: IgnoreRules = {
    add(text) {
      for (const line of text.split(/\r?\n/)) {
        const rule = parseRule(line);
        if (rule) rules.push(rule);
      }
      dirCache.clear();
      return api;
    },
    ignores(path) {
      const isDir = path.endsWith('/');
      const p = isDir ? path.slice(0, -1) : path;
      if (p === '' || rules.length === 0) return false;
      // A directory git does not descend into hides everything below it.
      for (let slash = p.indexOf('/'); slash >= 0; slash = p.indexOf('/', slash + 1)) {
        if (dirIgnored(p.slice(0, slash))) return true;
      }
      return decide(p, isDir) === true;
    },
  };
  return api;
}

function parseRule(raw: string): Rule | undefined {
  if (raw.startsWith('#')) return undefined;
  let line = raw;
  // Trailing spaces go unless escaped with a backslash.
  while (line.endsWith(' ') && !line.endsWith('\\ ')) line = line.slice(0, -1);
  if (line === '') return undefined;
  const negate = line.startsWith('!');
  if (negate) line = line.slice(1);
  const dirOnly = line.endsWith('/') && !line.endsWith('\\/');
  if (dirOnly) line = line.replace(/\/+$/, '');
  if (line === '') return undefined;
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  let source: string;
  try {
    source = translateGlob(line, 'gitignore');
  } catch {
    return undefined;
  }
  const re = RE2JS.compile(
    anchored ? `^(?:${source})$` : `^(?:.*/)?(?:${source})$`,
    RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL,
  );
  return { re, negate, dirOnly };
}
