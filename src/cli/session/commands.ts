/**
 * `--list-sessions` and `--delete-session`, as Gemini CLI names and prints them, for the sessions
 * of the workspace (`--cwd`, else the current directory). A damaged file is named on stderr with
 * what is wrong; the other sessions are listed all the same.
 */
import { realpathSync } from 'node:fs';
import { AgentError, isAgentError, messageOf } from '../../common/errors.js';
import {
  formatBroken,
  formatRelativeTime,
  formatSessionList,
  openProjectSessions,
  readSessionListing,
  selectSession,
} from './local.js';
import { describeError, type Io } from '../output.js';

export interface SessionCommandEnv {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  io: Io;
  now?: () => Date;
}

function workspaceOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    throw new AgentError('input', `--cwd "${dir}" does not exist`, { site: { input: '--cwd' } });
  }
}

async function guarded(io: Io, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    const error = isAgentError(e) ? e : new AgentError('general', messageOf(e), { cause: e });
    io.stderr(`Error: ${describeError(error)}\n`);
    return error.exitCode;
  }
}

export function runListSessions(cwd: string | undefined, c: SessionCommandEnv): Promise<number> {
  return guarded(c.io, async () => {
    const listing = await readSessionListing(openProjectSessions(c.env, workspaceOf(cwd ?? c.cwd)));
    for (const b of listing.broken) c.io.stderr(formatBroken(b));
    c.io.stdout(formatSessionList(listing, (c.now ?? (() => new Date()))()));
    return 0;
  });
}

export function runDeleteSession(selector: string, cwd: string | undefined, c: SessionCommandEnv): Promise<number> {
  return guarded(c.io, async () => {
    const project = openProjectSessions(c.env, workspaceOf(cwd ?? c.cwd));
    const listing = await readSessionListing(project);
    const now = (c.now ?? (() => new Date()))();
    // A damaged file can be deleted by its id: that is how the listing says to clean it up.
    const broken = listing.broken.find((b) => b.id === selector.trim());
    let target: { id: string; label: string; version: string | undefined };
    if (broken)
      target = {
        id: broken.id,
        label: `${broken.id} (damaged file ${broken.file})`,
        version: (await project.store.read(broken.id))?.version,
      };
    else {
      const s = selectSession(listing, selector, '--delete-session');
      target = {
        id: s.id,
        label: `${s.index}: ${s.doc.title || '(no prompt)'} (${formatRelativeTime(s.doc.updatedAt, now)})`,
        version: s.version,
      };
    }
    if (target.version === undefined)
      throw new AgentError('general', `session ${target.id} disappeared while it was being deleted`);
    // The version listed: a session another process saved since is not deleted under it.
    const r = await project.store.delete(target.id, target.version);
    if (!r.ok) throw new AgentError('general', `Failed to delete session: ${r.message}`);
    c.io.stdout(`Deleted session ${target.label}\n`);
    return 0;
  });
}
