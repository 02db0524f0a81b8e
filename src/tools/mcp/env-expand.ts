/**
 * `$VAR`, `${VAR}` and `${VAR:-default}` in MCP server settings, as Gemini CLI expands them (an
 * unset variable is empty text; `\$` is a literal dollar sign). Pure: the caller chooses the
 * environment, which is the whole decision (see README, "MCP servers": the workflow's own input may
 * reference the step's environment; settings files only the one every command sees).
 */

export interface Expansion {
  value: string;
  /** The variables referenced, set or not, in order of first use. */
  names: string[];
  /** Those that came out empty (unset or empty, without a `:-default`). */
  empty: string[];
}

const REFERENCE = /\\\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>): Expansion {
  const names: string[] = [];
  const empty: string[] = [];
  const value = text.replace(
    REFERENCE,
    // eslint-disable-next-line max-params -- String.prototype.replace passes one argument per capture group
    (match, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
      if (match === '\\$') return '$';
      const name = (braced ?? bare)!;
      if (!names.includes(name)) names.push(name);
      const v = env[name];
      if ((v === undefined || v === '') && fallback !== undefined) return fallback;
      if (!v && !empty.includes(name)) empty.push(name);
      return v ?? '';
    },
  );
  return { value, names, empty };
}
