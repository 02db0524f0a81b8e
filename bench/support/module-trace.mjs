// Preloaded with `node --import` by the benches (never by the action or the CLI): appends the path of
// every file module the process resolves (a bundle's entry and each chunk it imports) to the file
// MODULE_TRACE names, one per line, so a bench can say which chunks a command loaded and how many
// bytes of JavaScript that was. Synchronous, in-thread hooks (Node >= 22.15): the list is complete
// when the process exits, with no worker thread to wait for.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

const out = process.env.MODULE_TRACE;
if (out) {
  registerHooks({
    resolve(specifier, context, next) {
      const r = next(specifier, context);
      if (r.url.startsWith('file:')) appendFileSync(out, `${fileURLToPath(r.url)}\n`);
      return r;
    },
  });
}
