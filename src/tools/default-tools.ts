import type { Tool } from './define-tool.js';
import { globTool } from './glob.js';
import { grepSearchTool } from './grep-search.js';
import { listDirectoryTool } from './list-directory.js';
import { readFileTool } from './read-file.js';
import { replaceTool } from './replace.js';
import { runShellCommandTool } from './run-shell-command.js';
import { writeFileTool } from './write-file.js';

/**
 * The built-in tools, in the order the model sees them. A fresh array each call: the face appends
 * ask_user and the GitHub recorders before building the registry.
 */
export function createDefaultTools(): Tool[] {
  return [listDirectoryTool, readFileTool, globTool, grepSearchTool, writeFileTool, replaceTool, runShellCommandTool];
}
