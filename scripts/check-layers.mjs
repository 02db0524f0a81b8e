// Part of `npm run lint`: refuses an import in src/ that points up the layers of DESIGN.md. Each
// folder of src/ is a layer; a file may import its own layer and the ones below it, never one
// above, and neither face (action/, cli/) imports the other. `entry.ts` sits above everything (it
// picks a face); `common/` below everything. Relative imports and `import()` are both read; a
// package import is not a layer. Prints `file:line: layer -> layer (specifier)` for each and exits 1.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Top to bottom, as DESIGN.md draws them. Faces share the top row. */
export const LAYERS = [
  ['action', 'cli'],
  ['session'],
  ['compose'],
  ['commands'],
  ['agents'],
  ['core'],
  ['hooks'],
  ['scheduler'],
  ['policy'],
  ['tools'],
  ['sandbox'],
  ['context'],
  ['model'],
  ['git'],
  ['common'],
];

const rank = new Map(LAYERS.flatMap((row, i) => row.map((name) => [name, i])));
const IMPORT =
  /(?:\bimport|\bexport)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

function* sourcesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourcesUnder(path);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The layer a path under root belongs to: its first folder, or undefined for a file at the top. */
function layerOf(root, path) {
  const parts = relative(root, path).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** Every import under root that points up (or across the faces), as { file, line, from, to, specifier }. */
export function upwardImports(root) {
  const found = [];
  for (const file of sourcesUnder(root)) {
    const from = layerOf(root, file);
    if (from === undefined) continue; // entry.ts: above every layer
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(IMPORT)) {
      const specifier = m[1] ?? m[2];
      const to = layerOf(root, resolve(dirname(file), specifier));
      if (to === undefined || to === from) continue;
      if (!rank.has(from) || !rank.has(to)) {
        found.push({ file, line: lineAt(code, m.index), from, to, specifier, unknown: true });
      } else if (rank.get(to) <= rank.get(from)) {
        found.push({ file, line: lineAt(code, m.index), from, to, specifier });
      }
    }
  }
  return found;
}

const lineAt = (code, index) => code.slice(0, index).split('\n').length;

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, '../src'));
  const found = upwardImports(root);
  for (const f of found) {
    const why = f.unknown
      ? `a folder DESIGN.md draws no layer for (add it to LAYERS in scripts/check-layers.mjs)`
      : `imports point down the layers only`;
    console.error(`${relative(process.cwd(), f.file)}:${f.line}: ${f.from}/ -> ${f.to}/ ('${f.specifier}'): ${why}`);
  }
  if (found.length > 0) process.exit(1);
}
