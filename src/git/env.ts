/**
 * The environment every git process agent-action starts runs with, so that nothing a model can
 * write (a work tree's `.gitattributes`, and `.git/config` or its includes where the sandbox does not
 * hold) makes git run a program or send a credential elsewhere.
 *
 * - Only an allow-list of the caller's environment passes (PATH, temp dir, the runner's proxy and CA
 *   settings): no inputs, no tokens, no GIT_* variable of the caller.
 * - No system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, no HOME, so no
 *   XDG config either) and no system attributes file.
 * - Every configuration key git 2.39 reads whose value it runs as a command, or that chooses which
 *   command runs, is set in the command scope (`GIT_CONFIG_COUNT`), which git reads last: it wins
 *   over the repository's own config and over anything `include.path`/`includeIf` pulls in.
 *   Per-name keys (filter, diff and merge drivers, remotes) cannot be listed ahead: src/git/git.ts
 *   reads the effective config before each command and neutralizes every name it finds.
 *
 * Pure: builds records; src/git/git.ts and the tools that run git spawn with them.
 */

export type ConfigPair = readonly [key: string, value: string];

/**
 * Keys that run code, set inert. An empty value disables a helper list (`credential.helper`), a
 * program (`core.askPass`, `core.alternateRefsCommand`) or, with `--no-ext-diff`, the external diff.
 */
const INERT_CONFIG: readonly ConfigPair[] = [
  ['core.fsmonitor', 'false'], // a hook run by every command that reads the index (status, add, ls-files)
  ['core.hooksPath', '/dev/null'], // every hook: pre-commit, reference-transaction, post-checkout, pre-push...
  ['core.sshCommand', 'ssh'],
  ['core.askPass', ''],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.pager', 'cat'],
  ['core.attributesFile', '/dev/null'],
  ['core.alternateRefsCommand', ''], // run by fetch when .git/objects/info/alternates names another store
  ['credential.helper', ''], // empty resets the list, including credential.<url>.helper entries
  ['diff.external', ''],
  ['commit.gpgSign', 'false'], // gpg.program / gpg.<format>.program / gpg.ssh.defaultKeyCommand never run
  ['tag.gpgSign', 'false'],
  ['tag.forceSignAnnotated', 'false'],
  ['push.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['merge.verifySignatures', 'false'],
  // Transports: remote helpers (`ext::`, `remote.<name>.vcs`, anything `git-remote-*`) are refused.
  ['protocol.allow', 'never'],
  ['protocol.file.allow', 'always'],
  ['protocol.https.allow', 'always'],
  ['protocol.http.allow', 'always'],
  ['protocol.ext.allow', 'never'],
  // Submodules: no recursion into repositories whose config we have not read.
  ['submodule.recurse', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['push.recurseSubmodules', 'no'],
  ['diff.ignoreSubmodules', 'dirty'],
  ['status.submoduleSummary', 'false'],
  ['push.followTags', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  // Ownership is checked to keep another user's config from running code; none of it can here.
  ['safe.directory', '*'],
];

/** The caller's variables that pass: how to find programs and reach the network, nothing else. */
const PASSED = [
  'PATH',
  'TMPDIR',
  'SYSTEMROOT',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'CURL_CA_BUNDLE',
];

export interface GitEnvOptions {
  /** The process environment to pick PATH and proxy settings from (process.env). */
  base: Readonly<Record<string, string | undefined>>;
  /**
   * GIT_CEILING_DIRECTORIES: discovery does not climb to this directory. The action's own git passes
   * the parent of the work tree, so a missing repository is never looked for in a parent folder.
   */
  ceiling?: string;
  /** Command-scope config after INERT_CONFIG (drivers found in the repository, a remote). */
  config?: readonly ConfigPair[];
  /** Variables the caller sets (identity, GIT_INDEX_FILE, LC_ALL): applied last. */
  extra?: Readonly<Record<string, string>>;
}

export function createGitEnv(o: GitEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const v = o.base[name];
    if (v !== undefined) env[name] = v;
  }
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    // Set and empty: git then consults neither core.askPass nor SSH_ASKPASS.
    GIT_ASKPASS: '',
    GIT_EDITOR: ':',
    GIT_SEQUENCE_EDITOR: ':',
    GIT_PAGER: 'cat',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
  });
  if (o.ceiling !== undefined) env.GIT_CEILING_DIRECTORIES = o.ceiling;
  const config = [...INERT_CONFIG, ...(o.config ?? [])];
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return { ...env, ...o.extra };
}
