/**
 * The CLI bundle's entry, imported by package.json's `bin` (dist/cli/index.js, written by
 * scripts/build.mjs, which turns on the compile cache first). The only place that touches process
 * globals.
 */
import { fstatSync, statSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { runCli } from './run.js';

/**
 * Piped input is part of the prompt, as with `gemini -p`. With -p given, a pipe that stays silent
 * (a parent that never closes it) must not hang the run: give up after a short quiet spell.
 */
async function readPipedStdin(hasPromptFlag: boolean): Promise<string | undefined> {
  if (!hasInputToRead(0)) return undefined;
  stdinOpened = true;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      process.stdin.destroy();
      resolve(chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined);
    };
    const arm = () => {
      if (!hasPromptFlag) return;
      clearTimeout(timer);
      timer = setTimeout(done, chunks.length ? 2000 : 300);
    };
    process.stdin.on('data', (c: Buffer) => (chunks.push(c), arm()));
    process.stdin.on('end', done);
    process.stdin.on('error', done);
    arm();
  });
}

/**
 * Whether standard input may carry a prompt: not a terminal, and not /dev/null (a CI step, a child
 * started with stdio 'ignore'). Asked of the descriptor, not of process.stdin: making that stream
 * (a file stream for /dev/null, a TTY stream, and the modules behind them) only to learn there is
 * nothing to read would be on the way to the first request. Any other file, pipe or device is read.
 */
function hasInputToRead(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return true;
    if (st.rdev === statSync('/dev/null').rdev) return false;
    return !process.getBuiltinModule('node:tty').isatty(fd);
  } catch {
    return true;
  }
}

let stdinOpened = false;
let stdoutReady = false;
/**
 * process.stdout, made when first written to (Node makes it on first use: a stream, and the modules
 * behind it, which a run needs only for its output, after the first request).
 */
function stdout(): NodeJS.WriteStream {
  if (!stdoutReady) {
    stdoutReady = true;
    process.stdout.on('error', onStdoutError);
  }
  return process.stdout;
}

/** The ACP server speaks on standard input and output. */
function acpStdio(): { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> } {
  stdinOpened = true;
  return { input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>, output: Writable.toWeb(stdout()) };
}

const controller = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  // First Ctrl-C cancels cleanly (the loop stops, exit 130); a second one leaves at once.
  if (++interrupts > 1) process.exit(130);
  controller.abort(new Error('cancelled by SIGINT'));
});
process.on('SIGTERM', () => controller.abort(new Error('cancelled by SIGTERM')));
const argv = process.argv.slice(2);
const acp = argv.includes('--acp') || argv.includes('--experimental-acp');
// A reader that stops early (`agent-action -p ... | head -1`) is not an error: leave quietly, as Gemini CLI does.
// An ACP client that went away is a closed connection: the server stops its runs and saves first.
function onStdoutError(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
  if (acp) controller.abort(new Error('the client closed the connection'));
  else process.exit(0);
}

// Standard input is a prompt only for a run: the ACP server speaks on it, and listing or managing
// sessions reads nothing.
const NO_STDIN = ['--help', '-h', '--version', '--acp', '--experimental-acp', '--list-sessions', '--delete-session'];
const wantsStdin =
  !argv.some((a) => NO_STDIN.includes(a.split('=')[0]!)) &&
  !['policy', 'session', 'sandbox', 'mcp'].includes(argv[0] ?? '');
const hasPromptFlag = argv.some((a) => a === '-p' || a === '--prompt' || a.startsWith('--prompt='));
const stdin = wantsStdin ? await readPipedStdin(hasPromptFlag) : undefined;
const code = await runCli({
  argv,
  env: process.env,
  cwd: process.cwd(),
  stdin,
  signal: controller.signal,
  io: { stdout: (t) => stdout().write(t), stderr: (t) => process.stderr.write(t) },
  ...(acp ? { stdio: acpStdio() } : {}),
});
process.exitCode = code;
if (stdinOpened) process.stdin.unref?.();
// The ACP server is done when its client left: keep-alive sockets to the model must not keep it running.
if (acp) process.exit(code);
