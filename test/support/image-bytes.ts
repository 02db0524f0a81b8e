/**
 * Image files for tests, as bytes: a real 1×1 PNG, a GIF header, and a PNG whose header claims a
 * picture too large to send (the pixel cap reads the header only).
 */
import { deflateSync } from 'node:zlib';

/** A PNG of `width`×`height` (its header; the pixel data is one empty row, enough for a header reader). */
export function pngOf(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1 + 3 * Math.min(width, 4)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF89a of `width`×`height` (header and an empty image). */
export function gifOf(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return Buffer.concat([b, Buffer.from([0x3b])]);
}
