import type { PolicyQuery } from './types.js';

/**
 * Gemini CLI's build file protection: an edit that a rule allows is still asked about (denied where
 * nobody can be asked) when it targets a file that tells tools what to run (package.json scripts,
 * Makefiles, Dockerfiles...). Such a file turns a harmless-looking allowed command (`npm test`) into
 * any command. Same names and the same test of "an edit tool" as Gemini CLI; lexical, no symlinks.
 */
const BUILD_FILES = new Set([
  'BUILD',
  'BUILD.bazel',
  'WORKSPACE',
  'WORKSPACE.bazel',
  'MODULE.bazel',
  '.bazelrc',
  '.blazerc',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'CMakeLists.txt',
  'package.json',
  'package-lock.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  'setup.py',
  'setup.cfg',
  'pyproject.toml',
  'go.mod',
  'go.sum',
  'Cargo.toml',
  'Cargo.lock',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle',
  'settings.gradle.kts',
  'Dockerfile',
  'Containerfile',
]);
const BUILD_EXTENSIONS = new Set(['.bzl', '.bazel', '.bzlmod', '.mk', '.cmake']);
const EDIT_WORDS = new Set(['write', 'edit', 'replace', 'patch', 'update', 'create', 'append', 'save']);

export function isBuildFile(path: string): boolean {
  const name = path.replace(/\0/g, '').replace(/\\/g, '/').replace(/\/+$/, '').split('/').pop() ?? '';
  if (BUILD_FILES.has(name) || name.startsWith('Dockerfile.') || name.startsWith('Containerfile.')) return true;
  const dot = name.lastIndexOf('.');
  return dot > 0 && BUILD_EXTENSIONS.has(name.slice(dot).toLowerCase());
}

/** The build file this call edits, if it is an edit (by name, as Gemini CLI tells) of one. */
export function editedBuildFile(q: PolicyQuery, names: readonly string[]): string | undefined {
  const edits = names.some(
    (n) =>
      n === 'write_file' ||
      n === 'replace' ||
      n
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .some((t) => EDIT_WORDS.has(t)),
  );
  if (!edits) return undefined;
  const target = q.args.file_path ?? q.args.path ?? q.args.filePath ?? q.args.file;
  return typeof target === 'string' && isBuildFile(target.trim()) ? target : undefined;
}
