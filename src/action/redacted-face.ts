/**
 * The job log, the job summary and the step's outputs and annotations through the one redactor
 * (common/redact.ts): the runner masks a secret it was told of (`::add-mask::`) only as written,
 * not reversed, in base64 or hex. The list is read as it stands at each line, so a secret found
 * later (the checkout header) is redacted from then on.
 */
import { redactSecrets } from '../common/redact.js';
import type { ActionFace } from './main.js';
import type { ActionOutcome } from './report.js';

export function redactedFace(face: ActionFace, secrets: readonly string[]): ActionFace {
  const r = (text: string) => redactSecrets(text, secrets);
  const { log, writeSummary } = face;
  return {
    ...face,
    log: {
      info: (l) => log.info(r(l)),
      notice: (l) => log.notice(r(l)),
      warning: (l) => log.warning(r(l)),
      group: (title, fn) => log.group(r(title), fn),
    },
    writeSummary: writeSummary && ((md) => writeSummary(r(md))),
  };
}

/** The outcome with every text of its result (the step's outputs) and of its annotations redacted. */
export function redactedOutcome(o: ActionOutcome, secrets: readonly string[]): ActionOutcome {
  const r = (text: string) => redactSecrets(text, secrets);
  const result = Object.fromEntries(
    Object.entries(o.result).map(([k, v]) => [k, typeof v === 'string' ? r(v) : v]),
  ) as ActionOutcome['result'];
  return { result, errors: o.errors.map((e) => ({ ...e, message: r(e.message), title: r(e.title) })) };
}
