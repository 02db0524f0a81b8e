import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { closeOpened, listOpenedDir, openDirIn, type OpenedDir } from '../confined-fs.js';
import { defineTool, ToolFailure } from '../define-tool.js';
import { listFiles } from '../file-list.js';
import { guardRun, okOutput, plural, withMemory } from '../tool-output.js';
import { createGlobMatcher } from '../glob-matcher.js';
import { resolveInWorkspace } from '../workspace.js';

const MAX_ENTRIES = 1000;

const params = {
  type: 'object',
  required: ['dir_path'],
  properties: {
    dir_path: { type: 'string', description: 'Directory to list ("." for the root).' },
    ignore: { type: 'array', items: { type: 'string' }, description: 'Globs of names to leave out.' },
    file_filtering_options: {
      type: 'object',
      properties: {
        respect_git_ignore: { type: 'boolean' },
        respect_gemini_ignore: { type: 'boolean' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  kind: 'read',
  description:
    'Lists a directory, subdirectories first (marked "/"), without what .gitignore ignores unless told otherwise.',
  params,
  async prepare(args, env) {
    const dir = await resolveInWorkspace(env.root, args.dir_path, 'read');
    if (!dir.exists) throw new ToolFailure('not_found', `directory not found: ${args.dir_path}`);
    if (!(await stat(dir.abs)).isDirectory())
      throw new ToolFailure('invalid_args', `${args.dir_path} is a file, not a directory; use read_file`);
    const filtering = args.file_filtering_options ?? {};
    const skips = (args.ignore ?? []).map((g) => createGlobMatcher(g, true));
    return {
      title: `list ${dir.rel}`,
      paths: [dir.rel],
      policyArgs: { dir_path: dir.rel },
      run: ({ signal }) =>
        guardRun(
          signal,
          async () => {
            // Opened and checked now, and listed through the descriptor (confined-fs.ts): a folder
            // swapped for a link out of the workspace since the call was checked is refused.
            const opened = openDirIn(env.root, dir.abs, { shown: dir.rel });
            let text: string;
            let count: number;
            try {
              const listed = await listOpenedDir(env.root, opened);
              const skip = (name: string) => skips.some((m) => m(name));
              // Visible = what survives git's rules; computed from the file list so nested rules apply.
              // git lists by path, so its names only ever hide entries of the listing above, never add one.
              const visible = await visibleNames(env.root, dir.abs, {
                rel: dir.rel,
                respectGitIgnore: filtering.respect_git_ignore ?? true,
                respectGeminiIgnore: filtering.respect_gemini_ignore ?? true,
                signal,
              });
              const entries: Array<{ name: string; isDir: boolean }> = [];
              let hidden = 0;
              for (const e of listed) {
                const { name } = e;
                if (name === '.git' || skip(name)) continue;
                const isDir = e.isDirectory();
                if (
                  visible &&
                  !visible.has(name) &&
                  !(isDir && visible.has(`${name}/`)) &&
                  !(isDir && (await isEmptyDir(env.root, opened, name)))
                ) {
                  hidden++;
                  continue;
                }
                entries.push({ name, isDir });
              }
              entries.sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name));
              const shown = entries.slice(0, MAX_ENTRIES);
              const lines = shown.map((e) => (e.isDir ? `${e.name}/` : e.name));
              text = `Directory listing for ${dir.rel}:\n${lines.length > 0 ? lines.join('\n') : '(empty directory)'}`;
              if (entries.length > shown.length) text += `\n(${entries.length - shown.length} more entries not shown)`;
              if (hidden > 0) text += `\n(${plural(hidden, 'entry', 'entries')} ignored by .gitignore/.geminiignore)`;
              count = entries.length;
            } finally {
              closeOpened(opened);
            }
            return okOutput(
              await withMemory(env, text, { dir: opened.real, signal }),
              `listed ${dir.rel}: ${plural(count, 'entry', 'entries')}`,
            );
          },
          // git lists the files for the filter: the call ends once that process is gone.
          { endsOnAbort: true },
        ),
    };
  },
});

/**
 * Names directly in dir that contain at least one non-ignored file (dirs as `name/`), or undefined
 * when nothing is filtered. An empty directory has no files, so it shows only when unfiltered.
 */
async function visibleNames(
  root: string,
  abs: string,
  opts: { rel: string; respectGitIgnore: boolean; respectGeminiIgnore: boolean; signal: AbortSignal },
): Promise<Set<string> | undefined> {
  const { rel } = opts;
  if (!opts.respectGitIgnore && !opts.respectGeminiIgnore) return undefined;
  const files = await listFiles(root, abs, opts);
  const prefix = rel === '.' ? '' : `${rel}/`;
  const out = new Set<string>();
  for (const f of files) {
    const inside = f.slice(prefix.length);
    const slash = inside.indexOf('/');
    out.add(slash === -1 ? inside : `${inside.slice(0, slash)}/`);
  }
  return out;
}

/** A subdirectory of the opened one, opened and checked in turn; true only when it holds nothing. */
async function isEmptyDir(root: string, parent: OpenedDir, name: string): Promise<boolean> {
  let dir: OpenedDir;
  try {
    dir = openDirIn(root, join(parent.path, name), { shown: name });
  } catch {
    return false;
  }
  try {
    return (await listOpenedDir(root, dir)).length === 0;
  } catch {
    return false;
  } finally {
    closeOpened(dir);
  }
}
