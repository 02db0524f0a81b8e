/**
 * Server-sent events (the WHATWG event-stream format) as the Gemini API sends them with `alt=sse`:
 * events separated by a blank line, each event's `data:` lines joined by newlines. Yields each
 * event's data; comments, `event:`, `id:` and `retry:` lines are skipped; an unfinished event at
 * the end of the stream is still yielded (its parser says whether it is whole).
 */
export async function* readServerSentEvents(body: AsyncIterable<Uint8Array>, onBytes: () => void = () => {}): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of body) {
    onBytes();
    buffer += decoder.decode(bytes, { stream: true });
    let end: RegExpExecArray | null;
    while ((end = EVENT_END.exec(buffer)) !== null) {
      const data = dataOf(buffer.slice(0, end.index));
      buffer = buffer.slice(end.index + end[0].length);
      if (data !== undefined) yield data;
    }
  }
  buffer += decoder.decode();
  const data = dataOf(buffer);
  if (data !== undefined) yield data;
}

/** A blank line: two line ends in a row, each CRLF, LF or CR (a CR before an LF is not one on its own). */
const EVENT_END = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))/;

function dataOf(event: string): string | undefined {
  let data: string[] | undefined;
  for (const line of event.split(/\r\n|\n|\r/)) {
    if (!line.startsWith('data')) continue;
    if (line === 'data') (data ??= []).push('');
    else if (line[4] === ':') (data ??= []).push(line.slice(line[5] === ' ' ? 6 : 5));
  }
  return data?.join('\n');
}
