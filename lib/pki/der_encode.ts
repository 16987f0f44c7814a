/**
 * DER encoding: tag-length-value assembly for the few structures joinkit
 * builds byte by byte (the certificates `csr sign` issues), without a schema
 * library in the per-object path.
 *
 * @module
 */

/** The DER length octets for a content of `n` bytes (definite form, minimal). */
function lengthOctets(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
}

/**
 * One DER element: `tag`, the minimal length, then `parts` concatenated.
 *
 * @example
 * ```ts
 * derTlv(0x04, new Uint8Array([1, 2])); // Uint8Array [4, 2, 1, 2]
 * ```
 */
export function derTlv(tag: number, ...parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const len = lengthOctets(n);
  const out = new Uint8Array(1 + len.length + n);
  out[0] = tag;
  out.set(len, 1);
  let off = 1 + len.length;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/**
 * A positive INTEGER from big-endian magnitude bytes, as Go's `big.Int`
 * marshals it: leading zero bytes dropped, a zero byte added when the top bit
 * is set.
 *
 * @example
 * ```ts
 * derPositiveInteger(new Uint8Array([0, 0x80])); // Uint8Array [2, 2, 0, 0x80]
 * ```
 */
export function derPositiveInteger(magnitude: Uint8Array): Uint8Array {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const m = magnitude.subarray(i);
  if (m.length > 0 && m[0]! & 0x80) return derTlv(0x02, new Uint8Array([0]), m);
  return derTlv(0x02, m.length ? m : new Uint8Array([0]));
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/**
 * An X.509 `Time` as Go's `crypto/x509` writes it: UTCTime for the years 1950
 * to 2049, GeneralizedTime otherwise; whole seconds, UTC.
 *
 * @example
 * ```ts
 * derTime(new Date("2026-01-02T03:04:05Z")); // UTCTime "260102030405Z"
 * ```
 */
export function derTime(d: Date): Uint8Array {
  const y = d.getUTCFullYear();
  const rest = pad(d.getUTCMonth() + 1, 2) + pad(d.getUTCDate(), 2) + pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) + pad(d.getUTCSeconds(), 2) + "Z";
  const utc = y >= 1950 && y < 2050;
  const text = (utc ? pad(y % 100, 2) : pad(y, 4)) + rest;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return derTlv(utc ? 0x17 : 0x18, bytes);
}

/**
 * An OBJECT IDENTIFIER from its dotted form.
 *
 * @example
 * ```ts
 * derOid("2.5.4.3"); // Uint8Array [6, 3, 85, 4, 3]
 * ```
 */
export function derOid(oid: string): Uint8Array {
  const arcs = oid.split(".").map((a) => BigInt(a));
  const bytes: number[] = [];
  const push = (v: bigint) => {
    const out = [Number(v & 0x7fn)];
    for (v >>= 7n; v > 0n; v >>= 7n) out.unshift(Number(v & 0x7fn) | 0x80);
    bytes.push(...out);
  };
  push(arcs[0]! * 40n + (arcs[1] ?? 0n));
  for (const a of arcs.slice(2)) push(a);
  return derTlv(0x06, new Uint8Array(bytes));
}
