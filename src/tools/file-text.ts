import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
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

/** Through `files` (an editor's buffer) when it reads, else from the disk. */
export async function readTextFile(abs: string, rel: string, files?: TextFileAccess): Promise<TextFile> {
  if (files?.readText) {
    const text = await files.readText(abs);
    return isAllCrlf(text) ? { text: text.replace(/\r\n/g, '\n'), encoding: 'utf-8', eol: '\r\n' } : { text, encoding: 'utf-8', eol: '\n' };
  }
  // A FIFO (or a device) would block the read, and the call with it, forever: regular files only.
  if (!(await stat(abs)).isFile()) throw new ToolFailure('invalid_args', `${rel} is not a regular file`);
  const bytes = await readFile(abs);
  if (looksBinary(bytes)) throw new ToolFailure('invalid_args', `${rel} is a binary file; text edits are refused`);
  const { text, encoding } = decodeText(bytes);
  const mode = (await stat(abs)).mode & 0o7777;
  return isAllCrlf(text) ? { text: text.replace(/\r\n/g, '\n'), encoding, eol: '\r\n', mode } : { text, encoding, eol: '\n', mode };
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
 * Write via a temporary file and rename, so a reader (or a crash) never sees half a file.
 * The temp file sits next to the target: same directory, so rename stays atomic. Through `files`
 * (an editor, which owns the buffer and its encoding) when it writes.
 */
export async function writeTextFile(abs: string, file: TextFile, files?: TextFileAccess): Promise<void> {
  if (files?.writeText) return files.writeText(abs, toStored(file.text, file.eol));
  await mkdir(dirname(abs), { recursive: true });
  const tmp = join(dirname(abs), `.${basename(abs)}.agent-action-${process.pid}-${Date.now()}.tmp`);
  try {
    await writeFile(tmp, encodeText(toStored(file.text, file.eol), file.encoding), { mode: file.mode });
    await rename(tmp, abs);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Unified diff for approval comments and logs. */
export function unifiedDiff(rel: string, o: { before: string; after: string; isNew?: boolean }): string {
  const { before, after, isNew = false } = o;
  return createTwoFilesPatch(isNew ? '/dev/null' : `a/${rel}`, `b/${rel}`, before, after, undefined, undefined, { context: 3 });
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
