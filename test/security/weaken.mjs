#!/usr/bin/env node
// A copy of the built action with named defences switched off, to show that each security test can
// fail: a test that stays green against the copy without the defence it guards proves nothing.
//
//   AGENT_ACTION_PLAIN_BUILD=1 npm run build             # unminified: the texts below are in it
//   node test/security/weaken.mjs /tmp/weak sandbox      # -> /tmp/weak/dist/index.js
//   E2E_ACTION_BUNDLE=/tmp/weak/dist/index.js npx vitest run test/security/git-config-exec.test.ts
//
// Each defence is an early return (or one changed line) in a function of dist/index.js (or a rule
// of the shipped policies/), found by its exact text; a text that is not found stops the script,
// so a rename cannot weaken nothing.
// The copy carries package.json and policies/ beside dist/, as the bundle looks for them.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** defence -> [exact text, replacement, file (default dist/index.js)] */
const DEFENCES = {
  // The OS sandbox: every mode behaves as `sandbox: off`.
  sandbox: [["if (o.mode === 'off')", 'if (true)']],
  // The action's hardened git: no command-scope overrides, no driver neutralizing.
  'git-hardening': [
    ['const config = [...INERT_CONFIG, ...(o.config ?? [])];', 'const config = [...(o.config ?? [])];'],
    ['function neutralizersFor(entries) {', 'function neutralizersFor(entries) { return [];'],
  ],
  // Redirections writing outside the workspace or into .git/.github/.gemini, or to a run-time target.
  'redirect-targets': [['function whyWriteRefused(path, place, changesDirectory) {', 'function whyWriteRefused(path, place, changesDirectory) { return undefined;']],
  // A redirection writing a build file is asked about like an edit of it.
  'redirect-build-files': [['function buildFileWriteUnits(split) {', 'function buildFileWriteUnits(split) { return [];']],
  // The file tools' refusal of .git/.
  'git-dir-gate': [['function touchesGitDir(rel) {', 'function touchesGitDir(rel) { return false;']],
  // The sandbox's credential-free copy of .git/config.
  'git-config-copy': [['function sanitizeGitConfig(text) {', 'function sanitizeGitConfig(text) { return { text, changed: 0 };']],
  // Secrets removed from process.env at start, and from each command's environment.
  'env-secrets': [
    ['function dropSecretsFromEnv(env, secrets) {', 'function dropSecretsFromEnv(env, secrets) { return [];'],
    ['function scrubEnv(base, secrets) {', 'function scrubEnv(base, secrets) { return Object.fromEntries(Object.entries(base).filter((e) => e[1] !== undefined));'],
  ],
  // Only the command's environment scrubber (process.env is still cleaned at start).
  'scrub-env': [['function scrubEnv(base, secrets) {', 'function scrubEnv(base, secrets) { return Object.fromEntries(Object.entries(base).filter((e) => e[1] !== undefined));']],
  // The runner's files and variables hidden from sandboxed commands.
  'runner-paths': [
    ['async function readHiddenEntries(paths) {', 'async function readHiddenEntries(paths) { return [];'],
    ['function withoutRunnerVariables(env) {', 'function withoutRunnerVariables(env) { return { ...env };'],
  ],
  // Inert publishing (mentions, markers), of bodies and of one-line texts (titles).
  inert: [
    ['function makeInert(text, budget) {', 'function makeInert(text, budget) { return text;'],
    ['const makeInertLine = (text) =>', 'const makeInertLine = (text) => text; const makeInertLineUnused = (text) =>'],
  ],
  // Session signatures: any document verifies.
  'session-signature': [['function verifySession(body, signature, key) {', 'function verifySession(body, signature, key) { return { ok: true };']],
  // The push remote read at the start: network commands go to `origin` as .git/config now says.
  'push-remote': [
    ['finalArgs = args.map((a) => (a === GIT_REMOTE ? name : a));', "finalArgs = args.map((a) => (a === GIT_REMOTE ? 'origin' : a));"],
    ['function assertNotRewritten(url, entries) {', 'function assertNotRewritten(url, entries) { return;'],
    ['function assertNoRemoteCommands(entries) {', 'function assertNoRemoteCommands(entries) { return;'],
  ],
  // The file tools' real-path check (symlinks out of the workspace are followed).
  'file-tool-gate': [['if (!workspace_isInside(root, real)) {', 'if (false) {']],
  // GitHub's body limit.
  'body-cap': [['function capBody(text) {', 'function capBody(text) { return text;']],
  // The session's binding to the question: its thread, the question's nonce and comment, the calls digest.
  'session-binding': [
    ['if (!sameRepository(doc, ctx) || doc.thread.number !== thread.number) {', 'if (false) {'],
    ['if (r.nonce !== question.nonce || r.commentId !== question.id) {', 'if (false) {'],
    ['if (question.calls !== callsDigestOf(doc.pending)) {', 'if (false) {'],
  ],
  // The shipped rule that keeps the edit tools out of .gemini/policies/.
  'policy-file-rule': [['[^"]*\\.gemini[\\\\/]+policies[\\\\/"]\'', "never-matches'", 'policies/edits.toml']],
  // What the job log shows: a build that prints the model's closing words, workflow commands and all.
  'log-model-text': [['function summaryOf(o) {', "function summaryOf(o) { if (o.status === 'success') process.stdout.write(`${o.finalText}\\n`);"]],
  // Invisible and direction characters in a question.
  'reveal-hidden': [['function revealHidden(text) {', 'function revealHidden(text) { return { text, count: 0 };']],
  // The splitter's fail-closed rule: what it cannot account for may be allowed by a rule's text.
  'fail-closed': [['function decideUnaccounted(c, split, whole) {', 'function decideUnaccounted(c, split, whole) { return decideWhole(c.rules, c.setting.context, whole, c.mode);']],
  // Hidden markers on inline review comments (a PAT's comment must not become a command).
  'review-comment-marker': [['function markedInline(comments) {', 'function markedInline(comments) { return comments;']],
  // The runner's own files under a bound folder (a self-hosted runner in /opt).
  'runner-install': [['function runnerInstallSecrets(execPath) {', 'function runnerInstallSecrets(execPath) { return [];']],
  // Hidden HTML elements of untrusted text (the tokenizer still reads tags: only the hiding test goes).
  'hidden-html': [['function hides(t) {', 'function hides(t) { return false;']],
  // "Is this ours": every comment's author counts as the action's own account (triage markers, questions, the ledger).
  // Sessions move forward only: every version, however old, is accepted.
  'session-forward': [['function checkForward(ledger, doc) {', 'function checkForward(ledger, doc) { return { ok: true };']],
  // The CLI's folder trust: every folder is trusted, a restored work tree's .gemini/ included.
  'folder-trust': [['function readFolderTrust(root, env) {', 'function readFolderTrust(root, env) { return { trusted: true };']],
  'own-marker': [['function isOurs(author, own) {', 'function isOurs(author, own) { return true;']],
};

const [out, ...names] = process.argv.slice(2);
if (!out || names.length === 0 || names.some((n) => !DEFENCES[n])) {
  console.error(`usage: node test/security/weaken.mjs <out-dir> <defence>...\ndefences: ${Object.keys(DEFENCES).join(', ')}`);
  process.exit(2);
}
const dir = resolve(out);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
cpSync(join(root, 'policies'), join(dir, 'policies'), { recursive: true });
cpSync(join(root, 'package.json'), join(dir, 'package.json'));
// Without a target: every file of dist/ that holds the text, dist/index.js and its chunks (named
// by number: code loaded on first use lives in one, and ncc may copy a module into two).
const chunks = readdirSync(join(dir, 'dist')).filter((f) => /^\d+\.index\.js$/.test(f)).map((f) => `dist/${f}`);
for (const name of names) {
  for (const [from, to, target] of DEFENCES[name]) {
    const holders = (target ? [target] : ['dist/index.js', ...chunks]).filter((t) => readFileSync(join(dir, t), 'utf8').includes(from));
    if (holders.length === 0) {
      console.error(`weaken ${name}: ${JSON.stringify(from)} is not in ${target ?? 'dist/'} (rebuilt? renamed?)`);
      process.exit(1);
    }
    for (const t of holders) {
      const file = join(dir, t);
      const code = readFileSync(file, 'utf8');
      const at = code.indexOf(from);
      writeFileSync(file, code.slice(0, at) + to + code.slice(at + from.length));
    }
  }
}
console.log(join(dir, 'dist/index.js'));
