#!/usr/bin/env node
// A copy of the built action with named defences switched off, to show that each security test can
// fail: a test that stays green against the copy without the defence it guards proves nothing.
//
//   node test/security/weaken.mjs /tmp/weak sandbox      # -> /tmp/weak/dist/index.js
//   E2E_ACTION_BUNDLE=/tmp/weak/dist/index.js npx vitest run test/security/git-config-exec.test.ts
//
// The copy is built from the sources as dist/ is, but not minified (scripts/build.mjs --out DIR
// --no-minify), so every function keeps the text it has in src/ as ncc writes it. Each defence is an
// early return (or one changed line) of such a function, in whichever file of the copy holds it (the
// entry or a chunk), or a rule of the shipped policies (dist/policies/), found by its exact text; a text that is not
// found stops the script, so a rename cannot weaken nothing.
// The copy carries package.json beside dist/, and the build puts the policies in dist/policies/, as
// the bundle looks for them.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** defence -> [exact text (or a RegExp), replacement, file (default: the bundle's files, each where it holds the text)] */
const DEFENCES = {
  // The OS sandbox: every mode behaves as `sandbox: off`.
  sandbox: [["if (o.mode === 'off')", 'if (true)']],
  // The action's hardened git: no command-scope overrides, no driver neutralizing.
  'git-hardening': [
    ['const config = [...INERT_CONFIG, ...(o.config ?? [])];', 'const config = [...(o.config ?? [])];'],
    ['function neutralizersFor(entries) {', 'function neutralizersFor(entries) { return [];'],
  ],
  // Redirections writing outside the workspace or into .git/.github/.gemini, or to a run-time target.
  'redirect-targets': [
    [
      'function whyWriteRefused(path, place, changesDirectory) {',
      'function whyWriteRefused(path, place, changesDirectory) { return undefined;',
    ],
  ],
  // A redirection writing a build file is asked about like an edit of it.
  'redirect-build-files': [
    ['function buildFileWriteUnits(split) {', 'function buildFileWriteUnits(split) { return [];'],
  ],
  // The file tools' refusal of .git/.
  'git-dir-gate': [['function touchesGitDir(rel) {', 'function touchesGitDir(rel) { return false;']],
  // The sandbox's credential-free copy of .git/config.
  'git-config-copy': [
    ['function sanitizeGitConfig(text) {', 'function sanitizeGitConfig(text) { return { text, changed: 0 };'],
  ],
  // Secrets removed from process.env at start, and the allow-list of what a command's environment holds.
  'env-secrets': [
    ['function dropSecretsFromEnv(env, secrets) {', 'function dropSecretsFromEnv(env, secrets) { return [];'],
    [
      'function commandEnvOf(base, secrets) {',
      'function commandEnvOf(base, secrets) { return Object.fromEntries(Object.entries(base).filter((e) => e[1] !== undefined));',
    ],
  ],
  // Only the command environment's allow-list (process.env is still cleaned at start): every variable of the job reaches commands.
  'scrub-env': [
    [
      'function commandEnvOf(base, secrets) {',
      'function commandEnvOf(base, secrets) { return Object.fromEntries(Object.entries(base).filter((e) => e[1] !== undefined));',
    ],
  ],
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
  'session-signature': [
    [
      'function verifySession(body, signature, key) {',
      'function verifySession(body, signature, key) { return { ok: true };',
    ],
  ],
  // The push remote read at the start: network commands go to `origin` as .git/config now says.
  'push-remote': [
    [
      'finalArgs = args.map((a) => (a === GIT_REMOTE ? name : a));',
      "finalArgs = args.map((a) => (a === GIT_REMOTE ? 'origin' : a));",
    ],
    ['function assertNotRewritten(url, entries) {', 'function assertNotRewritten(url, entries) { return;'],
    ['function assertNoRemoteCommands(entries) {', 'function assertNoRemoteCommands(entries) { return;'],
  ],
  // The file tools' real-path check (symlinks out of the workspace are followed).
  'file-tool-gate': [[/if \(!\(0,\w+\/\* \.?isInside \*\/ ?\.\w+\)\(root, real\)\) \{/, 'if (false) {']],
  // GitHub's body limit.
  'body-cap': [['function capBody(text) {', 'function capBody(text) { return text;']],
  // The session's binding to the question: its thread, the question's nonce and comment, the calls digest.
  'session-binding': [
    ['if (!sameRepository(doc, ctx) || doc.thread.number !== thread.number) {', 'if (false) {'],
    ['if (r.nonce !== question.nonce || r.commentId !== question.id) {', 'if (false) {'],
    [/if \(question\.calls !== \(0,\w+\/\* \.?callsDigestOf \*\/ ?\.\w+\)\(doc\.pending\)\) \{/, 'if (false) {'],
  ],
  // The shipped rule that keeps the edit tools out of .gemini/policies/.
  'policy-file-rule': [['[^"]*\\.gemini[\\\\/]+policies[\\\\/"]\'', "never-matches'", 'dist/policies/edits.toml']],
  // What the job log shows: a build that prints the model's closing words, workflow commands and all.
  'log-model-text': [
    [
      'function summaryOf(o) {',
      "function summaryOf(o) { if (o.status === 'success') process.stdout.write(`${o.finalText}\\n`);",
    ],
  ],
  // Invisible and direction characters in a question.
  'reveal-hidden': [['function revealHidden(text) {', 'function revealHidden(text) { return { text, count: 0 };']],
  // The splitter's fail-closed rule: what it cannot account for may be allowed by a rule's text.
  'fail-closed': [
    [
      'function decideUnaccounted(c, split, whole) {',
      'function decideUnaccounted(c, split, whole) { return decideWhole(c.rules, c.setting.context, whole, c.mode);',
    ],
  ],
  // Hidden markers on inline review comments (a PAT's comment must not become a command).
  'review-comment-marker': [
    ['function markedInline(comments) {', 'function markedInline(comments) { return comments;'],
  ],
  // Comments (of the conversation and of a review thread) written or edited after the trigger reach the model.
  'comment-cutoff': [
    [
      'const cutoff = trigger ? Date.parse(trigger.createdAt) : Number.POSITIVE_INFINITY;',
      'const cutoff = Number.POSITIVE_INFINITY;',
    ],
  ],
  // The runner's own files under a bound folder (a self-hosted runner in /opt).
  'runner-install': [
    ['function runnerInstallSecrets(execPath) {', 'function runnerInstallSecrets(execPath) { return [];'],
  ],
  // The pull request's head fetched and checked out, whatever the workflow checked out (test/e2e/action-pull-tree.test.ts).
  'pull-head': [
    [
      'if (!target)\n        return {\n            head: checkedOut,',
      'if (true)\n        return {\n            head: checkedOut,',
    ],
  ],
  // What earlier steps of the job left in the work tree, kept out of the agent's commit.
  leftovers: [
    ['const leftovers = new Map((o.start?.leftovers ?? []).map((l) => [l.path, l]));', 'const leftovers = new Map();'],
  ],
  // The file tools' open-time check (test/security/open-time-race.test.ts): the descriptor's real path is not looked at.
  'open-time-check': [
    [
      'function assertOpenedInside(root, fd, o) {',
      'function assertOpenedInside(root, fd, o) { return openedPathOf(fd, o.openedAs) ?? o.openedAs;',
    ],
  ],
  // A file over GitHub's 100 MB limit or `max-file-size`, kept out of the agent's commit.
  'file-size': [['if (bytes !== undefined && bytes > limit)\n', 'if (false)\n']],
  // Hidden HTML elements of untrusted text (the tokenizer still reads tags: only the hiding test goes).
  'hidden-html': [['function hides(t) {', 'function hides(t) { return false;']],
  // Sessions move forward only: every version, however old, is accepted.
  'session-forward': [
    ['function checkForward(ledger, doc) {', 'function checkForward(ledger, doc) { return { ok: true };'],
  ],
  // The CLI's folder trust: every folder is trusted, a restored work tree's .gemini/ included.
  'folder-trust': [
    ['function readFolderTrust(root, env) {', 'function readFolderTrust(root, env) { return { trusted: true };'],
  ],
  // "Is this ours": every comment's author counts as the action's own account (triage markers, questions, the ledger).
  'own-marker': [['function isOurs(author, own) {', 'function isOurs(author, own) { return true;']],
  // A custom command's @{path} read as the path says, without the confined open.
  'command-file-confinement': [
    [
      'async function readInjectedPath(root, given) {',
      "async function readInjectedPath(root, given) { return process.getBuiltinModule('node:fs').readFileSync(process.getBuiltinModule('node:path').resolve(root, given), 'utf8');",
    ],
  ],
  // A custom command's !{...} run without asking the policy.
  'command-shell-policy': [
    [
      'async function assertShellAllowed(cmd, commands, deps) {',
      'async function assertShellAllowed(cmd, commands, deps) { return;',
    ],
  ],
  // The engine's sandbox state for `sandboxed` rules (policies/shell.toml): every sandbox counts as confining.
  'sandboxed-allow': [
    [
      "sandboxed: ctx.sandbox.sandbox.status().then((s) => s.kind === 'sandboxed', () => false),",
      'sandboxed: Promise.resolve(true),',
    ],
  ],
  // base-branch and branch-prefix checked as git branch names (src/git/ref-name.ts).
  'ref-names': [['function whyNotBranchName(name) {', 'function whyNotBranchName(name) { return undefined;']],
  // The Google Cloud credentials file (and its variables) hidden from sandboxed processes.
  'gcloud-credentials': [
    [/'GOOGLE_APPLICATION_CREDENTIALS',\s*'GOOGLE_GHA_CREDS_PATH',\s*'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',/, ''],
  ],
  // The thread's images: every URL and every redirect counts as GitHub's own (test/security/image-hosts.test.ts).
  'image-hosts': [
    ['function isGitHubImageUrl(url, h) {', 'function isGitHubImageUrl(url, h) { return true;'],
    ['function isGitHubRedirect(url, h) {', 'function isGitHubRedirect(url, h) { return true;'],
  ],
  // trigger-anywhere: a quote (GitHub's quote reply) is read as the commenter's own prose.
  'quoted-trigger': [["'code', 'inlineCode', 'blockquote', 'html'", "'code', 'inlineCode', 'html'"]],
  // What trusted configuration shows an MCP server (its script, its PATH folders) is bound writable instead of read-only.
  'mcp-visible-ro': [
    [
      /for \(const path of p\.visible \?\? \[\]\)\s+a\.push\('--ro-bind', path, path\);/,
      "for (const path of p.visible ?? []) a.push('--bind', path, path);",
    ],
  ],
  // Settings' allows (tools.allowed, tools.core) yield to the repository's policy denies: they no longer do.
  'settings-allow-yields': [
    ["const deny = r.decision === 'allow' && r.belowWorkspaceDenies", 'const deny = false && r.belowWorkspaceDenies'],
  ],
  // The file tools no longer hide the Google Cloud credentials files (test/security/gcloud-credentials-file-tools.test.ts).
  'gcloud-file-tools': [
    [/if \(inside\.length > 0\)\s*hiddenByRoot\.set\(root, inside\);/, 'if (false) hiddenByRoot.set(root, inside);'],
  ],
};

// `--all` switches every defence off at once: .ci/run does, so that a renamed function fails CI
// instead of leaving a switch that weakens nothing.
const [out, ...given] = process.argv.slice(2);
const names = given.length === 1 && given[0] === '--all' ? Object.keys(DEFENCES) : given;
if (!out || names.length === 0 || names.some((n) => !DEFENCES[n])) {
  console.error(
    `usage: node test/security/weaken.mjs <out-dir> <defence>... | --all\ndefences: ${Object.keys(DEFENCES).join(', ')}`,
  );
  process.exit(2);
}
const dir = resolve(out);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
cpSync(join(root, 'package.json'), join(dir, 'package.json'));
const build = spawnSync(
  process.execPath,
  [join(root, 'scripts/build.mjs'), '--out', join(dir, 'dist'), '--no-minify'],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
if (build.status !== 0) {
  console.error(`weaken: building the readable copy failed (exit ${build.status})`);
  process.exit(1);
}
const bundleFiles = readdirSync(join(dir, 'dist'))
  .filter((f) => f.endsWith('.js'))
  .map((f) => `dist/${f}`);
for (const name of names) {
  for (const [from, to, target] of DEFENCES[name]) {
    let found = 0;
    for (const rel of target ? [target] : bundleFiles) {
      const file = join(dir, rel);
      const code = readFileSync(file, 'utf8');
      // A call into another module reads `(0,module/* name */.id)(...)` in ncc's output: such a text is a RegExp.
      const m =
        typeof from === 'string'
          ? { index: code.indexOf(from), text: from }
          : { index: code.search(from), text: code.match(from)?.[0] ?? '' };
      if (m.index < 0) continue;
      writeFileSync(file, code.slice(0, m.index) + to + code.slice(m.index + m.text.length));
      found++;
    }
    if (found === 0) {
      rmSync(dir, { recursive: true, force: true }); // never leave a copy that weakens less than asked
      console.error(
        `weaken ${name}: ${typeof from === 'string' ? JSON.stringify(from) : from} is not in ${target ?? 'dist/*.js'} (renamed?)`,
      );
      process.exit(1);
    }
  }
}
console.log(join(dir, 'dist/index.js'));
