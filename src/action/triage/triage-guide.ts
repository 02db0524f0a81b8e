/**
 * The repository's triage guide, from trusted configuration (a snapshot of the commit the run
 * started on, trusted-config.ts): `.gemini/triage.md` when it exists, else the section of a
 * context file (GEMINI.md) whose heading says "Triage". The file goes into each issue's first
 * message, outside the fences; a GEMINI.md section is already in the project memory, so the
 * message only points to it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface TriageGuide {
  /** The file it came from: `.gemini/triage.md` or a context file (`GEMINI.md`). */
  source: string;
  text: string;
  /** The section's heading, for a guide that is a context file's section. */
  heading?: string;
  /** In the project memory already (a context file's section): not repeated in the message. */
  inMemory: boolean;
}

/** The guide file is small prose; a larger one is cut here rather than paid for on every issue. */
const MAX_GUIDE_CHARS = 16_000;

export async function readTriageGuide(
  memoryRoot: string,
  contextFileNames: readonly string[],
): Promise<TriageGuide | undefined> {
  const file = await tryRead(join(memoryRoot, '.gemini', 'triage.md'));
  if (file?.trim())
    return { source: '.gemini/triage.md', text: file.trim().slice(0, MAX_GUIDE_CHARS), inMemory: false };
  for (const name of contextFileNames.length ? contextFileNames : ['GEMINI.md']) {
    const text = await tryRead(join(memoryRoot, name));
    const section = text === undefined ? undefined : parseGuideSection(text);
    if (section)
      return { source: name, heading: section.heading, text: section.text.slice(0, MAX_GUIDE_CHARS), inMemory: true };
  }
  return undefined;
}

/**
 * Pure: the first Markdown section whose ATX heading contains the word "triage" (any level), from
 * its heading to the next heading of the same or a higher level. Headings inside fenced code are
 * not headings.
 */
export function parseGuideSection(markdown: string): { heading: string; text: string } | undefined {
  const lines = markdown.split(/\r?\n/);
  let fence: string | undefined;
  let start = -1;
  let level = 0;
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1][0];
      else if (f[1][0] === fence) fence = undefined;
      continue;
    }
    if (fence) continue;
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    if (start >= 0 && h[1].length <= level) return { heading, text: lines.slice(start, i).join('\n').trim() };
    if (start < 0 && /\btriag(e|ing)\b/i.test(h[2])) {
      start = i;
      level = h[1].length;
      heading = h[2];
    }
  }
  return start >= 0 ? { heading, text: lines.slice(start).join('\n').trim() } : undefined;
}

async function tryRead(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}
