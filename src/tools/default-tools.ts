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

/**
 * The built-in tools, in the order the model sees them. A fresh array each call: the face appends
 * ask_user and the GitHub recorders before building the registry. Each is its declaration with a
 * `prepare` that imports the tool's module on the first call (a chunk of its own in the bundle):
 * the first model request needs only the declarations, and a run that never searches never loads
 * re2js, nor one that never edits the diff library. Arguments are validated against the
 * declaration's schema before `prepare` (registry.ts), so a bad call is refused without loading.
 */
export function createDefaultTools(): Tool[] {
  return [
    lazyTool(listDirectoryDeclaration, async () => (await import('./list-directory.js')).listDirectoryTool),
    lazyTool(readFileDeclaration, async () => (await import('./read-file.js')).readFileTool),
    lazyTool(globDeclaration, async () => (await import('./glob.js')).globTool),
    lazyTool(grepSearchDeclaration, async () => (await import('./grep-search.js')).grepSearchTool),
    lazyTool(writeFileDeclaration, async () => (await import('./write-file.js')).writeFileTool),
    lazyTool(replaceDeclaration, async () => (await import('./replace.js')).replaceTool),
    lazyTool(runShellCommandDeclaration, async () => (await import('./run-shell-command.js')).runShellCommandTool),
  ];
}

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
