/**
 * What the model is told about each built-in tool (name, kind, description, argument schema),
 * apart from the code that runs it: the first model request needs only these, so a run does not
 * load the tools' implementations (and re2js, diff and the file walkers under them) before it;
 * default-tools.ts loads each implementation on its tool's first call. Each tool's module spreads
 * its declaration into its definition, so the two cannot drift apart.
 *
 * The schemas are plain JSON Schema (`as const`), not TypeBox builders: TypeBox infers the argument
 * type from the literal all the same, and its type-builder module (~450 KB) then stays out of the
 * path to the first model request. Keys are in the order the model has always been sent them.
 */
import type { TSchema } from 'typebox';
import type { Tool } from './define-tool.js';

/** A tool without its `prepare`: everything the registry, the policy and a request need. */
export type ToolDeclaration<S extends TSchema = TSchema> = Omit<Tool<S>, 'prepare'>;

/** Lines returned by one read when no range is given, and at most for any range. */
export const MAX_LINES = 2000;
/** Longer lines are cut: minified bundles would otherwise fill the context with one line. */
export const MAX_LINE_CHARS = 2000;
export const MAX_GLOB_RESULTS = 200;
export const DEFAULT_MAX_MATCHES = 100;
/** Output kept per command (head and tail); the model rarely needs more, and context is finite. */
export const MAX_SHELL_OUTPUT_BYTES = 32 * 1024;
/** No command may ask for more than this, whatever the run's default. */
export const MAX_SHELL_TIMEOUT_MS = 60 * 60 * 1000;

/** list-directory.ts runs it. */
export const listDirectoryDeclaration = {
  name: 'list_directory',
  kind: 'read',
  description: 'Lists a directory, subdirectories first (marked "/"), without what .gitignore ignores unless told otherwise.',
  params: {
    type: 'object',
    required: ['dir_path'],
    properties: {
      dir_path: { type: 'string', description: 'Directory to list ("." for the root).' },
      ignore: { type: 'array', items: { type: 'string' }, description: 'Globs of names to leave out.' },
      file_filtering_options: {
        type: 'object',
        properties: {
          respect_git_ignore: { type: 'boolean' },
          respect_gemini_ignore: { type: 'boolean' },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;

/** read-file.ts runs it. */
export const readFileDeclaration = {
  name: 'read_file',
  kind: 'read',
  description: `Reads a text file, at most ${MAX_LINES} lines (each cut at ${MAX_LINE_CHARS} characters) per call; the result says which lines to read next. Binary files are not shown.`,
  params: {
    type: 'object',
    required: ['file_path'],
    properties: {
      file_path: { type: 'string' },
      start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based).' },
      end_line: { type: 'integer', minimum: 1, description: 'Last line to read (1-based, inclusive).' },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;

/** glob.ts runs it. */
export const globDeclaration = {
  name: 'glob',
  kind: 'search',
  description: `Finds files whose paths match a glob; respects .gitignore. Up to ${MAX_GLOB_RESULTS}, newest first (by path when more match).`,
  params: {
    type: 'object',
    required: ['pattern'],
    properties: {
      pattern: { type: 'string', minLength: 1, description: "Glob, e.g. '**/*.py' or 'src/**/*.{ts,tsx}'." },
      dir_path: { type: 'string' },
      case_sensitive: { type: 'boolean' },
      respect_git_ignore: { type: 'boolean' },
      respect_gemini_ignore: { type: 'boolean' },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;

/** grep-search.ts runs it. */
export const grepSearchDeclaration = {
  name: 'grep_search',
  aliases: ['search_file_content'],
  kind: 'search',
  description: `Searches file contents for a regex (RE2: no lookahead or backreferences), case-insensitive by default; returns matching lines by file. Respects .gitignore; skips binary files.`,
  params: {
    type: 'object',
    required: ['pattern'],
    properties: {
      pattern: { type: 'string', minLength: 1, description: "Regex, e.g. 'function\\s+myFunction'." },
      dir_path: { type: 'string' },
      include_pattern: { type: 'string', description: "Glob of the files to search, e.g. '*.{ts,tsx}'." },
      exclude_pattern: { type: 'string', description: 'Leave out lines that also match this regex.' },
      names_only: { type: 'boolean', description: 'Only the paths of files with matches.' },
      case_sensitive: { type: 'boolean' },
      max_matches_per_file: { type: 'integer', minimum: 1 },
      total_max_matches: { type: 'integer', minimum: 1, maximum: 1000, description: `Default ${DEFAULT_MAX_MATCHES}.` },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;

/** write-file.ts runs it. */
export const writeFileDeclaration = {
  name: 'write_file',
  kind: 'edit',
  description: 'Writes a whole file, creating missing directories; an existing file keeps its line endings and encoding. For small edits use replace.',
  params: {
    type: 'object',
    required: ['file_path', 'content'],
    properties: {
      file_path: { type: 'string' },
      content: { type: 'string', description: "The whole new content; no placeholders like '// ... rest of code'." },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;

/** replace.ts runs it. */
export const replaceDeclaration = {
  name: 'replace',
  kind: 'edit',
  description: 'Replaces exact text in a file: old_string must occur exactly once, unless expected_replacements or allow_multiple. An empty old_string creates the file.',
  params: {
    type: 'object',
    required: ['file_path', 'old_string', 'new_string'],
    properties: {
      file_path: { type: 'string' },
      instruction: { type: 'string', description: 'What and why, in one sentence.' },
      old_string: { type: 'string', description: 'Exact text to replace, unescaped, whitespace and indentation included.' },
      new_string: { type: 'string', description: 'Exact literal replacement: complete code, no placeholders.' },
      expected_replacements: { type: 'integer', minimum: 1, description: 'Occurrences to replace (default 1); fails unless exactly that many exist.' },
      allow_multiple: { type: 'boolean', description: 'Replace every occurrence (at least one).' },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;

/** run-shell-command.ts runs it. */
export const runShellCommandDeclaration = {
  name: 'run_shell_command',
  kind: 'execute',
  description: `Runs \`bash -c <command>\` in the workspace, sandboxed where possible (only the workspace writable, but not .git/, .gemini/, .github/; empty $HOME; no network unless allowed); returns its output (over ${MAX_SHELL_OUTPUT_BYTES / 1024} KB: start and end), exit code and signal. Prefer the file tools to read and search.`,
  params: {
    type: 'object',
    required: ['command'],
    properties: {
      command: { type: 'string', minLength: 1, description: 'The bash command.' },
      description: { type: 'string', description: 'What and why, in one sentence.' },
      dir_path: { type: 'string' },
      timeout_ms: { type: 'integer', minimum: 1000, maximum: MAX_SHELL_TIMEOUT_MS, description: 'Kill it after this many ms.' },
    },
    additionalProperties: false,
  },
} as const satisfies ToolDeclaration;
