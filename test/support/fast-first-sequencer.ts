/**
 * Test file order for mutation testing (vitest.stryker.config.ts). Stryker runs each mutant against
 * the tests that cover it (every related test, for a mutant reached while modules load) and stops at
 * the first failure, so the order decides the cost: vitest's default runs the slowest files first
 * (good for a parallel suite, bad here, where a mutant that a pure unit test kills in a millisecond
 * would first wait for every git-backed approval test).
 *
 * Order: files that import the mutated module themselves (Stryker names it in `related`), then
 * files that failed last time (a neighbouring mutant is likely killed by the same file), then the
 * fastest; files never timed keep vitest's order, ahead of timed ones.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const sources = new Map<string, string>();
const sourceOf = (file: string): string => {
  let text = sources.get(file);
  if (text === undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = '';
    }
    sources.set(file, text);
  }
  return text;
};

export default class FastFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    // `src/common/git-env.ts` is imported as `.../src/common/git-env.js`.
    const related = typeof config.related === 'string' ? [config.related] : (config.related ?? []);
    const imports = related.map((f) => `${relative(config.root, f).replace(/\.ts$/, '')}.js`);
    const direct = (f: TestSpecification) => imports.some((i) => sourceOf(f.moduleId).includes(i));
    const stateOf = (f: TestSpecification) =>
      cache.getFileTestResults(`${f.project.name}:${relative(config.root, f.moduleId)}`);
    const sorted = [...files].sort((a, b) => {
      const da = direct(a);
      if (da !== direct(b)) return da ? -1 : 1;
      const sa = stateOf(a);
      const sb = stateOf(b);
      if (!sa || !sb) return !sa && sb ? -1 : !sb && sa ? 1 : 0;
      if (sa.failed !== sb.failed) return sa.failed ? -1 : 1;
      return sa.duration - sb.duration;
    });
    return sorted;
  }
}
