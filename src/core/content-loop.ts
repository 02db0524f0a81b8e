/**
 * Content-loop detection: the model chanting the same text over and over within a reply (or over
 * text-only turns), which burns the whole budget without doing anything. Gemini CLI's method, its
 * numbers: slide a 50-character window over the streamed text, hash each window, and stop when one
 * window has come back 10 times close together (on average at most 5 windows apart) and the text
 * between its appearances takes at most 5 forms. Text that is repetitive by nature (code blocks,
 * tables, lists, headings, quotes, dividers) starts the count afresh and code blocks are not counted.
 */

/** Appearances of one window that make a loop. */
const CONTENT_LOOP_THRESHOLD = 10;
/** Characters per window. */
const CONTENT_CHUNK_CHARS = 50;
/** The text kept for comparison; older text is dropped (the window positions move with it). */
const CONTENT_MEMORY_CHARS = 5000;

const MAX_MEAN_GAP = 5 * CONTENT_CHUNK_CHARS;
const MAX_PERIODS = Math.floor(CONTENT_LOOP_THRESHOLD / 2);

/** Markdown whose lines repeat by nature: seeing any of it restarts the count. */
const STRUCTURE = [
  /(^|\n)\s*\|.*\|/, // a table row
  /(^|\n)\s*[-+|]{3,}/, // a table rule
  /(^|\n)\s*[-*+]\s/, // a bullet
  /(^|\n)\s*\d+\.\s/, // a numbered item
  /(^|\n)#+\s/, // a heading
  /(^|\n)>\s/, // a quote
];
/** A piece of text that is nothing but a divider line. */
const DIVIDER = /^[-+_=*\u2500-\u257F]+$/;

/** FNV-1a over the window's UTF-16 units: a cheap hash, checked against the text on every hit. */
export function hashWindow(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export interface ContentLoopDetector {
  /** Feed one streamed piece of assistant text; returns the reason to stop when it loops. */
  add(delta: string): string | undefined;
  /** Forget everything (a tool call came: the text before it is not part of a chant). */
  reset(): void;
  /** How many characters of text it keeps now (at most CONTENT_MEMORY_CHARS). */
  keptChars(): number;
}

/** `hash` is for tests (a weak one shows that a hash collision is never taken for a repeat). */
export function createContentLoopDetector(hash: (window: string) => number = hashWindow): ContentLoopDetector {
  let text = '';
  /** The next window start not yet looked at. */
  let next = 0;
  /** Window hash -> start positions in `text` where that window appears. */
  let seen = new Map<number, number[]>();
  let inCode = false;

  const reset = () => {
    text = '';
    next = 0;
    seen = new Map();
  };

  /** Keep the last CONTENT_MEMORY_CHARS characters, moving every remembered position with them. */
  const forget = () => {
    const cut = text.length - CONTENT_MEMORY_CHARS;
    // Stryker disable next-line EqualityOperator: a cut of 0 removes nothing either way
    if (cut <= 0) return;
    text = text.slice(cut);
    next = Math.max(0, next - cut);
    for (const [key, starts] of seen) {
      // A window at the new start (0) is kept; dropping it instead would change no detection, as 10
      // appearances must sit within 2250 characters and the newest one is at the far end.
      // Stryker disable next-line EqualityOperator: see above
      const kept = starts.map((p) => p - cut).filter((p) => p >= 0);
      if (kept.length > 0) seen.set(key, kept);
      else seen.delete(key);
    }
  };

  /** Whether the window at `start` (seen before) now makes a loop. */
  const loopsAt = (start: number): boolean => {
    const window = text.slice(start, start + CONTENT_CHUNK_CHARS);
    const key = hash(window);
    const starts = seen.get(key);
    if (!starts) {
      seen.set(key, [start]);
      return false;
    }
    // Same hash, different text: a collision, not a repeat.
    if (text.slice(starts[0], starts[0] + CONTENT_CHUNK_CHARS) !== window) return false;
    starts.push(start);
    if (starts.length < CONTENT_LOOP_THRESHOLD) return false;
    const recent = starts.slice(-CONTENT_LOOP_THRESHOLD);
    if ((recent[recent.length - 1] - recent[0]) / (CONTENT_LOOP_THRESHOLD - 1) > MAX_MEAN_GAP) return false;
    const periods = new Set(recent.slice(1).map((p, i) => text.slice(recent[i], p)));
    return periods.size <= MAX_PERIODS;
  };

  return {
    reset,
    keptChars: () => text.length,
    add(delta) {
      const fences = delta.split('```').length - 1;
      const divider = DIVIDER.test(delta);
      if (fences > 0 || divider || STRUCTURE.some((r) => r.test(delta))) reset();
      const wasInCode = inCode;
      if (fences % 2 === 1) inCode = !inCode;
      if (wasInCode || inCode || divider) return undefined;
      text += delta;
      forget();
      for (; next + CONTENT_CHUNK_CHARS <= text.length; next++) {
        if (loopsAt(next)) {
          const repeated = text.slice(next, next + CONTENT_CHUNK_CHARS).trim();
          return `loop detected: the model wrote the same text ${CONTENT_LOOP_THRESHOLD} times ("${repeated}…"), so the run stopped`;
        }
      }
      return undefined;
    },
  };
}
