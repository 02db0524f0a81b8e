/**
 * Fetches the thread's images for the model, from GitHub's own hosts only (context/thread-images.ts
 * decides which), with the job's token, following redirects only to GitHub's hosts and never sending
 * the token past the server it was given for. Each image is read up to its byte cap, checked by its
 * bytes and its pixel count, and counted against the run's total. A URL anywhere else is never
 * requested: it is named as left out.
 */
import { messageOf } from '../common/errors.js';
import { sanitizeUntrusted } from '../context/untrusted.js';
import {
  IMAGE_CAPS,
  imageParts,
  imageUrlsIn,
  isGitHubImageUrl,
  isGitHubRedirect,
  sniffImage,
  type ImageCaps,
  type ImageHosts,
  type ImageResult,
} from '../context/thread-images.js';

export interface FetchImagesOptions {
  hosts: ImageHosts;
  token: string;
  signal?: AbortSignal;
  caps?: ImageCaps;
}

const MAX_REDIRECTS = 3;

/**
 * The images the texts (a thread's body, its triggering comment) show, fetched as fetchThreadImages
 * does, as the parts that follow the thread's text and a note naming those left out; undefined
 * when the texts show none. Each image gets a log line: sent, or why not.
 */
export async function threadImageParts(
  texts: readonly string[],
  o: FetchImagesOptions & { log: (line: string) => void },
): Promise<ReturnType<typeof imageParts> | undefined> {
  const urls = imageUrlsIn(texts.map((t) => sanitizeUntrusted(t)).join('\n'));
  if (urls.length === 0) return undefined;
  const results = await fetchThreadImages(urls, o);
  for (const r of results)
    o.log(`image ${r.url}: ${r.status === 'sent' ? `sent (${r.mimeType}, ${r.bytes.length} bytes)` : r.why}`);
  return imageParts(results);
}

async function fetchThreadImages(urls: readonly string[], o: FetchImagesOptions): Promise<ImageResult[]> {
  const caps = o.caps ?? IMAGE_CAPS;
  const results: ImageResult[] = [];
  let total = 0;
  let sent = 0;
  for (const url of urls) {
    const leftOut = (why: string) => results.push({ url, status: 'left_out', why });
    if (!isGitHubImageUrl(url, o.hosts)) {
      leftOut('not on a GitHub host, so not fetched');
      continue;
    }
    if (sent >= caps.count) {
      leftOut(`over the limit of ${caps.count} images`);
      continue;
    }
    const got = await fetchOne(url, o, Math.min(caps.bytesEach, caps.bytesTotal - total));
    if ('why' in got) {
      leftOut(got.why);
      continue;
    }
    const image = sniffImage(got.bytes);
    if (!image) leftOut('not a PNG, JPEG, GIF or WebP image');
    else if (image.width * image.height > caps.pixels)
      leftOut(`${image.width}×${image.height} pixels, over the limit of ${caps.pixels}`);
    else {
      total += got.bytes.length;
      sent++;
      results.push({ url, status: 'sent', mimeType: image.mimeType, bytes: got.bytes });
    }
  }
  return results;
}

/** One image's bytes (at most `max`), or why not. */
async function fetchOne(
  url: string,
  o: FetchImagesOptions,
  max: number,
): Promise<{ bytes: Uint8Array } | { why: string }> {
  const origin = new URL(url).origin;
  let at = url;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      // The token goes to the server the URL named, never to where it redirects.
      const sameOrigin = new URL(at).origin === origin;
      const res = await fetch(at, {
        redirect: 'manual',
        headers: { accept: 'image/*', ...(sameOrigin ? { authorization: `Bearer ${o.token}` } : {}) },
        signal: o.signal,
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        const next = res.headers.get('location');
        if (!next) return { why: `redirected (HTTP ${res.status}) without a location` };
        at = new URL(next, at).href;
        if (!isGitHubRedirect(at, o.hosts)) return { why: 'redirected off GitHub, so not followed' };
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        return { why: `HTTP ${res.status}` };
      }
      return await readCapped(res, max);
    }
    return { why: `more than ${MAX_REDIRECTS} redirects` };
  } catch (e) {
    return { why: `could not be fetched (${messageOf(e)})` };
  }
}

async function readCapped(res: Response, max: number): Promise<{ bytes: Uint8Array } | { why: string }> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    return { why: `${declared} bytes, over the limit of ${max}` };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > max) return { why: `over the limit of ${max} bytes` };
    chunks.push(chunk as Uint8Array);
  }
  return { bytes: Buffer.concat(chunks) };
}
