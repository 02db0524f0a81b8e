/**
 * The sessions of one project on this machine, the way Gemini CLI shows and picks them: numbered
 * from the oldest (1) to the newest, chosen by `latest`, by number or by id (`--resume`,
 * `--list-sessions`, `--delete-session`). A file that does not parse is reported by name and why;
 * it never hides the others.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../common/errors.js';
import type { LocalSessionDoc } from '../../session/codec.js';
import { createFileStore, projectSessionsDir, type LocalSessionStore } from '../../session/file-store.js';

export interface ProjectSessions {
  store: LocalSessionStore;
  /** The folder of this project's session files. */
  dir: string;
}

/** `$XDG_STATE_HOME/agent-action`, else `~/.agent-action`. */
function stateDirOf(env: Readonly<Record<string, string | undefined>>, home: string = homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  return xdg && xdg.startsWith('/') ? join(xdg, 'agent-action') : join(home, '.agent-action');
}

export function openProjectSessions(env: Readonly<Record<string, string | undefined>>, root: string): ProjectSessions {
  const dir = projectSessionsDir(stateDirOf(env), root);
  return { dir, store: createFileStore({ dir }) };
}

export interface ListedSession {
  /** 1 = the oldest. */
  index: number;
  id: string;
  version: string;
  doc: LocalSessionDoc;
}

export interface BrokenSession {
  id: string;
  file: string;
  message: string;
}

export interface SessionListing {
  sessions: ListedSession[];
  broken: BrokenSession[];
}

/** Every session of the project, oldest first (Gemini CLI's order), and the files that do not parse. */
export async function readSessionListing(p: ProjectSessions): Promise<SessionListing> {
  const sessions: Array<Omit<ListedSession, 'index'>> = [];
  const broken: BrokenSession[] = [];
  for (const { id } of await p.store.list()) {
    const stored = await p.store.read(id);
    if (!stored) continue; // deleted meanwhile
    if (stored.parsed.ok) sessions.push({ id, version: stored.version, doc: stored.parsed.doc });
    else broken.push({ id, file: join(p.dir, `${id}.json`), message: stored.parsed.error.message });
  }
  sessions.sort((a, b) => Date.parse(a.doc.createdAt) - Date.parse(b.doc.createdAt) || a.id.localeCompare(b.id));
  return { sessions: sessions.map((s, i) => ({ ...s, index: i + 1 })), broken };
}

/** `latest`, a 1-based number, or an id; a bad one is bad input that says how to find a good one. */
export function selectSession(listing: SessionListing, selector: string, flag: string): ListedSession {
  const s = selector.trim();
  const { sessions } = listing;
  const brokenHit = listing.broken.find((b) => b.id === s);
  if (brokenHit)
    throw new AgentError(
      'input',
      `session ${s} cannot be used: its file ${brokenHit.file} is damaged (${brokenHit.message})`,
      { site: { input: flag, file: brokenHit.file } },
    );
  if (sessions.length === 0)
    throw new AgentError('input', 'No previous sessions found for this project.', { site: { input: flag } });
  if (s === 'latest') return sessions[sessions.length - 1]!;
  const byId = sessions.find((x) => x.id === s);
  if (byId) return byId;
  if (/^\d+$/.test(s) && Number(s) >= 1 && Number(s) <= sessions.length) return sessions[Number(s) - 1]!;
  throw new AgentError(
    'input',
    `Invalid session identifier "${s}". Use --list-sessions to see available sessions, then use ${flag} {number}, ${flag} {uuid}` +
      `${flag === '--resume' ? ', or --resume latest' : ''}.`,
    { site: { input: flag } },
  );
}

/** Gemini CLI's "Just now", "5 minutes ago", "2 days ago". */
export function formatRelativeTime(iso: string, now: Date): string {
  const seconds = Math.floor((now.getTime() - Date.parse(iso)) / 1000);
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  const ago = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  if (days > 0) return ago(days, 'day');
  if (hours > 0) return ago(hours, 'hour');
  if (minutes > 0) return ago(minutes, 'minute');
  return 'Just now';
}

const STATUS_NOTES: Readonly<Record<LocalSessionDoc['status'], string>> = {
  idle: '',
  running: ', interrupted',
  awaiting_approval: ', waiting for approval',
};

/** Gemini CLI's `--list-sessions` text, with a note on sessions that wait or were cut short. */
export function formatSessionList(listing: SessionListing, now: Date): string {
  if (listing.sessions.length === 0) return 'No previous sessions found for this project.\n';
  const lines = listing.sessions.map(({ index, id, doc }) => {
    const title = doc.title.length > 100 ? `${doc.title.slice(0, 97)}...` : doc.title;
    return `  ${index}. ${title || '(no prompt)'} (${formatRelativeTime(doc.updatedAt, now)}${STATUS_NOTES[doc.status]}) [${id}]\n`;
  });
  return `\nAvailable sessions for this project (${listing.sessions.length}):\n${lines.join('')}`;
}

/** One line per damaged file, for stderr. */
export const formatBroken = (b: BrokenSession): string =>
  `Error: session file ${b.file} cannot be read: ${b.message}. It is left out; delete it with --delete-session ${b.id}.\n`;

/** The first prompt as a one-line title (Gemini CLI lists sessions by it). */
export function titleOf(prompt: string): string {
  return prompt
    .replace(/\s+/g, ' ')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
}
