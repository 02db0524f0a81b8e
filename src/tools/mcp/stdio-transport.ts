/**
 * The MCP stdio transport over a process the sandbox started. The SDK's own StdioClientTransport
 * spawns its process itself (unconfined); this one is handed a ConfinedProcess and speaks through
 * its pipes with the SDK's own framing (`ReadBuffer`, `serializeMessage`: newline-delimited
 * JSON-RPC), so nothing of the protocol is written here. Closing ends stdin, then SIGTERM to the
 * process group, then SIGKILL to everything the process started.
 */
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ConfinedProcess, ExitStatus } from '../../sandbox/types.js';
import { AgentError } from '../../common/errors.js';

/** The last this many bytes of a server's stderr are kept, to say why it died. */
const STDERR_TAIL_BYTES = 4096;
/** One message larger than this ends the connection (the SDK's default is 10 MB too). */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface ConfinedStdioTransport extends Transport {
  /** What the server wrote on stderr lately (its log, or why it failed). */
  stderrTail(): string;
  /** Settles when the process has exited (and what it wrote is read, or 200 ms later). */
  readonly exited: Promise<ExitStatus>;
  /** What the sandbox did not show of what the server asked to see (ConfinedProcess.notVisible). */
  readonly notVisible?: ConfinedProcess['notVisible'];
}

export function createConfinedStdioTransport(
  proc: ConfinedProcess,
  o: { graceMs?: number } = {},
): ConfinedStdioTransport {
  const buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  let stderr = '';
  let closed = false;
  const graceMs = o.graceMs ?? 2000;

  // The exit status can arrive before the last of stderr, which says why: wait a moment for it.
  const exited = proc.exited.then(async (status) => {
    await Promise.race([proc.closed, delay(200, undefined)]);
    return status;
  });
  const t: ConfinedStdioTransport = {
    exited,
    ...(proc.notVisible && { notVisible: proc.notVisible }),
    stderrTail: () => stderr,
    async start() {
      proc.stdout.on('data', (chunk: Buffer) => {
        try {
          buffer.append(chunk);
        } catch (e) {
          // A message over the limit: nothing after it can be framed. The connection ends.
          t.onerror?.(e as Error);
          void t.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (e) {
            // A line that is not JSON-RPC (a server logging to stdout): reported, skipped.
            t.onerror?.(e as Error);
            continue;
          }
          if (message === null) break;
          t.onmessage?.(message);
        }
      });
      proc.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
      proc.stdout.on('error', (e) => t.onerror?.(e));
      proc.stdin?.on('error', (e) => t.onerror?.(e));
      void proc.closed.then(() => finish());
    },
    async send(message) {
      const stdin = proc.stdin;
      if (closed || !stdin || stdin.destroyed) throw new AgentError('general', 'the MCP server is not running');
      const json = serializeMessage(message);
      if (!stdin.write(json)) await new Promise<void>((resolve) => stdin.once('drain', resolve));
    },
    async close() {
      if (!closed) {
        proc.stdin?.end();
        const exited = await Promise.race([proc.exited.then(() => true), delay(graceMs, false)]);
        if (!exited) {
          proc.terminate();
          if (!(await Promise.race([proc.exited.then(() => true), delay(graceMs, false)]))) proc.kill();
        }
        // Whatever the server started is gone with it (the sandbox's PID namespace; the group otherwise).
        proc.kill();
      }
      await proc.closed;
      finish();
    },
  };
  function finish() {
    if (closed) return;
    closed = true;
    buffer.clear();
    t.onclose?.();
  }
  return t;
}

const delay = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms).unref());
