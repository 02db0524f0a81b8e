/**
 * Mentions GitHub would link and notify, after its mention filter (html-pipeline's MentionFilter):
 * `@` at the start or after a non-word character, then a login `[a-z0-9][a-z0-9-]*`, optionally
 * `/team`. Written from GitHub's pattern, independently of the code under test. Code spans and
 * blocks are not exempted here: a test that uses this wants none anywhere.
 */
const LIVE_MENTION = /(?:^|[^A-Za-z0-9_])@([A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][A-Za-z0-9_-]*)?)/g;

export const liveMentions = (s: string): string[] => [...s.matchAll(LIVE_MENTION)].map((m) => m[1]);
