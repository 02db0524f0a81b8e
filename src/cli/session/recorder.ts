/**
 * Keeps a local session's file in step with its run: saved before the run starts, after every
 * settled batch (the loop's safe point) and when the run ends, each time as one compare-and-swap,
 * so a process killed at any moment leaves the last safe point on disk and a second process on the
 * same session is refused rather than overwritten.
 */
import { userInfo } from 'node:os';
import { AgentError } from '../../common/errors.js';
import type { Outcome } from '../../core/events.js';
import type { RunState } from '../../core/run-state.js';
import type { PendingApproval } from '../../scheduler/types.js';
import {
  encodeLocalSession,
  SESSION_VERSION,
  type LocalSessionDoc,
  type LocalStatus,
  type StoredMcpServer,
} from '../../session/codec.js';
import type { LocalSessionStore } from '../../session/file-store.js';
import { isoTime } from '../../common/time.js';

/** What a new session's file says about itself. */
export interface SessionOrigin {
  root: string;
  title: string;
  /** `prompt` for `-p`, `acp` for an editor's session. */
  command: string;
  mcpServers?: StoredMcpServer[];
}

export interface HeldLocalSession {
  doc: LocalSessionDoc;
  version: string;
}

export interface SessionRecorder {
  readonly id: string;
  /** The document as last saved (undefined before the first save). */
  current(): LocalSessionDoc | undefined;
  save(state: RunState, status: LocalStatus, pending?: readonly PendingApproval[]): Promise<void>;
  /** The end of a run: idle, or waiting with the outcome's pending calls. */
  saveOutcome(state: RunState, outcome: Outcome): Promise<void>;
  /** Change what is stored beside the run state (the MCP servers of a reloaded editor session). */
  setMcpServers(servers: StoredMcpServer[] | undefined): void;
  /** A session that has no title yet takes this one (an editor's session: its first prompt). */
  nameIfNew(title: string): void;
}

export interface RecorderOptions {
  store: LocalSessionStore;
  /** A resumed session: its stored document and version. */
  held?: HeldLocalSession;
  /** A new session: where it comes from (ignored when `held` is given). */
  origin?: SessionOrigin;
  now?: () => Date;
  /**
   * A save that fails (a read-only state folder, another process that took the session) is told
   * here once, and the run goes on without saving; without it, the save throws.
   */
  onSaveError?: (e: unknown) => void;
}

function localRequester(): string {
  try {
    return userInfo().username;
  } catch {
    return 'local';
  }
}

export function createSessionRecorder(o: RecorderOptions): SessionRecorder {
  const now = o.now ?? (() => new Date());
  // What the session file holds now: the document as read (a resumed session) or as last encoded.
  let held: { id: string; doc?: LocalSessionDoc; text?: string; version: string } | undefined = o.held && {
    id: o.held.doc.id,
    ...o.held,
  };
  // The fields that stay from the first save on (where, when and by whom the session was made).
  let base: Pick<LocalSessionDoc, 'root' | 'createdAt' | 'trigger' | 'requester' | 'importedFrom'> | undefined =
    o.held?.doc;
  let mcpServers = o.held?.doc.mcpServers ?? o.origin?.mcpServers;
  let title = o.held?.doc.title || o.origin?.title || '';
  let queue: Promise<void> = Promise.resolve();
  let failed = false;
  /** Parsed again only when asked (rarely: an editor changing modes between prompts). */
  const current = (): LocalSessionDoc | undefined => {
    if (held && !held.doc) held.doc = JSON.parse(held.text!) as LocalSessionDoc;
    return held?.doc;
  };
  if (!held && !o.origin) throw new AgentError('internal', 'a session recorder needs a stored session or an origin');

  /** The document as JSON text, encoded now: the state as it was when the save was asked. */
  function encodeNow(state: RunState, status: LocalStatus, pending: readonly PendingApproval[]): string {
    const at = isoTime(now());
    base ??= {
      root: o.origin!.root,
      createdAt: at,
      trigger: { command: o.origin!.command },
      requester: localRequester(),
    };
    const doc: LocalSessionDoc = {
      version: SESSION_VERSION,
      origin: 'local',
      id: state.id,
      root: base.root,
      title,
      createdAt: base.createdAt,
      updatedAt: at,
      trigger: base.trigger,
      requester: base.requester,
      model: state.model,
      mode: state.mode,
      state,
      pending: [...pending],
      status,
      ...(mcpServers ? { mcpServers } : {}),
      ...(base.importedFrom ? { importedFrom: base.importedFrom } : {}),
    };
    return encodeLocalSession(doc);
  }

  async function write(id: string, text: string): Promise<void> {
    const r = held ? await o.store.updateEncoded(id, held.version, text) : await o.store.createEncoded(id, text);
    if (!r.ok) {
      throw new AgentError(
        'general',
        `session ${id} could not be saved: ${r.message}. Another agent-action process may be using it; this run's progress since then is not saved.`,
      );
    }
    held = { id, text, version: r.version };
  }

  const recorder: SessionRecorder = {
    get id() {
      return held?.id ?? '';
    },
    current,
    save(state, status, pending = []) {
      if (failed) return Promise.resolve();
      // One write at a time, in order: each is a CAS on the version the previous one produced.
      const text = encodeNow(state, status, pending);
      const next = queue.then(() => write(state.id, text));
      queue = next.catch(() => undefined);
      if (!o.onSaveError) return next;
      return next.catch((e: unknown) => {
        if (!failed) o.onSaveError!(e);
        failed = true;
      });
    },
    saveOutcome(state, outcome) {
      return outcome.status === 'awaiting_approval'
        ? recorder.save(state, 'awaiting_approval', outcome.pending)
        : recorder.save(state, 'idle');
    },
    setMcpServers(servers) {
      mcpServers = servers;
    },
    nameIfNew(t) {
      if (!title) title = t;
    },
  };
  return recorder;
}
