/**
 * A git smart-HTTP server on 127.0.0.1: git's own `git http-backend` (CGI) behind a small node
 * server that demands one `Authorization` header, as GitHub does for pushes with a token. Every
 * request's method, path and Authorization header is recorded for assertions.
 *
 * Also a recording HTTP proxy: it answers 502 to everything and remembers what it was sent, so a test
 * can show that a request (and its headers) did or did not go through a proxy.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';

interface RecordedRequest {
  method: string;
  url: string;
  authorization?: string;
}

export interface GitHttpServer {
  /** http://127.0.0.1:<port>/ ; a repository `name.git` under the root is at `${url}name.git`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** The credentials of a Basic Authorization header (the scheme is case-insensitive, RFC 7235), or undefined. */
export const basicCredentials = (header: string | undefined): string | undefined =>
  /^basic\s+(\S+)$/i.exec(header ?? '')?.[1];

/** Serves the bare repositories under `root`; only Basic `x-access-token:<token>` gets in. */
export async function startGitHttpServer(o: { root: string; token: string }): Promise<GitHttpServer> {
  const expected = Buffer.from(`x-access-token:${o.token}`).toString('base64');
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const authorization = req.headers.authorization;
    requests.push({ method: req.method ?? '', url: req.url ?? '', ...(authorization ? { authorization } : {}) });
    if (basicCredentials(authorization) !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      res.end('authentication required\n');
      return;
    }
    serveCgi(req, o.root, (status, headers, body) => {
      res.writeHead(status, headers);
      body.pipe(res);
    });
  });
  return listen(server, requests);
}

/** Runs git-http-backend for one request and hands back its status, headers and body stream. */
function serveCgi(
  req: IncomingMessage,
  root: string,
  reply: (status: number, headers: Record<string, string>, body: NodeJS.ReadableStream) => void,
): void {
  const u = new URL(req.url ?? '/', 'http://localhost');
  const child = spawn(HTTP_BACKEND, [], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      // receive-pack is served only to an authenticated user.
      REMOTE_USER: 'x-access-token',
      REMOTE_ADDR: '127.0.0.1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(u.pathname),
      QUERY_STRING: u.search.replace(/^\?/, ''),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let replied = false;
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    child.stdout.off('data', onData);
    child.stdout.pause();
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else headers[name] = value;
    }
    const rest = head.subarray(end + 4);
    if (rest.length) child.stdout.unshift(rest);
    replied = true;
    reply(status, headers, child.stdout);
  };
  child.stdout.on('data', onData);
  child.on('close', () => {
    if (!replied) reply(500, { 'Content-Type': 'text/plain' }, emptyStream());
  });
}

function emptyStream(): NodeJS.ReadableStream {
  const s = new PassThrough();
  s.end();
  return s;
}

export interface RecordingProxy {
  url: string;
  requests: Array<{ method: string; url: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

/** A proxy that forwards nothing: it records each request (and its headers) and answers 502. */
export async function startRecordingProxy(): Promise<RecordingProxy> {
  const requests: RecordingProxy['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.writeHead(502);
    res.end();
  });
  server.on('connect', (req, socket) => {
    requests.push({ method: 'CONNECT', url: req.url ?? '', headers: req.headers });
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  const s = await listen(server, []);
  return { url: s.url, requests, close: s.close };
}

function listen(server: Server, requests: RecordedRequest[]): Promise<GitHttpServer> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
