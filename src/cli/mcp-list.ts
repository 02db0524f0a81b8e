/**
 * `agent-action mcp list`: every MCP server the settings configure, started as a run would start
 * it (in the sandbox, with the same environment), its status (Gemini CLI's `gemini mcp list`
 * line: ✓ connected, ✗ disconnected with why, ⛔ blocked) and the tools it registers under their
 * `mcp_<server>_<tool>` names. Every server is stopped before it returns. Exit 0 when it could
 * read the settings (whatever the servers did), 42 for bad flags.
 */
import { realpathSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AgentError, messageOf } from '../common/errors.js';
import { createSandbox } from '../sandbox/sandbox.js';
import type { SandboxMode } from '../sandbox/types.js';
import { createMcpManager, type McpServerStatus } from '../tools/mcp/manager.js';
import { commandEnvOf } from '../sandbox/command-env.js';
import { readCliPassEnv } from './command-env.js';
import { parseNameList } from './args.js';
import { readCliExtensions } from './cli-extensions.js';
import { readFolderTrust, untrustedNote } from './folder-trust.js';
import type { Io } from './output.js';

const USAGE = `usage: agent-action mcp list [--cwd DIR] [--json] [--allowed-mcp-server-names NAMES]... [--sandbox required|auto|off] [--sandbox-network]

Starts each MCP server of ~/.gemini/settings.json and .gemini/settings.json as a run would (stdio
servers in the sandbox), prints its status and tools, and stops it.`;

export interface McpListEnv {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  io: Io;
}

export async function runMcpList(argv: readonly string[], c: McpListEnv): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        cwd: { type: 'string' },
        json: { type: 'boolean' },
        'allowed-mcp-server-names': { type: 'string', multiple: true },
        sandbox: { type: 'string' },
        'sandbox-network': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
    if (flags.sandbox !== undefined && !['required', 'auto', 'off'].includes(flags.sandbox))
      throw new AgentError(
        'input',
        `--sandbox "${flags.sandbox}" is not valid: it expects one of required, auto, off`,
        { site: { input: '--sandbox' } },
      );
  } catch (e) {
    c.io.stderr(`agent-action mcp list: ${messageOf(e)}\n${USAGE}\n`);
    return 42;
  }
  if (flags.help) return (c.io.stdout(`${USAGE}\n`), 0);
  let root: string;
  try {
    root = realpathSync(flags.cwd ?? c.cwd);
    if (!statSync(root).isDirectory()) throw new AgentError('input', 'not a directory', { site: { input: '--cwd' } });
  } catch (e) {
    c.io.stderr(`agent-action mcp list: --cwd "${flags.cwd ?? c.cwd}": ${messageOf(e)}\n`);
    return 42;
  }
  const secrets = [c.env.GEMINI_API_KEY, c.env.GOOGLE_API_KEY, c.env.GITHUB_TOKEN, c.env.GH_TOKEN].filter(
    (s): s is string => !!s,
  );
  const allowed = parseNameList(flags['allowed-mcp-server-names']);
  const trust = readFolderTrust(root, c.env);
  const note = untrustedNote(root, trust);
  if (note) c.io.stderr(`Warning: ${note}\n`);
  const ext = await readCliExtensions({
    root,
    trusted: trust.trusted,
    env: c.env,
    secrets,
    ...(allowed && { allowedNames: allowed }),
  });
  for (const w of ext.warnings) c.io.stderr(`Warning: ${w}\n`);
  if (ext.servers.length === 0) {
    c.io.stdout(flags.json ? '[]\n' : 'No MCP servers configured.\n');
    return 0;
  }
  const network = flags['sandbox-network'] ?? false;
  const sandbox = createSandbox({ mode: (flags.sandbox ?? 'auto') as SandboxMode, network, hostEnv: c.env });
  const status = await sandbox.status();
  if (status.kind === 'unconfined' && flags.sandbox !== 'off') c.io.stderr(`Warning: ${status.warning}\n`);
  const manager = createMcpManager({
    servers: ext.servers,
    selection: ext.selection,
    sandbox,
    workspace: root,
    env: { ...commandEnvOf(c.env, secrets), ...(await readCliPassEnv(c.env)).env },
    secrets,
    network,
  });
  try {
    await manager.start();
    const list = manager.status();
    c.io.stdout(flags.json ? `${JSON.stringify(list, null, 2)}\n` : formatMcpList(list));
  } finally {
    await manager.stop();
  }
  return 0;
}

const MARK: Record<McpServerStatus['state'], string> = {
  ready: '✓',
  blocked: '⛔',
  failed: '✗',
  exited: '✗',
  not_started: '○',
  starting: '…',
  stopped: '○',
};
const WORD: Record<McpServerStatus['state'], string> = {
  ready: 'Connected',
  blocked: 'Blocked',
  failed: 'Disconnected',
  exited: 'Disconnected',
  not_started: 'Not started',
  starting: 'Connecting',
  stopped: 'Stopped',
};

/** Pure: Gemini CLI's list lines, each server's tools under it. */
function formatMcpList(list: readonly McpServerStatus[]): string {
  const lines = ['Configured MCP servers:', ''];
  for (const s of list) {
    const reason = s.reason?.replace(/\s*\n\s*/g, ' ').slice(0, 300);
    lines.push(`${MARK[s.state]} ${s.name}: ${s.target} - ${WORD[s.state]}${reason ? ` (${reason})` : ''}`);
    for (const t of s.tools)
      lines.push(`    ${t.name}${t.description ? `: ${t.description.split('\n')[0].slice(0, 100)}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
