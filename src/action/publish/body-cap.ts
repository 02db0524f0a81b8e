/**
 * GitHub refuses a comment, review or pull-request body over 65,536 characters, and the refusal
 * loses the whole post (a fix's pull request, a fork's suggestions). Every body the action builds
 * from the model's words is cut to fit first, with a visible note; what the action appends after
 * it (a marker, `Fixes #N`) still fits.
 */
import { cutNote, cutRaw } from '../../context/untrusted.js';

const MAX_BODY_CHARS = 60_000;

export function capBody(text: string): string {
  const { text: kept, cut } = cutRaw(text, MAX_BODY_CHARS);
  return cut === 0 ? text : `${kept}\n\n${cutNote(cut)}`;
}
