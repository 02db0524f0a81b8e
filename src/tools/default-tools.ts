import type { TSchema } from 'typebox';
import {
  globDeclaration,
  grepSearchDeclaration,
  listDirectoryDeclaration,
  readFileDeclaration,
  replaceDeclaration,
  runShellCommandDeclaration,
  writeFileDeclaration,
  type ToolDeclaration,
} from './builtin-declarations.js';
import type { Tool } from './define-tool.js';
import { builtinArgChecks } from './arg-checks.generated.js';

/**
 * The built-in tools, in the order the model sees them. A fresh array each call: the face appends
 * ask_user and the GitHub recorders before building the registry. Each is its declaration with a
 * `prepare` that imports the tool's module on the first call (a chunk of its own in the bundle):
 * the first model request needs only the declarations, and a run that never searches never loads
 * re2js, nor one that never edits the diff library. Arguments are validated against the
 * declaration's schema before `prepare` (registry.ts), so a bad call is refused without loading;
 * a valid one passes the declaration's generated check without loading TypeBox's validator either.
 */
export function createDefaultTools(): Tool[] {
  return [
    builtinTool(listDirectoryDeclaration, async () => (await import('./list-directory.js')).listDirectoryTool),
    builtinTool(readFileDeclaration, async () => (await import('./read-file.js')).readFileTool),
    builtinTool(globDeclaration, async () => (await import('./glob.js')).globTool),
    builtinTool(grepSearchDeclaration, async () => (await import('./grep-search.js')).grepSearchTool),
    builtinTool(writeFileDeclaration, async () => (await import('./write-file.js')).writeFileTool),
    builtinTool(replaceDeclaration, async () => (await import('./replace.js')).replaceTool),
    builtinTool(runShellCommandDeclaration, async () => (await import('./run-shell-command.js')).runShellCommandTool),
  ];
}

/**
 * A built-in: lazy, with its declaration's generated argument check (npm run gen:arg-checks). Looked
 * up by name only here, where the declaration is the one the check was generated from.
 */
const builtinTool = <S extends TSchema>(declaration: ToolDeclaration<S>, load: () => Promise<Tool<S>>): Tool<S> =>
  lazyTool({ ...declaration, precompiledCheck: builtinArgChecks.get(declaration.name) }, load);

/**
 * A tool whose `prepare` is the loaded tool's. One load per process (the module cache), shared by
 * every registry; a load that fails (a bundle missing a chunk) fails that call, and the next call
 * tries again.
 */
export function lazyTool<S extends TSchema>(declaration: ToolDeclaration<S>, load: () => Promise<Tool<S>>): Tool<S> {
  let loading: Promise<Tool<S>> | undefined;
  return {
    ...declaration,
    async prepare(args, env) {
      loading ??= load().catch((e: unknown) => {
        loading = undefined;
        throw e;
      });
      return (await loading).prepare(args, env);
    },
  };
}
