// What the generators of committed source files share (scripts/gen-arg-checks.mjs): the text
// formatted as Prettier formats the file it becomes, written only when it changed, and the
// command-line run that reports which.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';

/** `text` as the repository's Prettier config formats a file at `path`: same input, same bytes. */
export async function formatAs(path, text) {
  const options = (await prettier.resolveConfig(path)) ?? {};
  return prettier.format(text, { ...options, filepath: path });
}

/** When `moduleUrl` is the script node was started with: writes what `generate` returns to `path` if it differs. */
export function runGenerator(moduleUrl, path, generate) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  generate()
    .then((text) => {
      let before;
      try {
        before = readFileSync(path, 'utf8');
      } catch {
        before = undefined;
      }
      if (before === text) return console.log(`${path}: up to date`);
      writeFileSync(path, text);
      console.log(`${path}: written`);
    })
    .catch((e) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    });
}
