import type { Tool } from './define-tool.js';
import { globTool } from './builtin/glob.js';
import { grepSearchTool } from './builtin/grep-search.js';
import { listDirectoryTool } from './builtin/list-directory.js';
import { readFileTool } from './builtin/read-file.js';
import { replaceTool } from './builtin/replace.js';
import { runShellCommandTool } from './builtin/run-shell-command.js';
import { writeFileTool } from './builtin/write-file.js';
import { writeTodosTool } from './builtin/write-todos.js';

/**
 * The built-in tools, in the order the model sees them. A fresh array each call: the face appends
 * ask_user and the GitHub recorders before building the registry.
 */
export function createDefaultTools(): Tool[] {
  return [
    listDirectoryTool,
    readFileTool,
    globTool,
    grepSearchTool,
    writeFileTool,
    replaceTool,
    runShellCommandTool,
    writeTodosTool,
  ];
}
