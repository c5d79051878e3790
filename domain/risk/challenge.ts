import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * One-time codes: 6 digits, kept only as a hash salted with the challenge id, compared in
 * constant time. A code lives CODE_TTL_MS; its attempts and starts are bounded as every one-time
 * code's are (../one-time-codes.ts).
 */
export const CODE_TTL_MS = 10 * 60_000;

/** `random` is an integer in [0, 1e6) (crypto.randomInt in production). */
export const formatCode = (random: number): string => String(random).padStart(6, '0');

export const codeHash = (challengeId: string, code: string): string => createHash('sha256').update(`${challengeId}:${code}`).digest('hex');

export function codeMatches(challengeId: string, code: string, storedHash: string): boolean {
  const a = Buffer.from(codeHash(challengeId, code), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
