/**
 * YAML, read the way GitHub and local-action read it: with a real YAML 1.2 parser (the `yaml`
 * package), strictly. Any error or warning throws, naming the file, line and column. No test reads
 * action.yml or a workflow any other way.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, type Document } from 'yaml';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Every document of a YAML text, or an Error listing each problem as `file:line:col message`. */
export function parseYamlStrict(text: string, file: string): unknown[] {
  const parsed = parseAllDocuments(text, { prettyErrors: true, strict: true, uniqueKeys: true });
  const docs: Document[] = [...parsed];
  const problems = docs
    .flatMap((d) => [...d.errors, ...d.warnings])
    .map((e) => {
      const at = e.linePos?.[0];
      return `${file}:${at ? `${at.line}:${at.col}` : '?'} ${e.code}: ${e.message.split('\n')[0]}`;
    });
  if (problems.length > 0) throw new Error(`YAML does not parse strictly:\n${problems.join('\n')}`);
  return docs.map((d) => d.toJS({ maxAliasCount: 100 }));
}

/** One document, strictly: a file holding several is an error too. */
export function readYamlFile(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  const docs = parseYamlStrict(text, path);
  if (docs.length !== 1) throw new Error(`${path}: expected one YAML document, found ${docs.length}`);
  return docs[0];
}

export interface ActionMetadata {
  name: string;
  description: string;
  inputs?: Record<string, { description?: string; required?: boolean; default?: unknown; deprecationMessage?: string }>;
  outputs?: Record<string, { description?: string }>;
  runs: { using: string; main?: string; pre?: string; post?: string };
}

export const readActionYml = (path = join(ROOT, 'action.yml')): ActionMetadata => readYamlFile(path) as ActionMetadata;

export interface ActionInput {
  name: string;
  /** As the runner sees it: a string (YAML `40` becomes '40'), or undefined when there is none. */
  default: string | undefined;
  required: boolean;
  description: string;
}

/** The inputs of action.yml, in file order. */
export function readActionInputs(path?: string): ActionInput[] {
  return Object.entries(readActionYml(path).inputs ?? {}).map(([name, spec]) => ({
    name,
    default: spec?.default === undefined || spec.default === null ? undefined : String(spec.default),
    required: spec?.required === true,
    description: spec?.description ?? '',
  }));
}
