/**
 * action.yml as GitHub reads it: strict YAML 1.2 (the `yaml` package), valid against GitHub's
 * action-metadata schema (SchemaStore's github-action.json, vendored in test/fixtures/schemas/),
 * a description on every input and output, node24, a main that exists. And the code's view of the
 * inputs is the file's: the same names, the same defaults.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { INPUT_DEFAULTS, parseInputs } from '../../src/action/inputs.js';
import { parseYamlStrict, readActionInputs, readActionYml } from '../support/action-yml.js';
import { REPO_ROOT } from '../support/e2e-runner.js';

const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/schemas/github-action.json'), 'utf8')) as object;
// strict: false is about the schema's own style (SchemaStore's uses `required` under oneOf branches
// that Ajv's strict mode flags), not about how strictly action.yml is checked.
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
const action = readActionYml();

describe('action.yml', () => {
  it('is valid against GitHub action metadata schema', () => {
    const ok = validate(action);
    expect(ok ? [] : validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
  });

  it('the schema check rejects what GitHub rejects (an input without description, an unknown runtime)', () => {
    const broken = structuredClone(action);
    delete (broken.inputs!.model as { description?: string }).description;
    broken.runs.using = 'node99';
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['/inputs/model', '/runs/using']),
    );
  });

  it('runs on node24 from a main that exists', () => {
    expect(action.runs.using).toBe('node24');
    expect(action.runs.main).toBe('dist/index.js');
    expect(existsSync(join(REPO_ROOT, action.runs.main!))).toBe(true);
  });

  it('describes every input and every output', () => {
    const undescribed = [...Object.entries(action.inputs ?? {}), ...Object.entries(action.outputs ?? {})]
      .filter(([, v]) => !v?.description?.trim())
      .map(([k]) => k);
    expect(undescribed).toEqual([]);
    expect(Object.keys(action.outputs ?? {})).toEqual([
      'status',
      'summary',
      'structured-output',
      'session-id',
      'branch',
      'pull-request',
      'review-id',
      'labels',
      'turns',
      'tokens',
      'cost-usd',
      'shards',
      'shard-count',
      'api-calls',
      'error',
    ]);
  });

  it("has the code's defaults, input by input (and the code reads no input the file does not declare)", () => {
    const fromYaml = Object.fromEntries(readActionInputs().map((i) => [i.name, i.default]));
    expect(INPUT_DEFAULTS).toEqual(fromYaml);
    const asked = new Set<string>();
    parseInputs((name) => (asked.add(name), ''));
    expect([...asked].sort()).toEqual(Object.keys(fromYaml).sort());
  });

  it('a strict parser rejects a plain scalar holding ": " (the line that once broke action.yml)', () => {
    expect(() =>
      parseYamlStrict('inputs:\n  mode:\n    description: Empty means per command: auto_edit\n', 'x.yml'),
    ).toThrow(/x\.yml:3:\d+ /);
  });
});
