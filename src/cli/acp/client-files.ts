/**
 * The file tools' TextFileAccess through the editor (`fs/read_text_file`, `fs/write_text_file`),
 * for the methods the client says it offers: the agent reads unsaved buffers and its edits land in
 * the editor, which saves them. The tools have already confined every path to the workspace.
 */
import type { AgentContext, FileSystemCapabilities } from '@agentclientprotocol/sdk';
import { messageOf } from '../../common/errors.js';
import { ToolFailure, type TextFileAccess } from '../../tools/define-tool.js';

const NOT_FOUND = /not found|no such file|does not exist|ENOENT/i;

export function createClientFiles(
  client: AgentContext,
  sessionId: string,
  caps: FileSystemCapabilities | undefined,
): TextFileAccess | undefined {
  if (!caps?.readTextFile && !caps?.writeTextFile) return undefined;
  const failure = (verb: string, path: string, e: unknown) =>
    new ToolFailure(
      NOT_FOUND.test(messageOf(e)) ? 'not_found' : 'failed',
      `the editor could not ${verb} ${path}: ${messageOf(e)}`,
    );
  return {
    ...(caps.readTextFile
      ? {
          async readText(path: string) {
            try {
              const r = await client.request('fs/read_text_file', { sessionId, path });
              return r.content;
            } catch (e) {
              throw failure('read', path, e);
            }
          },
        }
      : {}),
    ...(caps.writeTextFile
      ? {
          async writeText(path: string, content: string) {
            try {
              await client.request('fs/write_text_file', { sessionId, path, content });
            } catch (e) {
              throw failure('write', path, e);
            }
          },
        }
      : {}),
  };
}
