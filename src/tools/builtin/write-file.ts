import { stat } from 'node:fs/promises';
import { defineTool, ToolFailure, type TextFileAccess } from '../define-tool.js';
import { diffStat, readTextFile, unifiedDiff, writeTextFile, type TextFile } from '../file-text.js';
import { guardRun, okOutput } from '../tool-output.js';
import { resolveInWorkspace, type ResolvedPath } from '../workspace.js';

const params = {
  type: 'object',
  required: ['file_path', 'content'],
  properties: {
    file_path: { type: 'string' },
    content: { type: 'string', description: "The whole new content; no placeholders like '// ... rest of code'." },
  },
  additionalProperties: false,
} as const;

export const writeFileTool = defineTool({
  name: 'write_file',
  kind: 'edit',
  description:
    'Writes a whole file, creating missing directories; an existing file keeps its line endings and encoding. For small edits use replace.',
  params,
  async prepare(args, env) {
    const file = await resolveInWorkspace(env.root, args.file_path, 'write');
    const before = await readExisting(env.root, file, env.files);
    const after = normalizeNewlines(args.content, before);
    const patch = unifiedDiff(file.rel, { before: before?.text ?? '', after, isNew: before === undefined });
    return {
      title: before ? `overwrite ${file.rel} (${diffStat(patch)})` : `create ${file.rel}`,
      paths: [file.rel],
      policyArgs: { file_path: file.rel, content: args.content },
      preview: patch,
      diff: { path: file.abs, oldText: before ? before.text : null, newText: after },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          const target = await resolveInWorkspace(env.root, args.file_path, 'write');
          const current = await readExisting(env.root, target, env.files);
          const next: TextFile = current
            ? { ...current, text: normalizeNewlines(args.content, current) }
            : { text: args.content, encoding: 'utf-8', eol: '\n' };
          await writeTextFile(target, next, env);
          const lines = args.content === '' ? 0 : args.content.split('\n').length;
          const what = `${current ? 'overwrote' : 'created'} ${target.rel} (${lines} lines)`;
          return okOutput(`Successfully ${what}.`, what);
        }),
    };
  },
});

async function readExisting(
  root: string,
  file: ResolvedPath,
  files: TextFileAccess | undefined,
): Promise<TextFile | undefined> {
  if (!file.exists) return undefined;
  if ((await stat(file.abs)).isDirectory()) throw new ToolFailure('invalid_args', `${file.rel} is a directory`);
  try {
    return await readTextFile(file, { root, files });
  } catch (e) {
    // A binary file may be replaced whole by text; it just has no encoding or line ending to keep.
    if (e instanceof ToolFailure) return { text: '', encoding: 'utf-8', eol: '\n' };
    throw e;
  }
}

/** Content in the `\n` form edits work in; writeTextFile stores it with the file's own line ending. */
function normalizeNewlines(content: string, existing: TextFile | undefined): string {
  return existing?.eol === '\r\n' ? content.replace(/\r\n/g, '\n') : content;
}
