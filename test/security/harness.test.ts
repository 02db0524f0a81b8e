/**
 * The security suite's own instruments must be able to fail: the leak scan finds a canary in each
 * form an attacker would use to get it past redaction and nothing in ordinary text, and proseOf
 * keeps exactly what GitHub renders outside code.
 */
import { describe, expect, it } from 'vitest';
import { createCanaries, findLeaks, proseOf } from './harness.js';

const reverse = (s: string) => [...s].reverse().join('');

describe('the leak scan', () => {
  const c = createCanaries();
  const key = c.geminiKey;
  it.each([
    ['plain', `key=${key}`],
    ['reversed', `yek=${reverse(key)}`],
    ['hex', Buffer.from(`INPUT_GEMINI-API-KEY=${key}`).toString('hex')],
    ['HEX', Buffer.from(key).toString('hex').toUpperCase()],
    ['base64, aligned', Buffer.from(key).toString('base64')],
    ['base64, behind one byte', Buffer.from(`x${key}`).toString('base64')],
    ['base64, behind two bytes', Buffer.from(`xy${key}`).toString('base64')],
    ['base64 of the reversed key', Buffer.from(`=${reverse(key)}`).toString('base64')],
    ['split in halves', `first ${key.slice(0, 20)} then ${key.slice(20)}`],
    ['inside a JSON string', JSON.stringify({ out: `A${key}B` })],
    ['URL-encoded job env', encodeURIComponent(c.jobEnv.DATABASE_URL)],
  ])('finds a canary %s', (_name, text) => {
    expect(findLeaks(c, { here: text }).length).toBeGreaterThan(0);
  });

  it('names the secret and where it was found', () => {
    expect(findLeaks(c, { 'a comment': `the token is ${reverse(c.githubToken)}` })).toEqual([
      expect.objectContaining({ secret: 'githubToken', where: 'a comment' }),
    ]);
  });

  it('finds nothing in text that only shares prefixes and hosts with the canaries', () => {
    const text =
      'ghs_ github_pat_ AIzaSy https://pipelines.actions.test/ postgres://app: x-access-token: ' +
      Buffer.from('https://api.github.com/graphql').toString('hex');
    expect(findLeaks(c, { here: text })).toEqual([]);
    expect(findLeaks(createCanaries(), { here: JSON.stringify(c) }).length).toBe(0);
  });
});

describe('proseOf', () => {
  it('drops fenced code and code spans, keeps HTML blocks whole (no fence starts inside one)', () => {
    const md = [
      '@a `@b`',
      '```',
      '@c',
      '```',
      '<details>',
      '````',
      '@d',
      '',
      '`````x',
      '@e',
      '````',
      '@f',
      '`````',
      '~~~',
      '@g',
      '~~~',
      '@h',
    ].join('\n');
    expect(proseOf(md).match(/@\w/g)).toEqual(['@a', '@d', '@h']);
  });
});
