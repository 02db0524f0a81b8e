/**
 * A scratch folder the sandbox will bind read-only as a toolchain folder. The sandbox never binds
 * anything under /tmp, /home, /root, /var and the like (src/sandbox/layout.ts), and a checkout often
 * lives under one of them (/tmp in a CI clone, /home/runner on GitHub's runners), so the project's
 * own tmp/ is used only when the checkout is elsewhere; otherwise a top-level folder of its own (not
 * /opt or /usr, which the sandbox binds anyway, so a test could not tell the option from the
 * default). The caller removes it.
 */
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { isNeverBound } from '../../src/sandbox/layout.js';

export function makeBindableDir(prefix: string): string {
  const cwd = realpathSync(process.cwd());
  if (isNeverBound(cwd)) return realpathSync(mkdtempSync(`/agent-action-${prefix}`));
  mkdirSync(join(cwd, 'tmp'), { recursive: true });
  return realpathSync(mkdtempSync(join(cwd, 'tmp', prefix)));
}
