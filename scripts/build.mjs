// Builds the two committed bundles with @vercel/ncc: the action (dist/index.js, action.yml's main)
// and the CLI (dist/cli/index.js, package.json's bin). Reproducible: no source maps, no timestamps,
// a fixed file order; building twice gives the same bytes (.ci/run checks dist/ against git).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ncc = join(dirname(require.resolve('@vercel/ncc/package.json')), 'dist/ncc/cli.js');

const bundles = [
  { entry: 'src/action/index.ts', out: 'dist' },
  { entry: 'src/cli/index.ts', out: 'dist/cli' },
];
// WebAssembly the bundles load at run time (the bash grammar for shell policy). ncc does not
// follow these, so they are copied beside each bundle.
const wasm = ['web-tree-sitter/web-tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm'];

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const b of bundles) {
  execFileSync(process.execPath, [ncc, 'build', b.entry, '-o', b.out, '--quiet', '--target', 'es2022'], {
    cwd: root,
    stdio: 'inherit',
  });
  for (const w of wasm) copyFileSync(require.resolve(w), join(root, b.out, w.split('/').pop()));
}
const cli = join(root, 'dist/cli/index.js');
const text = readFileSync(cli, 'utf8');
if (!text.startsWith('#!')) writeFileSync(cli, `#!/usr/bin/env node\n${text}`);
chmodSync(cli, 0o755);
mkdirSync(join(root, 'dist'), { recursive: true });
