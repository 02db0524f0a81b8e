/**
 * What the model was told a scripted call did, found without function-call ids (the API sends
 * none, so none come back): the model turn that holds the call, in the history a later request
 * carried, pairs its calls in order with the function responses of the turn that follows it.
 *
 *   const read = call('read_file', { file_path: 'a.ts' });
 *   const fake = await startFakeGemini([reply([read]), reply([text('Done.')])]);
 *   ...
 *   expect(JSON.stringify(responseTo(fake.requests, read))).toContain('a.ts');
 */
import { isDeepStrictEqual } from 'node:util';
import type { RecordedRequest, WirePart } from './fake-gemini.js';

type Contents = RecordedRequest['body']['contents'];

/**
 * The functionResponse (`{ name, response }`) sent for `part`, a call given to the fake's script.
 * Throws when no request carried one, or when calls equal to it got different responses (the test
 * must tell them apart by their arguments).
 */
export function responseTo(requests: readonly RecordedRequest[], part: WirePart): Record<string, unknown> {
  const wanted = part.functionCall;
  if (!wanted) throw new Error('responseTo: the part is not a function call');
  const found = new Map<string, Record<string, unknown>>();
  for (const q of requests) {
    for (const r of responsesIn(q.body.contents, wanted)) found.set(JSON.stringify(r), r);
  }
  const all = [...found.values()];
  if (all.length === 0) throw new Error(`the model never got a result for ${JSON.stringify(wanted)}`);
  if (all.length > 1)
    throw new Error(
      `calls equal to ${JSON.stringify(wanted)} got ${all.length} different results: give them different arguments`,
    );
  return all[0];
}

function responsesIn(contents: Contents, wanted: unknown): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  contents.forEach((turn, k) => {
    if (turn.role !== 'model') return;
    const calls = turn.parts.filter((p) => p.functionCall);
    const answers = (contents[k + 1]?.parts ?? []).filter((p) => p.functionResponse);
    calls.forEach((p, j) => {
      if (isDeepStrictEqual(p.functionCall, wanted) && answers[j])
        out.push(answers[j].functionResponse as Record<string, unknown>);
    });
  });
  return out;
}
