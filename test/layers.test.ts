/**
 * scripts/check-layers.mjs (run by `npm run lint`): the layers of DESIGN.md, enforced on imports.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upwardImports } from '../scripts/check-layers.mjs';
import { makeTempDir, writeFiles } from './support/git-repo.js';

const src = (files: Record<string, string>) => {
  const root = makeTempDir('agent-action-layers-');
  writeFiles(root, files);
  return root;
};

describe('the layer check', () => {
  it('passes the project as it is', () => {
    expect(upwardImports(join(import.meta.dirname, '../src'))).toEqual([]);
  });

  it('names the file, the line and both layers of an import that points up, in any form', () => {
    const root = src({
      'core/loop.ts': "import { a } from '../tools/a.js';\nimport type { Face } from '../action/face.js';\n",
      'tools/a.ts': "export const a = 1;\nconst later = () => import('../scheduler/run.js');\n",
      'tools/b.ts': "export {\n  a,\n} from '../core/loop.js';\nimport '../policy/x.js';\n",
      'action/face.ts': "import { run } from '../cli/run.js';\n",
      'cli/run.ts': "import { a } from '../common/x.js';\n",
      'entry.ts': "import '../src/action/face.js';\nimport './cli/run.js';\n",
    });
    const found = upwardImports(root).map((f) => `${f.file.slice(root.length + 1)}:${f.line} ${f.from}->${f.to}`);
    expect(found.sort()).toEqual([
      'action/face.ts:1 action->cli',
      'core/loop.ts:2 core->action',
      'tools/a.ts:2 tools->scheduler',
      'tools/b.ts:1 tools->core',
      'tools/b.ts:4 tools->policy',
    ]);
  });

  it('refuses a folder DESIGN.md draws no layer for', () => {
    const root = src({ 'core/loop.ts': "import { x } from '../helpers/x.js';\n" });
    expect(upwardImports(root)).toMatchObject([{ from: 'core', to: 'helpers', unknown: true }]);
  });
});
