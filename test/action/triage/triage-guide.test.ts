/**
 * The triage guide: `.gemini/triage.md` first, else a context file's section headed "Triage",
 * read from the trusted snapshot directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGuideSection, readTriageGuide } from '../../../src/action/triage/triage-guide.js';
import { makeTempDir } from '../../support/git-repo.js';

const GEMINI = [
  '# Project',
  'About it.',
  '',
  '## Triage',
  'Crashes are `bug`.',
  '',
  '### Areas',
  'cli, core',
  '',
  '## Releases',
  'Tagged.',
  '',
].join('\n');

describe('parseGuideSection', () => {
  it('takes the section and its subsections, up to the next heading of its level', () => {
    expect(parseGuideSection(GEMINI)).toEqual({
      heading: 'Triage',
      text: '## Triage\nCrashes are `bug`.\n\n### Areas\ncli, core',
    });
  });

  it.each([
    ['a heading inside fenced code is not one', '```\n# Triage\n```\n# Other\nx', undefined],
    [
      '"Triaging issues" counts',
      '# Triaging issues\nbe kind',
      { heading: 'Triaging issues', text: '# Triaging issues\nbe kind' },
    ],
    ['"Retriage" is not the word', '# Retriage\nx', undefined],
    [
      'to the end of the file',
      'intro\n# Issue triage\nlast line',
      { heading: 'Issue triage', text: '# Issue triage\nlast line' },
    ],
  ])('%s', (_name, md, expected) => {
    expect(parseGuideSection(md)).toEqual(expected);
  });
});

describe('readTriageGuide', () => {
  it('.gemini/triage.md wins and goes into the message; else a GEMINI.md section, already in memory', async () => {
    const root = makeTempDir();
    writeFileSync(join(root, 'GEMINI.md'), GEMINI);
    expect(await readTriageGuide(root, ['GEMINI.md'])).toEqual({
      source: 'GEMINI.md',
      heading: 'Triage',
      text: '## Triage\nCrashes are `bug`.\n\n### Areas\ncli, core',
      inMemory: true,
    });
    mkdirSync(join(root, '.gemini'));
    writeFileSync(join(root, '.gemini', 'triage.md'), '  Use `bug` for crashes.\n');
    expect(await readTriageGuide(root, ['GEMINI.md'])).toEqual({
      source: '.gemini/triage.md',
      text: 'Use `bug` for crashes.',
      inMemory: false,
    });
  });

  it('none: undefined', async () => {
    const root = makeTempDir();
    writeFileSync(join(root, 'GEMINI.md'), '# Project\nNo guide here.\n');
    expect(await readTriageGuide(root, ['GEMINI.md'])).toBeUndefined();
  });
});
