/**
 * Reading one context file safely and expanding its `@path` imports. Shared by the upfront memory
 * load and the just-in-time loader. Every problem becomes a warning that names the file; nothing
 * here throws, and nothing reads outside `confine` (checked lexically before touching the file,
 * then again on the real path, so a symlink cannot lead out).
 */
import { open, realpath, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
// The workspace's own containment check: one definition of "inside" for every file reader.
import { isInside } from '../common/paths.js';

const MAX_IMPORT_DEPTH = 5;

export interface ReadLimits {
  /** Bytes read from any one file; the rest is cut with a note. */
  maxFileBytes: number;
  /** Bytes read across one expansion (all imports), so a fan of imports cannot blow up. */
  readBudget: { left: number };
}

export interface ExpandedFile {
  text: string;
  warnings: string[];
}

type ReadResult =
  { ok: true; real: string; text: string; note?: string; cut: boolean } | { ok: false; problem: string };

/**
 * The text of a regular file inside `confine`, at most `maxBytes` of it, cut at a line end.
 * Not UTF-8: decoded with replacement characters and a warning. A NUL byte: refused as binary.
 */
export async function tryReadTextFile(abs: string, confine: string, maxBytes: number): Promise<ReadResult> {
  if (!isInside(confine, abs)) return { ok: false, problem: 'is outside the repository' };
  let real: string;
  try {
    real = await realpath(abs);
  } catch (e) {
    return { ok: false, problem: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read' };
  }
  if (!isInside(confine, real)) return { ok: false, problem: 'leads outside the repository (symlink)' };
  let size: number;
  try {
    const st = await stat(real);
    if (!st.isFile()) return { ok: false, problem: 'is not a regular file' };
    size = st.size;
  } catch {
    return { ok: false, problem: 'cannot be read' };
  }
  const want = Math.min(size, Math.max(0, maxBytes));
  const buf = Buffer.alloc(want);
  let got = 0;
  try {
    const fh = await open(real, 'r');
    try {
      while (got < want) {
        const { bytesRead } = await fh.read(buf, got, want - got, got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
    } finally {
      await fh.close();
    }
  } catch {
    return { ok: false, problem: 'cannot be read' };
  }
  const bytes = buf.subarray(0, got);
  if (bytes.includes(0)) return { ok: false, problem: 'looks binary (contains NUL bytes)' };
  const cut = size > got;
  let text: string;
  let note: string | undefined;
  try {
    // stream: true keeps a multi-byte character split by the cut from counting as invalid.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
  } catch {
    text = new TextDecoder('utf-8').decode(bytes, { stream: cut });
    note = 'is not valid UTF-8 (bad bytes shown as \uFFFD)';
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (cut) {
    const lastNl = text.lastIndexOf('\n');
    if (lastNl > 0) text = text.slice(0, lastNl + 1);
    const more = `is ${size} bytes; only the first ${Buffer.byteLength(text)} were loaded`;
    note = note ? `${note}; ${more}` : more;
    text += `\n[... cut: ${size - Buffer.byteLength(text)} more bytes of this file were not loaded]\n`;
  }
  return { ok: true, real, text, note, cut };
}

/**
 * `@path` at the start of a line or after whitespace, outside code. Only path-like tokens count
 * (a `/`, or a file extension), so "ask @alice" is a mention, not an import.
 */
const IMPORT = /(^|[ \t])@((?:\.{1,2}\/|\/)?[\w.\-/]*(?:\/[\w.\-]+|\.[A-Za-z0-9]+))(?=$|[\s,;:!?)\]])/gm;

/**
 * Expands imports in `text` (the content of `file`, real path). `stack` holds the real paths of
 * the files being expanded, outermost first, to detect cycles. `label` turns a path into what the
 * reader sees (relative to the memory root).
 */
export async function expandImports(
  text: string,
  file: string,
  {
    confine,
    limits,
    label,
    stack = [file],
  }: { confine: string; limits: ReadLimits; label: (abs: string) => string; stack?: string[] },
): Promise<ExpandedFile> {
  const warnings: string[] = [];
  const parts = splitCode(text);
  let out = '';
  for (const part of parts) {
    if (part.code) {
      out += part.text;
      continue;
    }
    let last = 0;
    for (const m of part.text.matchAll(IMPORT)) {
      const start = m.index! + m[1].length;
      out += part.text.slice(last, start);
      last = start + 1 + m[2].length;
      out += await expandOne(m[2]);
    }
    out += part.text.slice(last);
  }
  return { text: out, warnings };

  async function expandOne(spec: string): Promise<string> {
    const where = `${label(file)}: import @${spec}`;
    if (stack.length > MAX_IMPORT_DEPTH) {
      warnings.push(`${where} skipped: imports nest deeper than ${MAX_IMPORT_DEPTH} levels`);
      return `[import @${spec} skipped: too deeply nested]`;
    }
    // An absolute import means "from the repository root", never the machine's root.
    const target = spec.startsWith('/') ? fromRoot(confine, spec) : resolve(dirname(file), spec);
    if (limits.readBudget.left <= 0) {
      warnings.push(`${where} skipped: memory size limit reached`);
      return `[import @${spec} skipped: size limit]`;
    }
    const r = await tryReadTextFile(target, confine, Math.min(limits.maxFileBytes, limits.readBudget.left));
    if (!r.ok) {
      // `@types/node`, `@org/pkg`: a missing extension-less name is a package or a mention, not a
      // broken import; the text stays as written either way.
      const looksLikeFile = /^\.{0,2}\//.test(spec) || /\.[A-Za-z0-9]+$/.test(spec);
      if (r.problem !== 'does not exist' || looksLikeFile) warnings.push(`${where} skipped: ${r.problem}`);
      return `@${spec}`;
    }
    if (stack.includes(r.real)) {
      warnings.push(`${where} skipped: import cycle (${[...stack, r.real].map(label).join(' -> ')})`);
      return `[import @${spec} skipped: import cycle]`;
    }
    limits.readBudget.left -= Buffer.byteLength(r.text);
    if (r.note) warnings.push(`${label(r.real)} ${r.note}`);
    const inner = await expandImports(r.text, r.real, { confine, limits, label, stack: [...stack, r.real] });
    warnings.push(...inner.warnings);
    const name = label(r.real);
    return `--- Imported from: ${name} ---\n${inner.text.replace(/\n+$/, '')}\n--- End of import: ${name} ---`;
  }
}

interface Part {
  code: boolean;
  text: string;
}

/** Fenced blocks and inline code spans, where `@path` is text, not an import. */
function splitCode(text: string): Part[] {
  const parts: Part[] = [];
  const re = /^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^[ \t]*\1[ \t]*$|(?![\s\S]))|(`+)(?!`)[\s\S]*?[^`]\2(?!`)/gm;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index! > last) parts.push({ code: false, text: text.slice(last, m.index) });
    parts.push({ code: true, text: m[0] });
    last = m.index! + m[0].length;
  }
  if (last < text.length) parts.push({ code: false, text: text.slice(last) });
  return parts;
}

/**
 * `@/x` resolved against the repository root. Kept out of line on purpose: ncc's asset analysis
 * rewrites `resolve(root, '.' + spec)` written inline into a path inside the bundle.
 */
function fromRoot(root: string, spec: string): string {
  const joined = root + sep + spec.replace(/^\/+/, '');
  return resolve(joined);
}
