// Builds the two committed bundles with @vercel/ncc: the action (dist/index.js, action.yml's main)
// and the CLI (dist/cli/index.js, package.json's bin); the CLI loads the chunks the two share from dist/;
// then esbuild minifies every file (minifyBundles). Reproducible: no source maps, no timestamps,
// a fixed file order; building twice gives the same bytes (.ci/run checks dist/ against git).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ncc = join(dirname(require.resolve('@vercel/ncc/package.json')), 'dist/ncc/cli.js');

const bundles = [
  { entry: 'src/action/index.ts', out: 'dist' },
  { entry: 'src/cli/index.ts', out: 'dist/cli' },
];
// WebAssembly the bundles load at run time (the bash grammar for shell policy). ncc does not
// follow these, so they are copied once, into dist/: the CLI in dist/cli/ finds them one folder up
// (src/policy/shell-split.ts looks in every folder above the running file).
const wasm = ['web-tree-sitter/web-tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm'];

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const b of bundles) {
  execFileSync(process.execPath, [ncc, 'build', b.entry, '-o', b.out, '--quiet', '--target', 'es2022'], {
    cwd: root,
    stdio: 'inherit',
  });
  const files = readdirSync(join(root, b.out))
    .filter((f) => f.endsWith('.js'))
    .map((f) => join(root, b.out, f));
  const id = moduleIdOfNodeModule(files.map((f) => readFileSync(f, 'utf8')).join('\n'));
  for (const file of files) {
    const code = readFileSync(file, 'utf8');
    const fixed = fixModuleNamespaceImport(code, id);
    if (fixed !== code) writeFileSync(file, fixed);
  }
}
for (const w of wasm) copyFileSync(require.resolve(w), join(root, 'dist', w.split('/').pop()));
// ncc also emits web-tree-sitter's own `new URL('web-tree-sitter.wasm', import.meta.url)` as an asset,
// mangled (read as text) and never loaded: shell-split.ts passes locateFile. Dead weight: removed.
for (const dir of ['dist', 'dist/cli']) {
  for (const f of readdirSync(join(root, dir)).filter((f) => /^[0-9a-f]{20}\.wasm$/.test(f))) rmSync(join(root, dir, f));
}
const cli = join(root, 'dist/cli/index.js');
shareIdenticalChunks(cli);
minifyBundles();
const text = readFileSync(cli, 'utf8');
if (!text.startsWith('#!')) writeFileSync(cli, `#!/usr/bin/env node\n${text}`);
chmodSync(cli, 0o755);

// Smoke test: the shell parser (web-tree-sitter) is the part the bundler is most likely to break,
// and `policy check` on a compound command needs it. A broken bundle fails the build, not a user.
const smoke = spawnSync(process.execPath, [cli, 'policy', 'check', '--tool', 'run_shell_command', '--args', '{"command":"ls && git status"}', '--json'], { encoding: 'utf8' });
if (smoke.status !== 0 || !smoke.stdout.includes('"decision"')) {
  console.error(`build smoke test failed (exit ${smoke.status}):\n${smoke.stdout}${smoke.stderr}`);
  process.exit(1);
}

/**
 * Every .js file of both bundles, minified in place: whitespace, syntax and local names. Last, so
 * the steps above see ncc's own shapes (ncc's --minify only minifies an entry, and would hide the
 * loader and module shapes they rewrite). Identical chunks stay identical (same input, same
 * output), so what the CLI shares with the action is unchanged. keepNames: a function or class
 * keeps its `name` (ncc's --minify keeps them too): libraries may read it; our own errors carry
 * their names as strings. String literals, so every message a user sees, are untouched. License
 * comments are kept at the end of each file.
 */
function minifyBundles() {
  for (const dir of ['dist', 'dist/cli']) {
    for (const f of readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.js'))
      .sort()) {
      const file = join(root, dir, f);
      const { code } = transformSync(readFileSync(file, 'utf8'), {
        format: 'esm',
        target: 'es2022',
        platform: 'node',
        minifyWhitespace: true,
        minifySyntax: true,
        minifyIdentifiers: true,
        keepNames: true,
        legalComments: 'eof',
        charset: 'utf8',
      });
      writeFileSync(file, code);
    }
  }
}

/**
 * The two bundles are separate ncc builds, yet many of their chunks come out byte for byte the same
 * (the model SDK's 1.9 MB chunk among them): same modules, same ids, same code. The CLI keeps one
 * copy of each, the action's in dist/, and its chunk loader (webpack's `u`, which names a chunk's
 * file) looks one folder up for those. Loading the same bytes from another folder changes nothing
 * unless the chunk resolves paths against its own file (`import.meta`), so such chunks stay put.
 * The build fails if the loader is not the shape this rewrites.
 */
function shareIdenticalChunks(entry) {
  const cliDir = dirname(entry);
  const shared = [];
  for (const f of readdirSync(cliDir).filter((f) => /^\d+\.index\.js$/.test(f))) {
    const twin = join(root, 'dist', f);
    if (!existsSync(twin)) continue;
    const code = readFileSync(join(cliDir, f));
    if (!code.equals(readFileSync(twin)) || code.includes('import.meta')) continue;
    shared.push(f.split('.')[0]);
  }
  if (shared.length === 0) return;
  const loader = 'return "" + chunkId + ".index.js";';
  const code = readFileSync(entry, 'utf8');
  if (code.split(loader).length !== 2) {
    console.error(`build: the CLI's chunk loader is not the expected \`${loader}\`: cannot share chunks with dist/`);
    process.exit(1);
  }
  const ids = JSON.stringify(shared.sort((a, b) => Number(a) - Number(b)));
  writeFileSync(entry, code.replace(loader, `return (${ids}.includes(String(chunkId)) ? "../" : "") + chunkId + ".index.js";`));
  for (const id of shared) rmSync(join(cliDir, `${id}.index.js`));
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
  return /\/\*\*\*\/ (\d+):\n\/\*\*\*\/ \(\(module\) => \{\n\nmodule\.exports = __WEBPACK_EXTERNAL_createRequire\(import\.meta\.url\)\("(?:node:)?module"\);/.exec(code)?.[1];
}

function fixModuleNamespaceImport(code, id) {
  if (id === undefined) return code;
  for (const req of ['__nccwpck_require__', '__webpack_require__']) code = code.split(`${req}.t.bind(${req}, ${id}, 19)`).join(`() => ${req}(${id})`);
  return code;
}
