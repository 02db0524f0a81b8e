/**
 * Why a stdio server did not start, in words that name the cause: a path the sandbox does not
 * show, the network it does not have, the Docker daemon it cannot reach. Pure: the caller passes
 * what it knows (the spawn's refused paths, the server's network, its last stderr) and how to ask
 * whether a host path exists.
 */
import { isAbsolute } from 'node:path';
import type { McpServerConfig } from './config.js';

export interface StartFailureFacts {
  network: boolean;
  /** SpawnRequest.visible paths the sandbox left out, and why. */
  notVisible?: ReadonlyArray<{ path: string; why: string }>;
  stderr: string;
  exists: (path: string) => boolean;
}

/** What a process without the network says (npm's ENOTCACHED when told to stay offline, DNS and connect errors). */
const OFFLINE =
  /\bENOTCACHED\b|\bENOTFOUND\b|\bEAI_AGAIN\b|getaddrinfo|\bENETUNREACH\b|network is unreachable|\bECONNREFUSED\b|Failed to fetch|UV_OFFLINE|offline mode/i;
/** Node's and the shell's words for a file that is not there. */
const MISSING_FILE = /Cannot find module '([^']+)'|can't open file '([^']+)'|(\/[^\s:'"]+): No such file or directory/g;

/** Sentences to add to the start error, most telling first; empty when nothing is known. */
export function explainStartFailure(c: McpServerConfig, f: StartFailureFacts): string[] {
  const out: string[] = [];
  const t = c.transport;
  if (t.kind !== 'stdio') return out;
  const named = new Set([t.command, ...t.args]);
  for (const r of f.notVisible ?? [])
    if (named.has(r.path) || f.stderr.includes(r.path))
      out.push(`this path is not visible in the sandbox: ${r.path} (it ${r.why})`);
  for (const path of missingPaths(f.stderr)) {
    if (out.some((s) => s.includes(path))) continue;
    out.push(
      f.exists(path)
        ? `this path is not visible in the sandbox: ${path} (name it as the command or an absolute argument, or keep it in the workspace)`
        : `${path} does not exist on this machine`,
    );
  }
  if (!f.network && OFFLINE.test(f.stderr))
    out.push(
      `the network is off for this server; set "network": true in its settings (in a workflow: or name it in the \`mcp-network\` input)${
        /\bENOTCACHED\b/.test(f.stderr)
          ? ', or fill the package cache in an earlier step (README: "MCP servers in the forms users write")'
          : ''
      }`,
    );
  if (/Cannot connect to the Docker daemon|docker\.sock/i.test(f.stderr) && !c.dockerOutsideSandbox)
    out.push(
      'the Docker client cannot reach the daemon from the sandbox; set "dockerOutsideSandbox": true in its settings (README says what that trades), or use a remote server over `url`',
    );
  return out;
}

/** Absolute paths the server's stderr says were not found. */
function missingPaths(stderr: string): string[] {
  const out: string[] = [];
  for (const m of stderr.matchAll(MISSING_FILE)) {
    const path = m[1] ?? m[2] ?? m[3];
    if (path && isAbsolute(path) && !out.includes(path)) out.push(path);
  }
  return out;
}
