/**
 * The first 12 bytes of SHA-256 of a short ASCII string (FIPS 180-4), computed in JavaScript and
 * written where the caller wants them.
 *
 * Why: an event id's digest (event-ids.ts) is taken once per counted event. Node's one-shot
 * `crypto.hash` spends most of its time crossing into C++ and allocating its answer, not hashing:
 * about 0.9 µs for an id of a few characters against 0.3 µs for the one block here, with nothing
 * allocated. Ids of up to 55 ASCII characters fit one block; any other string is left to the caller.
 */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
/** The initial hash value H(0). */
const H = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
/** The message schedule, reused by every call (one thread, no call re-enters). */
const W = new Int32Array(64);

/** The longest string one padded 64-byte block holds: its bytes, 0x80, then its bit length in 8 bytes. */
export const ONE_BLOCK_CHARS = 55;

/**
 * Writes bytes 0-11 of SHA-256(s) to out[at..at+12) and answers true when `s` is ASCII of at most
 * ONE_BLOCK_CHARS characters; answers false, writing nothing, otherwise.
 */
export function sha256Head12(s: string, out: Uint8Array, at: number): boolean {
  const n = s.length;
  if (n > ONE_BLOCK_CHARS) return false;
  W.fill(0, 0, 16);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return false;
    W[i >> 2]! |= c << (24 - 8 * (i & 3));
  }
  W[n >> 2]! |= 0x80 << (24 - 8 * (n & 3));
  W[15] = 8 * n;
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15]!;
    const w2 = W[t - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
  }
  let a = H[0]!, b = H[1]!, c = H[2]!, d = H[3]!, e = H[4]!, f = H[5]!, g = H[6]!, h = H[7]!;
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t]! + W[t]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  word(out, at, a + H[0]!);
  word(out, at + 4, b + H[1]!);
  word(out, at + 8, c + H[2]!);
  return true;
}

/** A 32-bit word, big-endian. */
function word(out: Uint8Array, at: number, v: number): void {
  out[at] = v >>> 24;
  out[at + 1] = v >>> 16;
  out[at + 2] = v >>> 8;
  out[at + 3] = v;
}
