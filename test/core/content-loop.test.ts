/**
 * The content-loop detector on its own (mutation-tested: every number and rule has a case that
 * fails when it changes). Gemini CLI's numbers: 50-character windows, 10 appearances, on average
 * at most 250 characters apart, at most 5 different texts between them, 5000 characters kept.
 */
import { describe, expect, it } from 'vitest';
import { createContentLoopDetector, hashWindow } from '../../src/core/content-loop.js';

// 59 characters, no Markdown structure: its first 50-character window appears once per copy.
const CHANT = 'I will check the configuration file again before going on. ';
const WINDOW = CHANT.slice(0, 50);

/** Feeds deltas in order; the 1-based position of the one that tripped, or 0. */
function tripsAt(deltas: readonly string[], detector = createContentLoopDetector()): number {
  for (const [i, d] of deltas.entries()) if (detector.add(d) !== undefined) return i + 1;
  return 0;
}
const times = (n: number, s: string) => Array.from({ length: n }, () => s);
/** Text with no repeated 50-character window and no Markdown structure. */
const unique = (chars: number, tag = 'u') =>
  Array.from({ length: Math.ceil(chars / 6) }, (_, i) => `${tag}${String(i).padStart(4, '0')} `)
    .join('')
    .slice(0, chars);

describe('createContentLoopDetector', () => {
  it('runs on at 9 appearances and stops at the 10th, naming the repeated window', () => {
    expect(tripsAt(times(9, CHANT))).toBe(0);
    const d = createContentLoopDetector();
    for (let i = 0; i < 9; i++) expect(d.add(CHANT)).toBeUndefined();
    expect(d.add(CHANT)).toBe(
      `loop detected: the model wrote the same text 10 times ("${WINDOW.trim()}…"), so the run stopped`,
    );
  });

  it('sees a chant split across small pieces the same as one', () => {
    expect(tripsAt([...CHANT.repeat(10)])).toBe(CHANT.length * 9 + 50);
  });

  it('trips when appearances are on average 250 characters apart, not 251', () => {
    const near = WINDOW + unique(200).replace(/u/g, 'x'); // the same 250-character period each time
    expect(near).toHaveLength(250);
    expect(tripsAt(times(10, near))).toBe(10);
    const far = WINDOW + unique(201).replace(/u/g, 'x');
    expect(tripsAt(times(11, far))).toBe(0);
  });

  it('trips when the text between appearances takes 5 forms, not 6', () => {
    const forms = (n: number) => Array.from({ length: n }, (_, k) => ` filler number ${k} `);
    const chantWith = (fillers: string[]) => Array.from({ length: 10 }, (_, i) => WINDOW + fillers[i % fillers.length]);
    expect(tripsAt(chantWith(forms(5)))).toBe(10);
    expect(tripsAt(chantWith(forms(6)))).toBe(0);
  });

  it('never takes a hash collision for a repeat: with every window hashing alike, only equal text counts', () => {
    expect(
      tripsAt(
        [unique(900)],
        createContentLoopDetector(() => 7),
      ),
    ).toBe(0);
    expect(
      tripsAt(
        times(10, CHANT),
        createContentLoopDetector(() => 7),
      ),
    ).toBe(10);
  });

  it('keeps the last 5000 characters: a chant after a long text is still found and named', () => {
    const d = createContentLoopDetector();
    expect(d.add(unique(4990))).toBeUndefined();
    for (let i = 0; i < 9; i++) expect(d.add(CHANT)).toBeUndefined();
    expect(d.add(CHANT)).toContain(`("${WINDOW.trim()}…")`);
  });

  it('keeps at most 5000 characters', () => {
    const d = createContentLoopDetector();
    d.add(unique(4999));
    expect(d.keptChars()).toBe(4999);
    d.add(unique(1001, 'v'));
    expect(d.keptChars()).toBe(5000);
  });

  it('moves what it remembers with the text it drops (a chant arriving one character at a time after a long text)', () => {
    expect(tripsAt([unique(4990), ...CHANT.repeat(10)])).toBe(1 + CHANT.length * 9 + 50);
  });

  it('forgets an appearance older than 5000 characters entirely: the count starts again from the next one', () => {
    expect(tripsAt([CHANT, unique(4990), ...times(10, CHANT)])).toBe(12);
  });

  it('judges the last 10 appearances: a far first one does not hide 10 close ones', () => {
    // At the 10th appearance the far one is still among the last 10 (on average 337 apart): no loop;
    // at the 11th, the last 10 are the close ones.
    expect(tripsAt([CHANT, unique(2500), ...times(9, CHANT)])).toBe(0);
    expect(tripsAt([CHANT, unique(2500), ...times(10, CHANT)])).toBe(12);
  });

  it('names the repeated text without surrounding spaces', () => {
    const d = createContentLoopDetector();
    let stop: string | undefined;
    for (let i = 0; i < 10; i++) stop = d.add(` ${CHANT}`);
    expect(stop).toBe(
      'loop detected: the model wrote the same text 10 times ("I will check the configuration file again before…"), so the run stopped',
    );
  });

  it('reset() forgets everything', () => {
    const d = createContentLoopDetector();
    for (let i = 0; i < 9; i++) d.add(CHANT);
    d.reset();
    expect(d.keptChars()).toBe(0);
    expect(tripsAt(times(9, CHANT), d)).toBe(0);
  });

  it.each([
    ['a table row', '| a | b |'],
    ['a table row after a line break', 'Results:\n| a | b |'],
    ['an indented table row', '  | a | b |'],
    ['a table rule', '|---|---|'],
    ['a table rule opening a piece', '---- x'],
    ['a rule after a line break', 'x\n+---+'],
    ['a bullet', '- item'],
    ['a star bullet after a line break', 'see:\n* item'],
    ['a plus bullet', '+ item'],
    ['a numbered item', '12. step'],
    ['a numbered item after a line break', 'steps:\n3. run'],
    ['a heading', '## Notes'],
    ['a heading after a line break', 'x\n# Title'],
    ['a quote', '> quoted'],
    ['a quote after a line break', 'x\n> quoted'],
    ['a code fence pair', 'use ```x``` here'],
  ])('%s restarts the count', (_, structure) => {
    expect(tripsAt([...times(9, CHANT), structure, ...times(9, CHANT)])).toBe(0);
  });

  it.each([
    ['a pipe inside a sentence', 'a | b'],
    ['a dash inside a word', 'well-known'],
    ['a number without a dot and space', 'version 12.5'],
    ['a hash without a space', '#hashtag'],
    ['a greater-than inside a sentence', 'a > b'],
    ['two dashes', '--'],
  ])('%s does not restart it', (_, text) => {
    expect(tripsAt([...times(5, CHANT), ` ${text} `, ...times(5, CHANT)])).toBe(11);
  });

  it('a piece that only starts like a divider is text', () => {
    expect(tripsAt([...times(5, CHANT), '*emphasis* matters', ...times(5, CHANT)])).toBe(11);
  });

  it.each([['-----'], ['====='], ['___'], ['***'], ['─────'], ['+-+-+']])(
    'a divider %j is skipped and restarts the count',
    (divider) => {
      expect(tripsAt([...times(9, CHANT), divider, ...times(9, CHANT)])).toBe(0);
    },
  );

  it('does not count text inside a code block, nor the piece that closes it', () => {
    expect(tripsAt(['```js\n', ...times(12, CHANT), `${CHANT}\`\`\``, ...times(9, CHANT)])).toBe(0);
    // Once the block is closed, counting starts again from nothing.
    expect(tripsAt(['```js\n', CHANT, '```', ...times(10, CHANT)])).toBe(13);
  });
});

describe('hashWindow', () => {
  // FNV-1a 32-bit test vectors.
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('%j', (s, h) => {
    expect(hashWindow(s)).toBe(h);
  });
});
