/**
 * Randomness, injectable so tests can be deterministic.
 *
 * @module
 */

/** Fills and returns `n` random bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/** The CSPRNG (WebCrypto `getRandomValues`), in chunks it accepts. */
export const cryptoRandom: RandomBytes = (n) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) {
    globalThis.crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  }
  return out;
};

/**
 * Draws `count` characters uniformly from `alphabet` (at most 256 symbols) by
 * rejection sampling: a byte is masked to the smallest covering power of two
 * and redrawn while out of range, as Go's `crypto/rand.Int` does, so there is
 * no modulo bias.
 *
 * @example
 * ```ts
 * randomString(6, "0123456789abcdefghijklmnopqrstuvwxyz"); // e.g. "k3x9q0"
 * ```
 */
export function randomString(
  count: number,
  alphabet: string,
  random: RandomBytes = cryptoRandom,
): string {
  const n = alphabet.length;
  if (n < 1 || n > 256) throw new RangeError("alphabet must have 1 to 256 symbols");
  let mask = 1;
  while (mask < n) mask <<= 1;
  mask -= 1;
  let out = "";
  while (out.length < count) {
    const buf = random(Math.max(16, (count - out.length) * 2));
    for (const b of buf) {
      const x = b & mask;
      if (x < n) {
        out += alphabet[x];
        if (out.length === count) break;
      }
    }
  }
  return out;
}
