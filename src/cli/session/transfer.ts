/**
 * `agent-action session export|import`: a session crosses between this machine and the Action
 * only when the developer asks. Export puts a local session on the Action's ref (the git-ref
 * store) as a run that did not finish, with the work tree as a patch on HEAD, so `/agent continue`
 * in a thread resumes it there. Import copies the Action's session from its ref into this
 * project's sessions, so `--resume` continues it here, waiting calls included.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AgentError, isAgentError, messageOf } from '../../common/errors.js';
import { sequenceOf, type LocalSessionDoc } from '../../session/codec.js';
import { distrustFolder, trustedFoldersPath } from '../folder-trust.js';
import { createGitRefStore, SESSION_REF_PREFIX } from '../../session/git-ref-store.js';
import { assertGit, runGit, type GitRemote } from '../../git/git.js';
import { createSessionKey, type SessionKey } from '../../session/sign.js';
import { actionFromLocal, localFromAction } from '../../session/transfer.js';
import { captureWorktree, restoreWorktree, writeWorktreeTree } from '../../session/worktree.js';
import { openProjectSessions, readSessionListing, selectSession } from './local.js';
import { describeError } from '../output.js';
import type { SessionCommandEnv } from './commands.js';

const SESSION_HELP = `Usage: agent-action session export SESSION --thread N [--pull-request] [--repo OWNER/NAME] [--remote NAME] [-p PROMPT] [--cwd DIR]
       agent-action session import ID [--remote NAME] [--restore-worktree] [--cwd DIR]

Moves a session between this machine and the Action, only when asked.

  export   puts a session of this project (latest, its number or its id) on the Action's ref
           refs/agent-action/sessions/<id> of the remote (default origin), as a run that did not
           finish; reply "/agent continue" in issue N (or pull request N, with --pull-request)
           and the Action resumes it. -p gives the Action its next message (needed when the
           model spoke last). The work tree goes as a patch on HEAD, which must be on the remote.
           --repo names the GitHub repository when the remote's URL does not.
  import   copies the Action's session ID from the remote's ref into this project's sessions:
           continue it with agent-action --resume ID (a waiting call: --approve, --deny or -p).
           --restore-worktree makes the work tree the session's (uncommitted changes are lost).
`;

/** The Action keeps an exported request answerable this long (its default approval timeout). */
const EXPORT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export async function runSessionCommand(argv: readonly string[], c: SessionCommandEnv): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help')
      return (c.io.stdout(SESSION_HELP), sub === undefined ? 42 : 0);
    if (sub === 'export') return await exportSession(rest, c);
    if (sub === 'import') return await importSession(rest, c);
    throw new AgentError(
      'input',
      `unknown command "session ${sub}": the commands are "session export" and "session import" (see: agent-action session --help)`,
      { site: { input: 'session' } },
    );
  } catch (e) {
    const error = isAgentError(e) ? e : new AgentError('general', messageOf(e), { cause: e });
    c.io.stderr(`Error: ${describeError(error)}\n`);
    return error.exitCode;
  }
}

function flags<O extends NonNullable<ParseArgsConfig['options']>>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true as const });
  } catch (e) {
    throw new AgentError('input', `${messageOf(e).split('\n')[0]} (see: agent-action session --help)`);
  }
}

function workspaceOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    throw new AgentError('input', `--cwd "${dir}" does not exist`, { site: { input: '--cwd' } });
  }
}

async function exportSession(argv: readonly string[], c: SessionCommandEnv): Promise<number> {
  const { values: v, positionals } = flags(argv, {
    thread: { type: 'string' },
    'pull-request': { type: 'boolean' },
    repo: { type: 'string' },
    remote: { type: 'string' },
    prompt: { type: 'string', short: 'p' },
    cwd: { type: 'string' },
  });
  const selector = positionals[0];
  if (!selector || positionals.length > 1)
    throw new AgentError('input', 'session export takes one session: latest, its number or its id', {
      site: { input: 'session export' },
    });
  const thread = Number(v.thread);
  if (typeof v.thread !== 'string' || !/^\d+$/.test(v.thread) || thread < 1)
    throw new AgentError(
      'input',
      '--thread needs the number of the issue or pull request the Action continues the session in',
      { site: { input: '--thread' } },
    );
  const root = workspaceOf((v.cwd as string | undefined) ?? c.cwd);
  const remoteName = (v.remote as string | undefined) ?? 'origin';
  const remote = await readRemote(root, remoteName, c.env);
  const now = (c.now ?? (() => new Date()))();

  const chosen = selectSession(await readSessionListing(openProjectSessions(c.env, root)), selector, 'session export');
  const doc = withPrompt(chosen.doc, v.prompt as string | undefined);
  if (doc.state.history.at(-1)?.role !== 'user') {
    throw new AgentError(
      'input',
      `the model spoke last in session ${doc.id}: give the Action its next message with -p "..."`,
      { site: { input: '--prompt' } },
    );
  }
  const repository =
    typeof v.repo === 'string' ? parseRepo(v.repo, '--repo') : parseRepo(remote.url, `the URL of remote ${remoteName}`);
  const head = await assertHeadOnRemote(root, remoteName);
  const branch = await assertGit(root, ['rev-parse', '--abbrev-ref', 'HEAD']);
  const store = createGitRefStore({ root, remote, key: sessionKeyOf(c.env) });
  const existing = await store.read(doc.id);
  const actionDoc = actionFromLocal(doc, {
    repository,
    thread: { number: thread, kind: v['pull-request'] ? 'pull_request' : 'issue' },
    worktree: await captureWorktree(root),
    ...(branch !== 'HEAD' ? { branch } : {}),
    nonce: randomBytes(16).toString('hex'),
    now,
    ttlMs: EXPORT_TTL_MS,
    trustedCommit: head,
    // The Action refuses a version below the newest it saw of this session: above what is on the ref now, and what came from it.
    after: Math.max(existing?.parsed.ok ? sequenceOf(existing.parsed.doc) : 0, doc.importedFrom?.sequence ?? 0),
  });
  const saved = existing ? await store.update(doc.id, existing.version, actionDoc) : await store.create(actionDoc);
  if (!saved.ok) throw new AgentError('general', `could not export session ${doc.id}: ${saved.message}`);
  c.io.stdout(
    `Exported session ${doc.id} to ${remoteName} as ${SESSION_REF_PREFIX}${doc.id}.\n` +
      `Reply "/agent continue" in ${repository.owner}/${repository.repo}#${thread} and the Action resumes it.\n`,
  );
  return 0;
}

async function importSession(argv: readonly string[], c: SessionCommandEnv): Promise<number> {
  const { values: v, positionals } = flags(argv, {
    remote: { type: 'string' },
    'restore-worktree': { type: 'boolean' },
    cwd: { type: 'string' },
  });
  const id = positionals[0];
  if (!id || positionals.length > 1)
    throw new AgentError('input', "session import takes one session id (the Action's session-id output)", {
      site: { input: 'session import' },
    });
  const root = workspaceOf((v.cwd as string | undefined) ?? c.cwd);
  const remoteName = (v.remote as string | undefined) ?? 'origin';
  const remote = await readRemote(root, remoteName, c.env);
  const stored = await createGitRefStore({ root, remote, key: sessionKeyOf(c.env) }).read(id);
  if (!stored)
    throw new AgentError('input', `there is no session ${id} on ${remoteName} (${SESSION_REF_PREFIX}${id})`, {
      site: { input: 'session import' },
    });
  if (!stored.parsed.ok)
    throw new AgentError(
      'general',
      `the session ${id} on ${remoteName} cannot be read: ${stored.parsed.error.message}`,
    );
  const doc = stored.parsed.doc;
  const local = localFromAction(doc, root, (c.now ?? (() => new Date()))());
  const project = openProjectSessions(c.env, root);
  if (await project.store.read(id))
    throw new AgentError(
      'input',
      `session ${id} is already one of this project's sessions: delete it first (agent-action --delete-session ${id})`,
    );

  if ((await writeWorktreeTree(root)) !== doc.worktree.tree) {
    if (v['restore-worktree']) {
      // Before a byte of it is written: the restored .gemini/ is a model's, from elsewhere.
      distrustFolder(root, c.env);
      await restoreWorktree(root, doc.worktree, { ...(doc.branch ? { branch: doc.branch } : {}), remote });
      c.io.stdout(
        `Restored the work tree to the session's (${doc.worktree.baseCommit.slice(0, 12)} and its changes${doc.branch ? `, on branch ${doc.branch}` : ''}).\n`,
      );
      c.io.stderr(
        `Note: ${root} is now marked DO_NOT_TRUST in ${trustedFoldersPath(c.env)}: the restored .gemini/ (hooks, MCP servers, agents, policies) is not used until you review it and set the folder to TRUST_FOLDER there.\n`,
      );
    } else {
      c.io.stderr(
        `Note: this work tree differs from the session's (its changes on ${doc.worktree.baseCommit.slice(0, 12)}); --restore-worktree makes it the same.\n`,
      );
    }
  }
  const created = await project.store.create(local);
  if (!created.ok) throw new AgentError('general', `could not import session ${id}: ${created.message}`);
  const waits = local.pending.length
    ? ` It waits for an answer to: ${local.pending.map((p) => p.title).join('; ')} (--approve, --deny, or -p "...").`
    : '';
  c.io.stdout(
    `Imported session ${id} (${local.title}) from ${remoteName}. Continue it with: agent-action --resume ${id}.${waits}\nThe session on ${remoteName} is unchanged.\n`,
  );
  return 0;
}

/** The next message joins the history as the person's turn (after tool responses, the same turn). */
function withPrompt(doc: LocalSessionDoc, prompt: string | undefined): LocalSessionDoc {
  const text = prompt?.trim();
  if (!text) return doc;
  const state = structuredClone(doc.state);
  const last = state.history.at(-1);
  if (last?.role === 'user') last.parts.push({ text });
  else state.history.push({ role: 'user', parts: [{ text }] });
  return { ...doc, state };
}

/** owner/name, or a GitHub URL (https or ssh) of the repository. */
function parseRepo(text: string, what: string): { owner: string; repo: string } {
  const m =
    /^(?:(?:https?:\/\/|ssh:\/\/)?(?:[^@/]+@)?github\.com[/:])?([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(
      text.trim(),
    );
  if (!m)
    throw new AgentError(
      'input',
      `${what} (${text.trim()}) does not name a GitHub repository: pass --repo OWNER/NAME`,
      { site: { input: '--repo' } },
    );
  return { owner: m[1]!, repo: m[2]! };
}

/**
 * The Action signs its sessions with its `session-key` input, or else a key derived from its Gemini
 * API key: here the same secret comes from AGENT_ACTION_SESSION_KEY, or else GEMINI_API_KEY.
 */
function sessionKeyOf(env: SessionCommandEnv['env']): SessionKey {
  const secret = env.AGENT_ACTION_SESSION_KEY || env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
  if (!secret) {
    throw new AgentError(
      'auth',
      "no session key: set AGENT_ACTION_SESSION_KEY to the Action's session-key input, or GEMINI_API_KEY to its Gemini API key (sessions are signed with it)",
    );
  }
  return createSessionKey(secret);
}

/**
 * The remote's URL, and the token its pushes send: the action's git reads no credential helper, so
 * an https remote takes GITHUB_TOKEN (or GH_TOKEN) from the environment.
 */
async function readRemote(root: string, name: string, env: SessionCommandEnv['env']): Promise<GitRemote> {
  const r = await runGit(root, ['remote', 'get-url', name]);
  if (r.code !== 0)
    throw new AgentError('input', `there is no remote ${name} in ${root}`, { site: { input: '--remote' } });
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  return { url: r.stdout.toString('utf8').trim(), ...(token ? { token } : {}) };
}

async function assertHeadOnRemote(root: string, remote: string): Promise<string> {
  const head = await assertGit(root, ['rev-parse', 'HEAD']);
  const r = await runGit(root, ['branch', '-r', '--contains', head, '--format=%(refname:short)']);
  const onRemote = r.stdout
    .toString('utf8')
    .split('\n')
    .some((b) => b.startsWith(`${remote}/`));
  if (!onRemote)
    throw new AgentError(
      'input',
      `HEAD (${head.slice(0, 12)}) is not on ${remote}: push it first, the Action restores the work tree on top of it`,
    );
  return head;
}
