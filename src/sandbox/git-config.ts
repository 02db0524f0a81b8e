/**
 * The `.git/config` a sandboxed command sees: the repository's own, minus anything that carries or
 * points to a credential. actions/checkout (v4/v5) persists `http.https://github.com/.extraheader
 * AUTHORIZATION: basic <token>` in it; v6 moves the token to a file under RUNNER_TEMP and adds an
 * `includeIf "gitdir:..."` pointing there. The sandbox hides RUNNER_TEMP and mounts `.git/`
 * read-only, so this copy is defence in depth: even a token written where we did not expect it
 * stays outside.
 *
 * Git config is line-oriented (`[section "sub"]` headers, `key = value` lines, `\` continuations,
 * `#`/`;` comments), so a line filter that tracks the current section is exact enough: it only ever
 * removes lines, and removing a line never turns another into something git would execute.
 */

/** Sections dropped whole: credential helpers and usernames, and includes (checkout v6's token file). */
const DROPPED_SECTIONS = new Set(['credential', 'include', 'includeif']);
/** Keys dropped in any section: `http.extraheader` and `http.<url>.extraheader`. */
const DROPPED_KEYS = new Set(['extraheader', 'proxyauthmethod']);
/** A value that is an authorization header or a bearer/basic credential, wherever it sits. */
const AUTH_VALUE = /\bauthorization\s*:|\b(basic|bearer|token)\s+[A-Za-z0-9+/=._~-]{8,}/i;
/** `scheme://user:pass@host` or `scheme://token@host`: the userinfo part goes. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s"]+@/gi;

export interface SanitizedGitConfig {
  text: string;
  /** How many lines were dropped or rewritten (for the log, never their content). */
  changed: number;
}

/** Pure: the config text without credential lines; URLs keep their host and path, not their userinfo. */
export function sanitizeGitConfig(text: string): SanitizedGitConfig {
  const out: string[] = [];
  // Stryker disable next-line StringLiteral: before any header no section is a dropped one, whatever its placeholder name
  let section = '';
  let dropping = false; // inside a value continued with `\` from a dropped line
  let changed = 0;
  for (const line of text.split('\n')) {
    if (dropping) {
      dropping = continues(line);
      changed++;
      continue;
    }
    let header = '';
    let body = line;
    const end = headerEnd(line);
    if (end !== -1) {
      header = line.slice(0, end).replace(URL_USERINFO, '$1');
      if (header !== line.slice(0, end)) changed++;
      // Stryker disable next-line StringLiteral: a header without a name is no dropped section, whatever it is called here
      section = /^\s*\[\s*([A-Za-z0-9-]+)/.exec(line)?.[1].toLowerCase() ?? '';
      // Git also accepts `[section] key = value` on one line: the rest is a key line of that section.
      body = line.slice(end);
      if (body.trim() === '') {
        out.push(header);
        continue;
      }
    }
    const key = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[#;])/.exec(body)?.[1].toLowerCase();
    if ((key !== undefined && (DROPPED_SECTIONS.has(section) || DROPPED_KEYS.has(key))) || AUTH_VALUE.test(body)) {
      dropping = continues(body);
      changed++;
      if (header) out.push(header);
      continue;
    }
    const clean = body.replace(URL_USERINFO, '$1');
    if (clean !== body) changed++;
    out.push(header + clean);
  }
  return { text: out.join('\n'), changed };
}

/**
 * Where a section header ends (just after its `]`), or -1 when the line is not one. A subsection
 * is quoted and may hold escaped quotes and `]`: `[url "https://x/]"]`.
 */
function headerEnd(line: string): number {
  const open = /^\s*\[\s*[^\]"\s]*/.exec(line);
  if (!open) return -1;
  let i = open[0].length;
  while (line[i] === ' ' || line[i] === '\t') i++;
  if (line[i] === '"') {
    // Stryker disable next-line EqualityOperator: at i === length, line[i] is undefined, no quote either: `<=` ends the loop one step later, same result
    for (i++; i < line.length && line[i] !== '"'; i++) if (line[i] === '\\') i++;
    // An unterminated quote ran to the end: past it, line[i] is no `]` below either.
    i++;
  }
  return line[i] === ']' ? i + 1 : -1;
}

/** A value line ending in an odd number of backslashes continues on the next line. */
function continues(line: string): boolean {
  const trailing = /\\+$/.exec(line.trimEnd())?.[0].length ?? 0;
  return trailing % 2 === 1;
}
