/**
 * What the sandbox can do on this machine, verified rather than assumed: one process runs in it
 * against a scratch workspace laid out like a runner's checkout (a .git/config with checkout's
 * credential header, .github/, no .gemini/, a runner temp folder with its file commands), tries
 * what a hostile command would, and reports each finding. `agent-action sandbox check` prints it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeBounds } from './bounds.js';
import { isUnder } from './bwrap-args.js';
import { readSystemEntries, readToolchainDirs } from './layout.js';
import { createSandbox, homeFor } from './sandbox.js';
import type { Probe } from './probe.js';
import type { SandboxStatus } from './types.js';

interface CheckItem {
  name: string;
  ok: boolean;
  detail: string;
}

export interface CheckReport {
  usable: boolean;
  status: SandboxStatus;
  network: boolean;
  items: CheckItem[];
  /** PATH folders a command will not see (toolchains under $HOME, say). */
  hiddenPathEntries: string[];
}

export interface CheckOptions {
  /** What commands would get (already scrubbed by the caller); PATH and HOME matter. */
  env: Readonly<Record<string, string>>;
  /** Values that must not be visible inside: this process's secrets and the caller's canaries. */
  secretValues: readonly string[];
  network?: boolean;
  bwrap?: string;
  probe?: Probe;
}

const NAMESPACES = ['user', 'mnt', 'pid', 'ipc', 'uts', 'net'] as const;
/** actions/checkout's persisted header, with a harmless token. */
const GIT_CONFIG =
  '[core]\n\tbare = false\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Y2hlY2s=\n';

export async function runSandboxCheck(o: CheckOptions): Promise<CheckReport> {
  const network = o.network ?? false;
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agent-action-check-')));
  const ws = join(root, 'workspace');
  const runnerTemp = join(ws, '_runner_temp');
  const hostEnv = { RUNNER_TEMP: runnerTemp, GITHUB_ENV: join(runnerTemp, 'env') };
  // No remedy: the check reports the machine as it is, it does not change it.
  const sandbox = createSandbox({ mode: 'required', network, hostEnv, bwrap: o.bwrap, probe: o.probe });
  const status = await sandbox.status();
  const items: CheckItem[] = [];
  if (status.kind !== 'sandboxed') {
    // Stryker disable next-line ConditionalExpression: mode 'required' is sandboxed or refused, never direct
    const detail = status.kind === 'refused' ? `${status.reason}. To fix: ${status.fix}` : status.warning;
    items.push({ name: 'bubblewrap', ok: false, detail });
    await rm(root, { recursive: true });
    return { usable: false, status, network, items, hiddenPathEntries: [] };
  }
  items.push({ name: 'bubblewrap', ok: true, detail: `${status.bwrap} ${status.version}` });
  const { server, connections } = await listenLoopback();
  const marker = `1000.${randomBytes(4).readUInt32BE(0)}`;
  try {
    await mkdir(join(ws, '.git'), { recursive: true });
    await writeFile(join(ws, '.git/config'), GIT_CONFIG);
    await mkdir(join(ws, '.github/workflows'), { recursive: true });
    await mkdir(runnerTemp); // in the workspace, made with .git
    await writeFile(hostEnv.GITHUB_ENV, '');
    const port = (server.address() as { port: number }).port;
    const p = await sandbox.spawn({
      argv: ['bash', '-c', probeScript(port, hostEnv.GITHUB_ENV, marker)],
      workspace: ws,
      cwd: ws,
      env: o.env,
    });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.stderr.resume();
    await p.closed;
    const seen = parseLines(out);
    items.push(...(await namespaceItems(seen, network)));
    items.push(...(await fileItems(seen, ws, hostEnv.GITHUB_ENV)));
    items.push(
      ...processItems(seen, out, {
        secrets: o.secretValues,
        escaped: await processAlive(marker),
        connections: connections(),
        network,
      }),
    );
    items.push(boundsItem(seen, status));
  } finally {
    server.close();
    await rm(root, { recursive: true });
  }
  return {
    usable: items.every((i) => i.ok),
    status,
    network,
    items,
    hiddenPathEntries: await readHiddenPathEntries(o.env.PATH, homeFor(o.env.HOME, ws)),
  };
}

/** The commands a hostile process would try; each prints `key=value` for the parent to judge. */
function probeScript(port: number, githubEnv: string, marker: string): string {
  const ns = NAMESPACES.map((n) => `echo ns_${n}=$(readlink /proc/self/ns/${n})`).join('; ');
  return [
    ns,
    `echo cap_eff=$(awk '/^CapEff/ {print $2}' /proc/self/status)`,
    `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo net=open || echo net=closed`,
    `(echo '[core]' >> .git/config) 2>/dev/null && echo git_write=yes || echo git_write=no`,
    `grep -qi extraheader .git/config && echo git_credential=visible || echo git_credential=absent`,
    `(mkdir -p .gemini/policies && echo x > .gemini/policies/x.toml) 2>/dev/null && echo gemini_write=yes || echo gemini_write=no`,
    `(echo x > .github/workflows/x.yml) 2>/dev/null && echo github_write=yes || echo github_write=no`,
    `(mount -o remount,rw,bind .git) 2>/dev/null && echo remount=yes || echo remount=no`,
    `(echo BASH_ENV=/tmp/x >> '${githubEnv}') 2>/dev/null && echo runner_write=yes || echo runner_write=no`,
    `echo home_entries=$(ls -A "$HOME" 2>/dev/null | wc -l)`,
    `echo limits=$(ulimit -u),$(ulimit -v),$(ulimit -f)`,
    `echo proc_pids=$(ls /proc | grep -c '^[0-9]*$')`,
    `echo host_pid=$(test -e /proc/${process.pid}/environ && echo visible || echo absent)`,
    `echo ok > written.txt`,
    `setsid sh -c 'exec sleep ${marker}' >/dev/null 2>&1 &`,
    `echo ENVIRON_BEGIN; env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; echo; echo ENVIRON_END`,
  ].join('\n');
}

/** `key=value` lines; the first of a key counts, so a variable in the environment dump below cannot override one. */
function parseLines(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of out.split('\n')) {
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    // Stryker disable next-line EqualityOperator: a line starting with '=' has the key '', which nothing looks up
    if (eq > 0 && !m.has(key)) m.set(key, line.slice(eq + 1).trim());
  }
  return m;
}

async function namespaceItems(seen: Map<string, string>, network: boolean): Promise<CheckItem[]> {
  const items: CheckItem[] = [];
  for (const n of NAMESPACES) {
    const host = await readlink(`/proc/self/ns/${n}`).catch(() => undefined);
    const inside = seen.get(`ns_${n}`) ?? '';
    const fresh = inside !== '' && inside !== host;
    if (n === 'net' && network)
      items.push({ name: 'network namespace', ok: true, detail: 'shared with the host: the network is allowed' });
    else
      items.push({
        name: `${n} namespace`,
        ok: fresh,
        detail: fresh ? `new (${inside})` : `not isolated (${inside || 'unreadable'})`,
      });
  }
  const caps = seen.get('cap_eff') ?? '';
  items.push({
    name: 'capabilities',
    ok: /^0+$/.test(caps),
    detail: /^0+$/.test(caps) ? 'none' : `effective set ${caps || 'unknown'}`,
  });
  items.push({
    name: 'remount read-only binds',
    ok: seen.get('remount') === 'no',
    detail: seen.get('remount') === 'no' ? 'refused' : 'a command could make .git writable',
  });
  return items;
}

async function fileItems(seen: Map<string, string>, ws: string, githubEnv: string): Promise<CheckItem[]> {
  const config = await readFile(join(ws, '.git/config'), 'utf8');
  const runnerFile = await readFile(githubEnv, 'utf8');
  const written = await readFile(join(ws, 'written.txt'), 'utf8').catch(() => undefined);
  const geminiLeft = await readdir(join(ws, '.gemini')).then(
    () => true,
    // Stryker disable next-line ArrowFunction: undefined is as falsy as false here
    () => false,
  );
  const no = (k: string) => seen.get(k) === 'no';
  return [
    {
      name: 'workspace',
      ok: written === 'ok\n',
      detail: written === 'ok\n' ? 'writable, changes persist' : 'a write inside did not reach the workspace',
    },
    {
      name: '.git read-only',
      ok: no('git_write') && config === GIT_CONFIG,
      detail: no('git_write') ? 'writing .git/config failed' : 'a command could write .git/config',
    },
    {
      name: '.git/config credentials',
      ok: seen.get('git_credential') === 'absent',
      detail:
        seen.get('git_credential') === 'absent'
          ? 'extraheader removed from the copy inside'
          : "actions/checkout's token header is visible inside",
    },
    {
      name: '.gemini and .github read-only',
      ok: no('gemini_write') && no('github_write') && !geminiLeft,
      detail:
        no('gemini_write') && no('github_write')
          ? 'writing policies and workflows failed (an absent .gemini too)'
          : 'a command could write .gemini/ or .github/',
    },
    {
      name: 'runner file commands',
      ok: no('runner_write') && runnerFile === '',
      detail: no('runner_write') ? 'GITHUB_ENV and RUNNER_TEMP unreachable' : 'a command could append to GITHUB_ENV',
    },
    {
      name: 'home',
      ok: seen.get('home_entries') === '0',
      detail: seen.get('home_entries') === '0' ? 'empty' : `${seen.get('home_entries') ?? '?'} entries visible`,
    },
  ];
}

/** What the probe saw of its own process: its environment, whether it got out, its sockets. */
interface ProcessProbe {
  secrets: readonly string[];
  escaped: boolean;
  connections: number;
  network: boolean;
}

function processItems(
  seen: Map<string, string>,
  out: string,
  { secrets, escaped, connections, network }: ProcessProbe,
): CheckItem[] {
  const environ = out.slice(out.indexOf('ENVIRON_BEGIN'), out.indexOf('ENVIRON_END'));
  const leaked = secrets.filter((s) => s.length >= 4 && environ.includes(s)).length;
  const pids = Number(seen.get('proc_pids') ?? 'NaN');
  const freshProc = seen.get('host_pid') === 'absent' && pids > 0 && pids < 10;
  const items: CheckItem[] = [
    {
      name: 'fresh /proc',
      ok: freshProc,
      detail: freshProc
        ? `${pids} processes visible; this process's environ is not`
        : `host processes visible (${pids} pids, own pid ${seen.get('host_pid') ?? '?'})`,
    },
    {
      name: 'secrets',
      ok: leaked === 0,
      detail:
        leaked === 0
          ? `none of ${secrets.length} secret values visible (env, /proc/*/environ)`
          : `${leaked} of ${secrets.length} secret values visible inside`,
    },
    {
      name: 'kill on exit',
      ok: !escaped,
      detail: escaped
        ? 'a setsid background process outlived the call'
        : 'a setsid background process died with the call',
    },
  ];
  if (!network) {
    const closed = seen.get('net') === 'closed' && connections === 0;
    items.push({
      name: 'network off',
      ok: closed,
      detail: closed
        ? 'connecting to a loopback server of the host failed'
        : 'a command reached a loopback server of the host',
    });
  }
  return items;
}

/** The resource limits a command has inside (processes, address space, file size): set, or why not. */
function boundsItem(seen: Map<string, string>, status: Extract<SandboxStatus, { kind: 'sandboxed' }>): CheckItem {
  const set = (seen.get('limits') ?? '').split(',').every((v) => /^\d+$/.test(v));
  if (!set)
    return {
      name: 'bounds',
      ok: false,
      detail:
        status.rlimitsMissing ?? `no process, memory or file-size limit inside (ulimit: ${seen.get('limits') ?? '?'})`,
    };
  return { name: 'bounds', ok: true, detail: status.bounds ? describeBounds(status.bounds) : 'set' };
}

/** PATH folders that are neither under a bound system folder nor bound as a toolchain. */
async function readHiddenPathEntries(pathVar: string | undefined, home: string): Promise<string[]> {
  const bound = (await readSystemEntries()).filter((e) => e.kind !== 'symlink').map((e) => e.path);
  // Stryker disable next-line ArrayDeclaration: a relative hidden path is under no absolute folder, so it hides nothing as none does
  const toolchains = await readToolchainDirs(pathVar, { bound, home, hidden: [], workspace: '/nonexistent' });
  const seen = [...bound, ...toolchains];
  // Stryker disable next-line StringLiteral: any stand-in for an unset PATH is one relative entry, dropped by the filter
  const entries = (pathVar ?? '').split(':').filter((d) => d.startsWith('/'));
  const visible = await Promise.all(
    entries.map(async (d) => {
      const real = await realpath(d).catch(() => undefined);
      return real === undefined || seen.some((b) => isUnder(d, b) || isUnder(real, b)); // absent: nothing to miss
    }),
  );
  return [...new Set(entries.filter((_, i) => !visible[i]))];
}

/** Whether a process whose command line holds `marker` is alive (the sandbox should have ended it). */
export async function processAlive(marker: string): Promise<boolean> {
  // No /proc is an error, not "nothing alive": a check would pass that it could not make.
  for (const pid of await readdir('/proc')) {
    // Stryker disable next-line ConditionalExpression,Regex: the other entries are self and thread-self (this process, whose command line is not the marker) or are not processes (no cmdline file)
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`).catch(() => Buffer.alloc(0));
    if (cmd.includes(marker)) return true;
  }
  return false;
}

function listenLoopback(): Promise<{ server: Server; connections: () => number }> {
  return new Promise((resolve, reject) => {
    let connections = 0;
    const server = createServer((s) => {
      // Stryker disable next-line UpdateOperator: only zero or not zero is judged
      connections++;
      // Stryker disable next-line CallExpression: the peer is in the sandbox, which is gone (killed on exit) before the server closes, so the socket ends either way
      s.destroy();
    });
    // Stryker disable next-line StringLiteral,CallExpression: listening on port 0 of 127.0.0.1 does not fail, so there is no error to reject with
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, connections: () => connections }));
  });
}
