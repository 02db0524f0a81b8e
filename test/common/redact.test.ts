/**
 * The one redactor, as a hostile model meets it: a secret it read, posted reversed, in hex, in
 * base64 inside a longer encoded text (actions/checkout's header) at any alignment, URL-encoded
 * character by character, split over lines. Each test names the encoding that would leak without it.
 */
import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, redactorFor, redactSecrets } from '../../src/common/redact.js';

const SECRET = 'ghs_Zq8VxR2mLp0Tn4Wb7Kc9';
const rev = (s: string) => [...s].reverse().join('');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const hex = (s: string) => Buffer.from(s).toString('hex');
const pctAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** The base64 characters of the secret behind `pad` other bytes that depend on it alone (written apart from the code under test). */
const stableB64 = (pad: number) =>
  Buffer.concat([Buffer.alloc(pad), Buffer.from(SECRET)])
    .toString('base64')
    .slice(Math.ceil((pad * 4) / 3) + 1, -4);

/** No 10 consecutive characters of the secret's plain, reversed, hex or base64 forms (any alignment) are left in `text`. */
function expectNoTrace(text: string): void {
  const forms = [SECRET, rev(SECRET), hex(SECRET), hex(SECRET).toUpperCase(), stableB64(0), stableB64(1), stableB64(2)];
  for (const f of forms)
    for (let i = 0; i + 10 <= f.length; i++)
      expect(text, `${f.slice(i, i + 10)} of ${f}`).not.toContain(f.slice(i, i + 10));
}

describe('redactSecrets', () => {
  it.each([
    ['plain', `token ${SECRET} end`, 'token *** end'],
    ['reversed', `token ${rev(SECRET)} end`, 'token *** end'],
    ['hex, lower case', `hex ${hex(SECRET)} end`, 'hex *** end'],
    ['hex, upper case', `hex ${hex(SECRET).toUpperCase()} end`, 'hex *** end'],
    ['hex of the reversed secret', `hex ${hex(rev(SECRET))} end`, 'hex *** end'],
    ['base64 alone (padding and all)', `b64 ${b64(SECRET)} end`, 'b64 *** end'],
    [
      'base64url',
      `b64 ${Buffer.from(`??${SECRET}>`).toString('base64url')} end`,
      expect.stringMatching(/^b64 [A-Za-z0-9_-]{0,3}\*\*\*[A-Za-z0-9_-]{0,3} end$/),
    ],
    ['URL-encoded, every character escaped', `u=${pctAll(SECRET)}&x=1`, 'u=***&x=1'],
    [
      'URL-encoded, a few characters escaped',
      `u=${SECRET.slice(0, 4)}%${SECRET.charCodeAt(4).toString(16).toUpperCase()}${SECRET.slice(5)}&x=1`,
      'u=***&x=1',
    ],
    [
      'split over lines (fold, base64 -w, xxd -p)',
      `a ${SECRET.slice(0, 7)}\n${SECRET.slice(7, 15)}\r\n${SECRET.slice(15)} b`,
      'a *** b',
    ],
  ])('%s', (_name, text, expected) => {
    const out = redactSecrets(text, [SECRET]);
    expect(out).toEqual(expected);
    expectNoTrace(out);
  });

  it.each([0, 1, 2, 3, 4, 5])(
    "base64 of a longer text with the secret %i bytes in: every alignment, the secret's characters and their neighbours gone",
    (pad) => {
      const before = 'x-access-token:'.slice(0, pad + 9);
      const encoded = b64(`${before}${SECRET}:trailing`);
      const out = redactSecrets(`AUTHORIZATION: basic ${encoded}`, [SECRET]);
      expect(out).toContain('***');
      expectNoTrace(out);
      // What is left is what the surrounding bytes alone make: the prefix's characters before the secret's first.
      expect(out.startsWith(`AUTHORIZATION: basic ${b64(before).slice(0, Math.floor((before.length * 4) / 3))}`)).toBe(
        true,
      );
    },
  );

  it("base64 wrapped at 76 columns (the `base64` command's output) is read through its line breaks", () => {
    const wrapped = (b64(`${'a'.repeat(50)}${SECRET}${'b'.repeat(50)}`).match(/.{1,76}/g) ?? []).join('\n');
    expectNoTrace(redactSecrets(wrapped, [SECRET]).replace(/\n/g, ''));
  });

  it('hex wrapped at 60 columns (xxd -p) is read through its line breaks', () => {
    const wrapped = (hex(`env: GITHUB_TOKEN=${SECRET}\n`).match(/.{1,60}/g) ?? []).join('\n');
    expectNoTrace(redactSecrets(wrapped, [SECRET]).replace(/\n/g, ''));
  });

  it('every secret of the list, each time it appears, and overlapping matches become one mask', () => {
    const other = 'AIzaSyOtherSecret0000';
    expect(redactSecrets(`${SECRET}${SECRET} ${other} ${rev(other)} ${SECRET}`, [SECRET, other])).toBe(
      '*** *** *** ***',
    );
  });

  it(`secrets shorter than ${MIN_SECRET_LENGTH} characters are not looked for: a word or a PIN would blank every mention`, () => {
    expect(redactSecrets('the pin 1234 and the word secret stay', ['1234', 'secret'])).toBe(
      'the pin 1234 and the word secret stay',
    );
    expect(redactSecrets('an eight chars: abcdefgh', ['abcdefgh'])).toBe('an eight chars: ***');
  });

  it('text without a secret comes back as it was, lines, escapes and all', () => {
    const text = 'line 1\r\nline 2 100% done %41%42 ok\nlast';
    expect(redactSecrets(text, [SECRET])).toBe(text);
  });

  it('non-ASCII text around a secret keeps its characters; a non-ASCII secret is found URL-encoded as UTF-8', () => {
    const secret = 'pässwörd-geheim-1';
    expect(redactSecrets(`ü ${secret} ß`, [secret])).toBe('ü *** ß');
    expect(redactSecrets(`q=${encodeURIComponent(secret)}`, [secret])).toBe('q=***');
  });

  it('a megabyte with many lines and escapes: every occurrence found (the cost is linear: indexOf per form)', () => {
    const line = `row 100% %20 ${'x'.repeat(60)}\n`;
    const text = `${line.repeat(8000)}${hex(SECRET)}\n${line.repeat(8000)}${pctAll(SECRET)}`;
    const out = redactorFor([SECRET, 'AIzaSyOtherSecret0000'])(text);
    expect(out.split('***')).toHaveLength(3);
    expect(out.length).toBe(text.length - hex(SECRET).length - pctAll(SECRET).length + 6);
  });
});
