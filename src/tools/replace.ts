import { stat } from 'node:fs/promises';
import { Type } from 'typebox';
import { defineTool, ToolFailure, type TextFileAccess } from './define-tool.js';
import { applyReplacement } from './edit-text.js';
import { diffStat, readTextFile, unifiedDiff, writeTextFile, type TextFile } from './file-text.js';
import { guardRun, okOutput, plural } from './tool-output.js';
import { resolveInWorkspace, type ResolvedPath } from './workspace.js';

const Params = Type.Object(
  {
    file_path: Type.String({ description: 'The file to modify, relative to the workspace root.' }),
    instruction: Type.Optional(Type.String({ description: 'Optional: one sentence on what the change does and why (shown to reviewers).' })),
    old_string: Type.String({
      description:
        'The exact literal text to replace, unescaped, including whitespace and indentation. Include enough surrounding lines to match exactly one place unless expected_replacements says otherwise. Empty only to create a new file.',
    }),
    new_string: Type.String({ description: 'The exact literal text to put in place of old_string. Provide complete code; no placeholders like "...".' }),
    expected_replacements: Type.Optional(
      Type.Integer({ minimum: 1, description: 'How many occurrences of old_string to replace; the call fails unless exactly this many exist. Defaults to 1.' }),
    ),
    allow_multiple: Type.Optional(Type.Boolean({ description: 'If true, replace every occurrence of old_string (at least one must exist).' })),
  },
  { additionalProperties: false },
);

interface Plan {
  before: TextFile | undefined;
  after: string;
  count: number;
}

export const replaceTool = defineTool({
  name: 'replace',
  kind: 'edit',
  description:
    'Replaces exact text within a file. By default exactly ONE occurrence of old_string must exist; set expected_replacements to the number of occurrences to change several. The match is exact (never fuzzy): read the file first and copy old_string from it with enough context to be unique. To create a new file, give an empty old_string and the content as new_string.',
  params: Params,
  async prepare(args, env) {
    const file = await resolveInWorkspace(env.root, args.file_path, 'write');
    const plan = await planReplace(file, args, env.files);
    const patch = unifiedDiff(file.rel, plan.before?.text ?? '', plan.after, plan.before === undefined);
    return {
      title: plan.before ? `edit ${file.rel} (${diffStat(patch)})` : `create ${file.rel}`,
      paths: [file.rel],
      policyArgs: { file_path: file.rel, old_string: args.old_string, new_string: args.new_string },
      preview: patch,
      diff: { path: file.abs, oldText: plan.before ? plan.before.text : null, newText: plan.after },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          // Re-planned at run time: after an approval (maybe in another process) the file may have moved on.
          const target = await resolveInWorkspace(env.root, args.file_path, 'write');
          const fresh = await planReplace(target, args, env.files);
          await writeTextFile(target.abs, withText(fresh), env.files);
          const what = fresh.before ? `replaced ${plural(fresh.count, 'occurrence')} in ${file.rel}` : `created ${file.rel}`;
          return okOutput(`Successfully ${what}.`, what);
        }),
    };
  },
});

function withText(plan: Plan): TextFile {
  return plan.before ? { ...plan.before, text: plan.after } : { text: plan.after, encoding: 'utf-8', eol: '\n' };
}

async function planReplace(
  file: ResolvedPath,
  args: { file_path: string; old_string: string; new_string: string; expected_replacements?: number; allow_multiple?: boolean },
  files: TextFileAccess | undefined,
): Promise<Plan> {
  if (!file.exists) {
    if (args.old_string !== '') throw new ToolFailure('not_found', `file not found: ${args.file_path}; to create it, give an empty old_string`);
    return { before: undefined, after: args.new_string, count: 1 };
  }
  if ((await stat(file.abs)).isDirectory()) throw new ToolFailure('invalid_args', `${args.file_path} is a directory`);
  const before = await readTextFile(file.abs, file.rel, files);
  // The model reads `\n` lines (read_file shows CRLF files that way); match in that form.
  const norm = (s: string) => (before.eol === '\r\n' ? s.replace(/\r\n/g, '\n') : s);
  const r = applyReplacement(file.rel, before.text, {
    oldString: norm(args.old_string),
    newString: norm(args.new_string),
    expected: args.expected_replacements,
    all: args.allow_multiple,
  });
  if (!r.ok) throw new ToolFailure(r.code, r.message);
  return { before, after: r.text, count: r.count };
}
