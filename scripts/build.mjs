// Builds the committed bundle with @vercel/ncc: one build of src/entry.ts, so every module the
// action and the CLI share ships once, in one chunk. dist/index.js is the action (action.yml's
// main); dist/cli/index.js (package.json's bin) is scripts/cli-bin.mjs, which keeps compiled code
// between runs, marks the process as the CLI and imports the bundle. Then esbuild minifies every file (minifyBundles). Reproducible: no source maps, no
// timestamps, a fixed file order; building twice gives the same bytes (.ci/run checks dist/ against git).
// `--out DIR --no-minify` builds a readable copy elsewhere (test/security/weaken.mjs edits one).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ncc = join(dirname(require.resolve('@vercel/ncc/package.json')), 'dist/ncc/cli.js');

// WebAssembly the bundle loads at run time (the bash grammar for shell policy). ncc does not
// follow these, so they are copied into dist/ (src/policy/shell/parse.ts looks in every folder
// above the running file).
const wasm = ['web-tree-sitter/web-tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm'];

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const dist = outAt >= 0 ? resolve(args[outAt + 1]) : join(root, 'dist');
const minify = !args.includes('--no-minify');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [ncc, 'build', 'src/entry.ts', '-o', dist, '--quiet', '--target', 'es2022'], {
  cwd: root,
  stdio: 'inherit',
});
const files = readdirSync(dist)
  .filter((f) => f.endsWith('.js'))
  .map((f) => join(dist, f));
const id = moduleIdOfNodeModule(files.map((f) => readFileSync(f, 'utf8')).join('\n'));
for (const file of files) {
  const code = readFileSync(file, 'utf8');
  const fixed = fixModuleNamespaceImport(code, id);
  if (fixed !== code) writeFileSync(file, fixed);
}
for (const w of wasm) copyFileSync(require.resolve(w), join(dist, w.split('/').pop()));
// The built-in policies are data, read at run time from dist/policies/ (src/policy/load.ts).
mkdirSync(join(dist, 'policies'));
for (const f of readdirSync(join(root, 'policies')).filter((f) => f.endsWith('.toml')))
  copyFileSync(join(root, 'policies', f), join(dist, 'policies', f));
// ncc also emits web-tree-sitter's own `new URL('web-tree-sitter.wasm', import.meta.url)` as an asset,
// mangled (read as text) and never loaded: shell/parse.ts passes locateFile. Dead weight: removed.
for (const f of readdirSync(dist).filter((f) => /^[0-9a-f]{20}\.wasm$/.test(f))) rmSync(join(dist, f));
if (minify) minifyBundles();
// The CLI's entry: scripts/cli-bin.mjs, which says what it adds (Node's compile cache).
const cli = join(dist, 'cli/index.js');
mkdirSync(dirname(cli), { recursive: true });
copyFileSync(join(root, 'scripts/cli-bin.mjs'), cli);
chmodSync(cli, 0o755);

// Smoke test: the shell parser (web-tree-sitter) is the part the bundler is most likely to break,
// and `policy check` on a compound command needs it. A broken bundle fails the build, not a user.
const smoke = spawnSync(
  process.execPath,
  [cli, 'policy', 'check', '--tool', 'run_shell_command', '--args', '{"command":"ls && git status"}', '--json'],
  { encoding: 'utf8' },
);
if (smoke.status !== 0 || !smoke.stdout.includes('"decision"')) {
  console.error(`build smoke test failed (exit ${smoke.status}):\n${smoke.stdout}${smoke.stderr}`);
  process.exit(1);
}

/**
 * Every .js file of the bundle, minified in place: whitespace, syntax and local names. After the
 * rewrite above, so it sees ncc's own shapes (ncc's --minify only minifies an entry, and would hide
 * the module shapes it rewrites). keepNames: a function or class
 * keeps its `name` (ncc's --minify keeps them too): libraries may read it; our own errors carry
 * their names as strings. String literals, so every message a user sees, are untouched (as values:
 * charset ascii writes a character outside ASCII as an escape, so a chunk's source is ASCII and V8
 * keeps it as a one-byte string; one such character anywhere makes the whole source two bytes a
 * character, and scanned on a slower path). License comments are kept at the end of each file.
 */
function minifyBundles() {
  for (const f of readdirSync(dist)
    .filter((f) => f.endsWith('.js'))
    .sort()) {
    const file = join(dist, f);
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      format: 'esm',
      target: 'es2022',
      platform: 'node',
      minifyWhitespace: true,
      minifySyntax: true,
      minifyIdentifiers: true,
      keepNames: true,
      legalComments: 'eof',
      charset: 'ascii',
    });
    writeFileSync(file, code);
  }
}

/**
 * web-tree-sitter runs `const { createRequire } = await import('module')`. ncc compiles that into a
 * namespace wrapper (`__nccwpck_require__.t.bind(__nccwpck_require__, ID, 19)`; in a chunk file
 * the require function is called `__webpack_require__`) that keeps only `default` for a module
 * whose export is a function, so createRequire comes out undefined and the bundle dies when the
 * parser loads. Point the dynamic import at the plain module object instead. The module is defined
 * in the main file; web-tree-sitter, loaded lazily, is a chunk of its own. The smoke test above
 * proves the result.
 */
function moduleIdOfNodeModule(code) {
  return /\/\*\*\*\/ (\d+):\n\/\*\*\*\/ \(\(module\) => \{\n\nmodule\.exports = __WEBPACK_EXTERNAL_createRequire\(import\.meta\.url\)\("(?:node:)?module"\);/.exec(
    code,
  )?.[1];
}

function fixModuleNamespaceImport(code, id) {
  if (id === undefined) return code;
  for (const req of ['__nccwpck_require__', '__webpack_require__'])
    code = code.split(`${req}.t.bind(${req}, ${id}, 19)`).join(`() => ${req}(${id})`);
  return code;
}
