/**
 * One custom command file, as Gemini CLI reads it (`.gemini/commands/**\/*.toml`, TOML format v1):
 * a required string `prompt` and an optional string `description`. Its name comes from its path
 * under the commands folder: folders are namespaces joined with `:` (`git/commit.toml` is
 * `/git:commit`), and each segment keeps only letters, digits, `_`, `-` and `.` (anything else
 * becomes `_`, so a `:` in a file name cannot fake a namespace), cut to 50 characters.
 */
import { parse as parseToml } from 'smol-toml';
import { messageOf } from '../common/errors.js';

/** Where a command comes from: lower sources lose to higher ones by name (load-commands.ts). */
export type CommandSource = 'user' | 'project' | 'extension';

export interface CustomCommand {
  /** `git:commit`: what follows the `/`. */
  name: string;
  description: string;
  /** The template, as the file has it. */
  prompt: string;
  source: CommandSource;
  /** For messages: `.gemini/commands/git/commit.toml`. */
  label: string;
  /** The extension that brings it, if any. */
  extension?: string;
}

/** The most a command file may hold: a prompt is text a person wrote. */
export const MAX_COMMAND_FILE_BYTES = 256 * 1024;

/** Pure: the command name of a file path relative to its commands folder (`/` separated, ending `.toml`). */
export function commandNameOf(relPath: string): string {
  return relPath
    .replace(/\.toml$/, '')
    .split('/')
    .map((segment) => {
      const clean = segment.replace(/[^a-zA-Z0-9_\-.]/g, '_');
      return clean.length > 50 ? `${clean.slice(0, 47)}...` : clean;
    })
    .join(':');
}

/** Pure: a description on one line of at most 100 characters, control characters dropped. */
function displayText(s: string): string {
  const flat = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > 100 ? `${flat.slice(0, 97)}...` : flat;
}

export type ParsedCommandFile = { ok: true; command: CustomCommand } | { ok: false; problem: string };

/** Pure: the command a file's text defines, or why the file is skipped (naming the file and the field). */
export function parseCommandFile(
  text: string,
  o: { relPath: string; label: string; source: CommandSource; extension?: string },
): ParsedCommandFile {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    return { ok: false, problem: `${o.label}: not valid TOML: ${messageOf(e)}` };
  }
  if (doc.prompt === undefined) return { ok: false, problem: `${o.label}: the 'prompt' field is required` };
  if (typeof doc.prompt !== 'string') return { ok: false, problem: `${o.label}: the 'prompt' field must be a string` };
  if (doc.description !== undefined && typeof doc.description !== 'string')
    return { ok: false, problem: `${o.label}: the 'description' field must be a string` };
  const base = o.relPath.split('/').pop() ?? o.relPath;
  let description = displayText((doc.description as string | undefined) || `Custom command from ${base}`);
  if (o.extension) description = `[${o.extension}] ${description}`;
  return {
    ok: true,
    command: {
      name: commandNameOf(o.relPath),
      description,
      prompt: doc.prompt,
      source: o.source,
      label: o.label,
      ...(o.extension && { extension: o.extension }),
    },
  };
}
