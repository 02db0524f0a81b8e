/**
 * One way to run git for session/: bytes in, bytes out (patches and session documents are not
 * always UTF-8), never a prompt for credentials, and a fixed identity where a commit is written so
 * that runners without a global git identity work.
 */
import { spawn } from 'node:child_process';
import { AgentError } from '../common/errors.js';

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitOptions {
  input?: Buffer | string;
  env?: Record<string, string | undefined>;
}

/** The identity session commits are written with: they are machine records, not authored work. */
export const SESSION_IDENTITY = {
  GIT_AUTHOR_NAME: 'agent-action',
  GIT_AUTHOR_EMAIL: 'agent-action@users.noreply.github.com',
  GIT_COMMITTER_NAME: 'agent-action',
  GIT_COMMITTER_EMAIL: 'agent-action@users.noreply.github.com',
};

/** Runs git; resolves with the exit code (never rejects on a non-zero exit). */
export function runGit(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
    // A git that exits before reading stdin must not crash us with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs git and throws an AgentError naming the command when it fails; returns trimmed stdout. */
export async function assertGit(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<string> {
  const r = await runGit(cwd, args, opts);
  if (r.code !== 0) {
    throw new AgentError('general', `git ${args.slice(0, 2).join(' ')} failed (exit ${r.code}): ${r.stderr.trim() || '(no output)'}`);
  }
  return r.stdout.toString('utf8').trim();
}
