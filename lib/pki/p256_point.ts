/**
 * The P-256 public key point check of Go's `elliptic.Unmarshal` (crypto/ecdh
 * and crypto/internal/nistec `P256Point.SetBytes` for the uncompressed form)
 * on Number limbs: both coordinates below p and y² = x³ − 3x + b (mod p).
 * A fleet checks one point per certificate or CSR; BigInts made from hex
 * texts cost ~3–4 µs a point, this well under one.
 *
 * Numbers are 16 little-endian limbs of 16 bits in Float64Arrays: a product
 * of two limbs is below 2³², a column of sixteen below 2³⁶, all exact in a
 * double. Reduction folds 2²⁵⁶ ≡ 2²²⁴ − 2¹⁹² − 2⁹⁶ + 1 (mod p), whose
 * exponents are whole limbs.
 *
 * @module
 */

const LIMBS = 16;
const BASE = 65536;
/** 2⁻¹⁶: a product by it is exact (a power of two), where a division is slower. */
const INV_BASE = 1 / BASE;

/** Big-endian hex of 32 bytes as 16 little-endian 16-bit limbs. */
function limbsOfHex(hex: string): Float64Array {
  const out = new Float64Array(LIMBS);
  for (let i = 0; i < LIMBS; i++) {
    out[i] = parseInt(hex.slice(hex.length - 4 * (i + 1), hex.length - 4 * i), 16);
  }
  return out;
}

/** p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1. */
const P = limbsOfHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
/** The curve's b. */
const B = limbsOfHex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b");

// Scratch space (the check allocates nothing).
const X = new Float64Array(LIMBS);
const Y = new Float64Array(LIMBS);
const X2 = new Float64Array(LIMBS);
const OUT = new Float64Array(LIMBS);
const WIDE = new Float64Array(2 * LIMBS);

/** `out` = the 32 big-endian bytes `b[at:at+32]` as limbs. */
function readLimbs(b: Uint8Array, at: number, out: Float64Array): void {
  for (let i = 0; i < LIMBS; i++) {
    const j = at + 30 - 2 * i;
    out[i] = b[j]! * 256 + b[j + 1]!;
  }
}

/** Whether the canonical limbs `a` are below p. */
function belowP(a: Float64Array): boolean {
  for (let i = LIMBS - 1; i >= 0; i--) {
    if (a[i] !== P[i]) return a[i]! < P[i]!;
  }
  return false;
}

/** Carries `w[0:n]` (signed values) into limbs in [0, 2¹⁶) but the last, which takes the carry. */
function carry(w: Float64Array, n: number): void {
  let c = 0;
  for (let i = 0; i < n - 1; i++) {
    const v = w[i]! + c;
    c = Math.floor(v * INV_BASE);
    w[i] = v - c * BASE;
  }
  w[n - 1] = w[n - 1]! + c;
}

/**
 * `out` = `w[0:top+1]` mod p, canonical (in [0, p)); `w` holds signed limbs
 * (column sums of a product at most: below 2³⁷ in magnitude) and is
 * overwritten. Limbs past 16 are folded before any carry: the chain of folds
 * grows them at most ~2⁸-fold, far below 2⁵³.
 */
function reduce(w: Float64Array, top: number, out: Float64Array): void {
  for (;;) {
    // Fold every limb at 16 and above: v·2^(16k) = v·2^(16(k-16))·2²⁵⁶. A fold into a
    // limb still above 16 (k - 2) is folded later in the same pass.
    for (let k = top; k >= LIMBS; k--) {
      const v = w[k]!;
      if (v === 0) continue;
      w[k] = 0;
      const j = k - LIMBS;
      w[j + 14] = w[j + 14]! + v;
      w[j + 12] = w[j + 12]! - v;
      w[j + 6] = w[j + 6]! - v;
      w[j] = w[j]! + v;
    }
    carry(w, LIMBS + 1);
    if (w[LIMBS] === 0) break;
    top = LIMBS;
  }
  for (let i = 0; i < LIMBS; i++) out[i] = w[i]!;
  // Now 0 ≤ out < 2²⁵⁶ < 2p: at most one subtraction.
  if (!belowP(out)) {
    let c = 0;
    for (let i = 0; i < LIMBS; i++) {
      const v = out[i]! - P[i]! + c;
      c = Math.floor(v * INV_BASE);
      out[i] = v - c * BASE;
    }
  }
}

/** `w` += a·b (column sums, unreduced); `sign` is 1 or -1. */
function mulAdd(a: Float64Array, b: Float64Array, sign: number, w: Float64Array): void {
  for (let i = 0; i < LIMBS; i++) {
    const ai = sign * a[i]!;
    for (let j = 0; j < LIMBS; j++) w[i + j] = w[i + j]! + ai * b[j]!;
  }
}

/** `w` += a² (column sums, unreduced; each cross product once, doubled). */
function sqrAdd(a: Float64Array, w: Float64Array): void {
  for (let i = 0; i < LIMBS; i++) {
    const ai = a[i]!;
    const d = 2 * ai;
    w[2 * i] = w[2 * i]! + ai * ai;
    for (let j = i + 1; j < LIMBS; j++) w[i + j] = w[i + j]! + d * a[j]!;
  }
}

/**
 * Whether `data` is an uncompressed P-256 point Go's `elliptic.Unmarshal`
 * accepts: `04 ‖ x ‖ y` (65 bytes), x and y below p, on the curve. The
 * point at infinity, compressed and hybrid forms are refused, as in Go.
 */
export function p256PointValid(data: Uint8Array): boolean {
  if (data.length !== 65 || data[0] !== 4) return false;
  readLimbs(data, 1, X);
  readLimbs(data, 33, Y);
  if (!belowP(X) || !belowP(Y)) return false;
  // y² − x·(x² mod p) + 3x − b, reduced once: zero when the point is on the curve. Column
  // sums stay below 2³⁸ in magnitude; folding grows them to at most ~2⁴⁵.
  const w = WIDE;
  w.fill(0);
  sqrAdd(X, w);
  reduce(w, 2 * LIMBS - 2, X2);
  w.fill(0);
  sqrAdd(Y, w);
  mulAdd(X2, X, -1, w);
  for (let i = 0; i < LIMBS; i++) w[i] = w[i]! + 3 * X[i]! - B[i]!;
  reduce(w, 2 * LIMBS - 2, OUT);
  for (let i = 0; i < LIMBS; i++) if (OUT[i] !== 0) return false;
  return true;
}
