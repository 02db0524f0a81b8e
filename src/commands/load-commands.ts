/**
 * The custom commands of a run, from their folders in Gemini CLI's order: the user's
 * (`~/.gemini/commands`, the CLI only), the project's (`.gemini/commands`; in the Action, the
 * trusted commit's), then each extension's `commands/` folder, extensions by name. By name, the
 * project's command wins over the user's (Gemini CLI's documented rule); an extension's command
 * that meets a name already taken is renamed `<extension>:<name>` (then `<extension>:<name>1`, ...),
 * as Gemini CLI renames it. A file that does not parse is skipped with a warning naming it.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../common/errors.js';
import { MAX_COMMAND_FILE_BYTES, parseCommandFile, type CommandSource, type CustomCommand } from './command-file.js';

export interface CommandFolder {
  dir: string;
  source: CommandSource;
  /** How messages name the folder: `.gemini/commands`, `~/.gemini/commands`. */
  label: string;
  extension?: string;
}

export interface CommandSet {
  /** By name, in the order they were found. */
  commands: ReadonlyMap<string, CustomCommand>;
  warnings: string[];
}

/** At most this many files are read per folder: a command folder holds a handful. */
const MAX_FILES_PER_FOLDER = 1000;

export async function loadCommands(folders: readonly CommandFolder[]): Promise<CommandSet> {
  const warnings: string[] = [];
  const byName = new Map<string, CustomCommand>();
  const ordered = [
    ...folders.filter((f) => f.source !== 'extension'),
    ...folders
      .filter((f) => f.source === 'extension')
      .sort((a, b) => (a.extension ?? '').localeCompare(b.extension ?? '')),
  ];
  for (const folder of ordered) {
    for (const command of await readFolder(folder, warnings)) {
      if (command.source !== 'extension' || !byName.has(command.name)) {
        byName.set(command.name, command);
        continue;
      }
      const base = `${command.extension}:${command.name}`;
      let name = base;
      for (let n = 1; byName.has(name); n++) name = `${base}${n}`;
      byName.set(name, { ...command, name });
    }
  }
  return { commands: byName, warnings };
}

/** The commands of one folder, sorted by path; a missing folder has none. */
async function readFolder(folder: CommandFolder, warnings: string[]): Promise<CustomCommand[]> {
  let entries: string[];
  try {
    entries = await readdir(folder.dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warnings.push(`${folder.label}: not read: ${messageOf(e)}`);
    return [];
  }
  const files = entries
    .map((e) => e.split('\\').join('/'))
    .filter((e) => e.endsWith('.toml'))
    .sort();
  if (files.length > MAX_FILES_PER_FOLDER)
    warnings.push(`${folder.label}: ${files.length} command files; only the first ${MAX_FILES_PER_FOLDER} are read`);
  const commands: CustomCommand[] = [];
  for (const rel of files.slice(0, MAX_FILES_PER_FOLDER)) {
    const path = join(folder.dir, rel);
    const label = `${folder.label}/${rel}`;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (info.size > MAX_COMMAND_FILE_BYTES) {
      warnings.push(`${label}: skipped: larger than ${MAX_COMMAND_FILE_BYTES / 1024} KB`);
      continue;
    }
    const parsed = parseCommandFile(await readFile(path, 'utf8'), {
      relPath: rel,
      label,
      source: folder.source,
      ...(folder.extension && { extension: folder.extension }),
    });
    if (parsed.ok) commands.push(parsed.command);
    else warnings.push(`custom command skipped: ${parsed.problem}`);
  }
  return commands;
}
