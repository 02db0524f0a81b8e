import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { closeOpened, openFileIn, readOpened, readOpenedSync } from '../confined-fs.js';
import { defineTool, ToolFailure } from '../define-tool.js';
import { decodeText, looksBinary } from '../text-codec.js';
import { guardRun, okOutput, withMemory } from '../tool-output.js';
import { resolveInWorkspace } from '../workspace.js';
import { redactSecrets } from '../../common/redact.js';

/** Files above this are refused whole; a line range still works through grep_search first. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Lines returned by one read when no range is given, and at most for any range. */
export const MAX_LINES = 2000;
/** Longer lines are cut: minified bundles would otherwise fill the context with one line. */
export const MAX_LINE_CHARS = 2000;

/**
 * A regular file up to this size is read with synchronous calls: each asynchronous one is a round
 * trip through libuv's thread pool, which for a small local file costs more than the reading. A
 * larger file is read asynchronously, so the process stays responsive while the disk works.
 */
const SYNC_READ_BYTES = 256 * 1024;

const params = {
  type: 'object',
  required: ['file_path'],
  properties: {
    file_path: { type: 'string' },
    start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based).' },
    end_line: { type: 'integer', minimum: 1, description: 'Last line to read (1-based, inclusive).' },
  },
  additionalProperties: false,
} as const;

export const readFileTool = defineTool({
  name: 'read_file',
  kind: 'read',
  description: `Reads a text file, at most ${MAX_LINES} lines (each cut at ${MAX_LINE_CHARS} characters) per call; the result says which lines to read next. Binary files are not shown.`,
  params,
  async prepare(args, env) {
    const file = await resolveInWorkspace(env.root, args.file_path, 'read');
    if (!file.exists) throw new ToolFailure('not_found', `file not found: ${args.file_path}`);
    const info = statSync(file.abs);
    if (info.isDirectory())
      throw new ToolFailure('invalid_args', `${args.file_path} is a directory; use list_directory`);
    // A FIFO, socket or device would block the read (and the run) forever.
    if (!info.isFile()) throw new ToolFailure('invalid_args', `${args.file_path} is not a regular file`);
    if (args.start_line && args.end_line && args.end_line < args.start_line) {
      throw new ToolFailure('invalid_args', `end_line (${args.end_line}) is before start_line (${args.start_line})`);
    }
    const range = args.start_line || args.end_line ? ` lines ${args.start_line ?? 1}-${args.end_line ?? ''}` : '';
    return {
      title: `read ${file.rel}${range}`,
      paths: [file.rel],
      policyArgs: { file_path: file.rel },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          // Opened and checked now, on the descriptor (confined-fs.ts): the path was checked when the
          // call was prepared, and a command running beside it may have swapped a folder on the way since.
          const opened = openFileIn(env.root, file.abs, { shown: file.rel });
          let bytes: Buffer;
          try {
            // A FIFO (opened without blocking) or a device would block the read, a synchronous one the whole run.
            if (!opened.stats.isFile()) throw new ToolFailure('failed', `${file.rel} is no longer a regular file`);
            const size = opened.stats.size;
            if (size > MAX_FILE_BYTES) {
              throw new ToolFailure(
                'failed',
                `${file.rel} is ${(size / 1048576).toFixed(1)} MB, above the ${MAX_FILE_BYTES / 1048576} MB limit; use grep_search to find the lines you need, or run_shell_command with sed -n 'X,Yp'`,
              );
            }
            // An editor's buffer (unsaved changes included) when the face reads through one.
            bytes = env.files?.readText
              ? Buffer.from(await env.files.readText(file.abs), 'utf8')
              : size <= SYNC_READ_BYTES
                ? readOpenedSync(opened)
                : await readOpened(opened);
          } finally {
            closeOpened(opened);
          }
          const text = formatRead(file.rel, bytes, { start: args.start_line, end: args.end_line });
          return okOutput(
            await withMemory(env, redactSecrets(text.forModel, env.secrets), { dir: dirname(opened.real), signal }),
            text.forHuman,
          );
        }),
    };
  },
});

/** Pure: what the model and a person see for a read of these bytes. */
function formatRead(
  rel: string,
  bytes: Buffer,
  { start, end }: { start?: number | undefined; end?: number | undefined },
): { forModel: string; forHuman: string } {
  if (bytes.length === 0) return { forModel: '(empty file)', forHuman: `read ${rel}: empty` };
  if (looksBinary(bytes)) {
    return {
      forModel: `Cannot display ${rel}: binary file (${bytes.length} bytes). Use run_shell_command (e.g. file, xxd | head) to inspect it.`,
      forHuman: `read ${rel}: binary, ${bytes.length} bytes`,
    };
  }
  const { text, note: encodingNote } = decodeText(bytes);
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const from = Math.min(start ?? 1, total + 1);
  if (from > total) {
    return {
      forModel: `${rel} has ${total} lines; start_line ${start} is past the end.`,
      forHuman: `read ${rel}: past the end`,
    };
  }
  const lastWanted = Math.min(end ?? total, total, from + MAX_LINES - 1);
  let cutLines = 0;
  const body = lines.slice(from - 1, lastWanted).map((l) => {
    if (l.length <= MAX_LINE_CHARS) return l;
    cutLines++;
    return `${l.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} of ${l.length} characters]`;
  });
  const notes: string[] = [];
  if (encodingNote) notes.push(encodingNote);
  const partial = from > 1 || lastWanted < total;
  if (partial) {
    notes.push(
      lastWanted < total
        ? `truncated: showing lines ${from}-${lastWanted} of ${total}; read lines ${lastWanted + 1}-${Math.min(total, lastWanted + MAX_LINES)} next (start_line: ${lastWanted + 1})`
        : `showing lines ${from}-${lastWanted} of ${total}`,
    );
  }
  if (cutLines > 0) notes.push(`${cutLines} long line(s) were cut`);
  const header = notes.length > 0 ? notes.map((n) => `[${n}]`).join('\n') + '\n' : '';
  const content = body.join('\n');
  return {
    forModel: header + (content === '' ? '(empty lines)' : content),
    forHuman: `read ${rel}${partial ? ` lines ${from}-${lastWanted} of ${total}` : ` (${total} lines)`}`,
  };
}
