import { stat } from 'node:fs/promises';
import { defineTool, ToolFailure, type TextFileAccess } from '../define-tool.js';
import { applyReplacement } from '../edit-text.js';
import { diffStat, readTextFile, unifiedDiff, writeTextFile, type TextFile } from '../file-text.js';
import { guardRun, okOutput, plural } from '../tool-output.js';
import { resolveInWorkspace, type ResolvedPath } from '../workspace.js';

interface Plan {
  before: TextFile | undefined;
  after: string;
  count: number;
}

const params = {
  type: 'object',
  required: ['file_path', 'old_string', 'new_string'],
  properties: {
    file_path: { type: 'string' },
    instruction: { type: 'string', description: 'What and why, in one sentence.' },
    old_string: {
      type: 'string',
      description: 'Exact text to replace, unescaped, whitespace and indentation included.',
    },
    new_string: { type: 'string', description: 'Exact literal replacement: complete code, no placeholders.' },
    expected_replacements: {
      type: 'integer',
      minimum: 1,
      description: 'Occurrences to replace (default 1); fails unless exactly that many exist.',
    },
    allow_multiple: { type: 'boolean', description: 'Replace every occurrence (at least one).' },
  },
  additionalProperties: false,
} as const;

export const replaceTool = defineTool({
  name: 'replace',
  kind: 'edit',
  description:
    'Replaces exact text in a file: old_string must occur exactly once, unless expected_replacements or allow_multiple. An empty old_string creates the file.',
  params,
  async prepare(args, env) {
    const file = await resolveInWorkspace(env.root, args.file_path, 'write');
    const plan = await planReplace(file, args, env);
    const patch = unifiedDiff(file.rel, {
      before: plan.before?.text ?? '',
      after: plan.after,
      isNew: plan.before === undefined,
    });
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
          const fresh = await planReplace(target, args, env);
          await writeTextFile(target, withText(fresh), env);
          const what = fresh.before
            ? `replaced ${plural(fresh.count, 'occurrence')} in ${file.rel}`
            : `created ${file.rel}`;
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
  args: {
    file_path: string;
    old_string: string;
    new_string: string;
    expected_replacements?: number;
    allow_multiple?: boolean;
  },
  at: { root: string; files?: TextFileAccess | undefined },
): Promise<Plan> {
  if (!file.exists) {
    if (args.old_string !== '')
      throw new ToolFailure('not_found', `file not found: ${args.file_path}; to create it, give an empty old_string`);
    return { before: undefined, after: args.new_string, count: 1 };
  }
  if ((await stat(file.abs)).isDirectory()) throw new ToolFailure('invalid_args', `${args.file_path} is a directory`);
  const before = await readTextFile(file, at);
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
