/**
 * Randomness, injectable so tests can be deterministic.
 *
 * @module
 */

/** Fills and returns `n` random bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/**
 * Fills `out` from WebCrypto's CSPRNG (`getRandomValues`), in the chunks it
 * accepts.
 */
export function webCryptoFill(out: Uint8Array): void {
  for (let i = 0; i < out.length; i += 65536) {
    globalThis.crypto.getRandomValues(out.subarray(i, Math.min(out.length, i + 65536)));
  }
}

/** The CSPRNG {@link cryptoRandom} fills from: WebCrypto unless the process chose another. */
let source: (out: Uint8Array) => void = webCryptoFill;

/**
 * Makes `fill` the CSPRNG of {@link cryptoRandom} for the rest of the process
 * (undefined: WebCrypto again). main.ts gives the single binary the kernel's
 * (lib/base/kernel_random.ts), which it reads without loading WebCrypto.
 */
export function setCsprngSource(fill: ((out: Uint8Array) => void) | undefined): void {
  source = fill ?? webCryptoFill;
}

function fillRandom(out: Uint8Array): void {
  source(out);
}

/**
 * Small draws (a serial number, a token) come from a pool filled by one
 * CSPRNG call per 4 KiB: each call costs microseconds whatever its size, and a
 * fleet makes 100,000 draws. Every pool byte is handed out once and zeroed.
 */
const POOL = new Uint8Array(4096);
let poolAt = POOL.length;

/** The CSPRNG (WebCrypto `getRandomValues`, or the source set by {@link setCsprngSource}). */
export const cryptoRandom: RandomBytes = (n) => {
  if (n > 256) {
    const out = new Uint8Array(n);
    fillRandom(out);
    return out;
  }
  if (poolAt + n > POOL.length) {
    fillRandom(POOL);
    poolAt = 0;
  }
  const out = POOL.slice(poolAt, poolAt + n);
  POOL.fill(0, poolAt, poolAt + n);
  poolAt += n;
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
