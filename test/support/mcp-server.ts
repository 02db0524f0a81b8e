/**
 * MCP servers for tests, real ones:
 * - test/fixtures/mcp/test-server.mjs (the SDK's server side), bundled with esbuild into one file
 *   that can sit in a workspace and run in the sandbox, where no node_modules is visible;
 * - @modelcontextprotocol/server-everything (the registry's reference server): bundled the same
 *   way for stdio in the sandbox, or run from node_modules in its Streamable HTTP mode on a free
 *   loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './e2e-runner.js';

const SOURCE = join(REPO_ROOT, 'test/fixtures/mcp/test-server.mjs');

/** Writes the bundled test server to `outFile` (an .mjs): one file, no imports but node's. */
export function bundleTestServer(outFile: string): Promise<void> {
  return bundleServer(SOURCE, outFile);
}

/**
 * server-everything bundled into one file the same way, to sit in a workspace: the sandbox never
 * binds a folder under /tmp, /home or /root (a runner's checkout lives in one), so the shared
 * node_modules may be out of its reach.
 */
export function bundleEverything(outFile: string): Promise<void> {
  return bundleServer(EVERYTHING, outFile);
}

async function bundleServer(entry: string, outFile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile: outFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    logLevel: 'silent',
    // Some dependencies still call require(): give the ES module one.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}

/** server-everything's entry by its real path (node_modules is a symlink in worktrees). */
const EVERYTHING = realpathSync(join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'));

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** server-everything over Streamable HTTP at http://127.0.0.1:<port>/mcp; resolves once it listens. */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes(`listening on port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${err}`)));
  });
  child.stdout!.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
