import { createTwoFilesPatch } from 'diff';
import { closeOpened, openFileIn, readOpened, writeFileIn } from './confined-fs.js';
import { ToolFailure, type TextFileAccess } from './define-tool.js';
import { decodeText, encodeText, looksBinary } from './text-codec.js';

/**
 * A text file as edits see it: content with `\n` line ends, plus how to store it back (encoding
 * and line ending), so an edit of a CRLF or Latin-1 file keeps every untouched byte as it was.
 */
export interface TextFile {
  text: string;
  encoding: string;
  eol: '\n' | '\r\n';
  /** File mode to keep on rewrite (an executable script stays executable). */
  mode?: number;
}

/** Through `files` (an editor's buffer) when it reads, else from the disk, opened and checked (confined-fs.ts). */
export async function readTextFile(
  file: { abs: string; rel: string },
  at: { root: string; files?: TextFileAccess | undefined },
): Promise<TextFile> {
  const { abs, rel } = file;
  const { root, files } = at;
  if (files?.readText) {
    const text = await files.readText(abs);
    return isAllCrlf(text)
      ? { text: text.replace(/\r\n/g, '\n'), encoding: 'utf-8', eol: '\r\n' }
      : { text, encoding: 'utf-8', eol: '\n' };
  }
  const opened = openFileIn(root, abs, { shown: rel });
  let bytes: Buffer;
  try {
    // A FIFO (opened without blocking) or a device would block the read, and the call with it, forever: regular files only.
    if (!opened.stats.isFile()) throw new ToolFailure('invalid_args', `${rel} is not a regular file`);
    bytes = await readOpened(opened);
  } finally {
    closeOpened(opened);
  }
  if (looksBinary(bytes)) throw new ToolFailure('invalid_args', `${rel} is a binary file; text edits are refused`);
  const { text, encoding } = decodeText(bytes);
  const mode = opened.stats.mode & 0o7777;
  return isAllCrlf(text)
    ? { text: text.replace(/\r\n/g, '\n'), encoding, eol: '\r\n', mode }
    : { text, encoding, eol: '\n', mode };
}

/** CRLF only when every line feed has its carriage return: a mixed file is edited byte for byte. */
function isAllCrlf(text: string): boolean {
  const lf = text.split('\n').length - 1;
  return lf > 0 && text.split('\r\n').length - 1 === lf;
}

/** The model writes `\n`; a CRLF file gets CRLF back. */
function toStored(text: string, eol: '\n' | '\r\n'): string {
  return eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text;
}

/**
 * Write via a temporary file and rename, so a reader (or a crash) never sees half a file, in the
 * parent directory opened and checked (confined-fs.ts): nothing lands outside the workspace or in
 * `.git/`, whatever was swapped in since the call was checked. Through `files` (an editor, which
 * owns the buffer and its encoding) when it writes.
 */
export async function writeTextFile(
  target: { abs: string; rel: string },
  file: TextFile,
  at: { root: string; files?: TextFileAccess | undefined },
): Promise<void> {
  if (at.files?.writeText) return at.files.writeText(target.abs, toStored(file.text, file.eol));
  writeFileIn(at.root, target.abs, {
    bytes: encodeText(toStored(file.text, file.eol), file.encoding),
    shown: target.rel,
    ...(file.mode !== undefined ? { mode: file.mode } : {}),
  });
}

/** Unified diff for approval comments and logs. */
export function unifiedDiff(rel: string, o: { before: string; after: string; isNew?: boolean }): string {
  const { before, after, isNew = false } = o;
  return createTwoFilesPatch(isNew ? '/dev/null' : `a/${rel}`, `b/${rel}`, before, after, undefined, undefined, {
    context: 3,
  });
}

/** "+3 -1" for a one-line summary. */
export function diffStat(patch: string): string {
  let add = 0;
  let del = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) add++;
    else if (line.startsWith('-') && !line.startsWith('---')) del++;
  }
  return `+${add} -${del}`;
}
