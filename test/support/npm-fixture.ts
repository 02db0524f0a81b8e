/**
 * An npm package of our SDK-built test server (test/fixtures/mcp/test-server.mjs, bundled into one
 * file, so it has no dependencies to fetch), packed with the real `npm pack`, and a loopback
 * registry that serves it, so that the real `npm cache add` can fill a cache the way a workflow's
 * earlier step would (`npm cache add <pkg>` against the registry). npx then runs it from that cache
 * with the network off: the registry is unreachable from the sandbox, whatever its address.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { bundleTestServer } from './mcp-server.js';

export const FIXTURE_PACKAGE = 'agent-action-mcp-fixture';
const VERSION = '1.0.0';

/** Packs the fixture into `dir`; returns the tarball's path. */
export async function packFixtureServer(dir: string): Promise<string> {
  const pkg = join(dir, 'package');
  mkdirSync(pkg, { recursive: true });
  await bundleTestServer(join(pkg, 'server.mjs'));
  writeFileSync(join(pkg, 'server.mjs'), `#!/usr/bin/env node\n${readFileSync(join(pkg, 'server.mjs'), 'utf8')}`, {
    mode: 0o755,
  });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: FIXTURE_PACKAGE,
      version: VERSION,
      type: 'module',
      bin: { [FIXTURE_PACKAGE]: 'server.mjs' },
    }),
  );
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkg });
  return join(dir, stdout.trim().split('\n').pop()!);
}

/** A registry of one package at http://127.0.0.1:<port>/: its packument and its tarball. */
export async function startFixtureRegistry(tarball: string): Promise<{ url: string; close(): Promise<void> }> {
  const bytes = readFileSync(tarball);
  const server: Server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (req.url?.endsWith('.tgz')) return void res.end(bytes);
    if (req.url !== `/${FIXTURE_PACKAGE}`) return void res.writeHead(404).end('{}');
    const dist = {
      tarball: `${base}/${FIXTURE_PACKAGE}/-/${FIXTURE_PACKAGE}-${VERSION}.tgz`,
      shasum: createHash('sha1').update(bytes).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    };
    const version = { name: FIXTURE_PACKAGE, version: VERSION, bin: { [FIXTURE_PACKAGE]: 'server.mjs' }, dist };
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ name: FIXTURE_PACKAGE, 'dist-tags': { latest: VERSION }, versions: { [VERSION]: version } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * `npm cache add <fixture>` from `registry` into `cache`, as a workflow step before the agent
 * would. Asynchronous: the registry answers from this process.
 */
export async function primeNpmCache(cache: string, registry: string): Promise<void> {
  await run('npm', ['cache', 'add', FIXTURE_PACKAGE, '--registry', registry, '--cache', cache], {
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

const run = promisify(execFile);
