import { TextDecoder } from 'node:util';
import { ToolFailure } from './define-tool.js';

/**
 * Text in, text out, whatever the bytes: the model always gets a string it can quote back in a
 * `replace` call, and is told when the file was not UTF-8.
 */

const SNIFF_BYTES = 8192;

/** Binary: a NUL byte in the first 8 KiB (as git decides), unless the file is UTF-16 with a BOM. */
export function looksBinary(bytes: Buffer): boolean {
  if (utf16Bom(bytes)) return false;
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

export function decodeText(bytes: Buffer): { text: string; encoding: string; note?: string } {
  const bom = utf16Bom(bytes);
  if (bom) {
    return {
      text: new TextDecoder(bom).decode(bytes.subarray(2)),
      encoding: bom,
      note: `file is ${bom.toUpperCase()}; shown decoded`,
    };
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  try {
    return {
      text: new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start)),
      encoding: start ? 'utf-8-bom' : 'utf-8',
    };
  } catch {
    // Not UTF-8: most such files in repositories are Latin-1/Windows-1252; every byte maps to a character.
    return {
      text: new TextDecoder('windows-1252').decode(bytes),
      encoding: 'windows-1252',
      note: 'file is not valid UTF-8; shown decoded as Windows-1252 (Latin-1)',
    };
  }
}

/** Encode text back the way the file was stored, so an edit keeps the file's encoding. */
export function encodeText(text: string, encoding: string): Buffer {
  switch (encoding) {
    case 'utf-16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf-16be': {
      const le = Buffer.from(text, 'utf16le');
      for (let i = 0; i + 1 < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1], le[i]];
      return Buffer.concat([Buffer.from([0xfe, 0xff]), le]);
    }
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'windows-1252':
      return encodeWindows1252(text);
    default:
      return Buffer.from(text, 'utf8');
  }
}

function utf16Bom(bytes: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** The 0x80-0x9f block of Windows-1252 differs from Latin-1; the rest maps one to one. */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function encodeWindows1252(text: string): Buffer {
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const high = CP1252_HIGH.indexOf(ch);
    if (high !== -1) out[n++] = 0x80 + high;
    else if (code < 0x100) out[n++] = code;
    // Never write a lossy '?': the edit would silently change text the model did not touch.
    else
      throw new ToolFailure(
        'failed',
        `the file is Windows-1252 and cannot hold ${JSON.stringify(ch)} (U+${code.toString(16).toUpperCase().padStart(4, '0')}); use characters that encoding has`,
      );
  }
  return out.subarray(0, n);
}
