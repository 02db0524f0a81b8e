/** Secret redaction for everything the action posts; free of `@actions/github`, so any module may import it. */

/** Replace every secret (and its common encodings) by `***`. Short values are left alone: they would mangle text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 6) continue;
    for (const form of [s, encodeURIComponent(s), Buffer.from(s).toString('base64')]) out = out.split(form).join('***');
  }
  return out;
}
