/**
 * RSA key generation as Go's `rsa.GenerateKey` does it (two primes of half
 * the size with their two top bits set, e = 65537), with the primality
 * tests done by OpenSSL (`crypto.checkPrime`) after a sieve over the first
 * 2,048 odd primes, from CSPRNG candidates. The call asks for 20
 * Miller–Rabin rounds, but OpenSSL 3 (every Node this runs on) raises any
 * smaller count to 64 for candidates of up to 2,048 bits
 * (`ossl_bn_check_prime`'s `bn_mr_min_checks`; measured on Node 20 /
 * OpenSSL 3.0.19 with a 1024-bit prime: `checks` 1 and 64 cost the same
 * 12.7 ms of CPU, 128 twice that, 256 four times). So 64 rounds run: a
 * composite passes with probability below 2^-128 even when chosen by an
 * adversary; FIPS 186-5 table B.1 asks 5 rounds for random 1024-bit
 * candidates. The search walks from a random odd start by 2 (as OpenSSL's
 * `probable_prime` does; Go 1.23's `rand.Prime` draws a fresh candidate each
 * time), which favours primes after long gaps by a few bits of entropy at
 * most; d is 65537^-1 mod (p−1)(q−1), as Go 1.23's `rsa.GenerateKey`
 * computes it (OpenSSL's `pkey -check` accepts it). The BigInt arithmetic is
 * not constant-time, nor is Go 1.23's `math/big` key generation: a key is
 * made on the machine that keeps it.
 *
 * Why not `generateKeyPair("rsa")`: on Node, OpenSSL 3's RSA key generation
 * costs about three times the CPU of this (16 RSA-2048 keys, what a whole
 * kubeadm tree needs: ~0.7 s against ~1.9 s on the development machine;
 * measured, not explained), more than Go's. The
 * tests run in node:crypto's thread pool (asynchronous `checkPrime`), so
 * several keys are made in parallel. The key is checked before it is
 * returned: e·dp ≡ 1 (mod p−1), e·dq ≡ 1 (mod q−1), q·qi ≡ 1 (mod p)
 * (OpenSSL's signing would hide a bad CRT parameter by falling back to d),
 * OpenSSL imports it, and a signature made with it verifies.
 *
 * @module
 */

import {
  checkPrime,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from "node:crypto";
import { Buffer } from "node:buffer";

const E = 65537n;

let small: number[] | undefined;

/** The first 2,048 odd primes (3, 5, 7, …), made once. */
function smallPrimes(): number[] {
  if (small) return small;
  const out: number[] = [];
  for (let i = 3; out.length < 2048; i += 2) {
    let prime = true;
    for (const s of out) {
      if (s * s > i) break;
      if (i % s === 0) {
        prime = false;
        break;
      }
    }
    if (prime) out.push(i);
  }
  return (small = out);
}

function isPrime(c: bigint): Promise<boolean> {
  return new Promise((resolve, reject) =>
    checkPrime(c, { checks: 20 }, (err, ok) => (err ? reject(err) : resolve(ok)))
  );
}

/**
 * A random prime of exactly `bits` bits with its top two bits set and
 * p − 1 prime to 65537.
 */
async function randomPrime(bits: number): Promise<bigint> {
  const primes = smallPrimes();
  for (;;) {
    const b = randomBytes(bits / 8);
    b[0] = b[0]! | 0xc0;
    b[b.length - 1] = b[b.length - 1]! | 1;
    const base = BigInt("0x" + b.toString("hex"));
    const residues = primes.map((s) => Number(base % BigInt(s)));
    // Candidates base, base + 2, …: sieved by their residues, then tested by OpenSSL.
    for (let delta = 0; delta < 1 << 16; delta += 2) {
      let composite = false;
      for (let i = 0; i < primes.length; i++) {
        if ((residues[i]! + delta) % primes[i]! === 0) {
          composite = true;
          break;
        }
      }
      if (composite) continue;
      const c = base + BigInt(delta);
      if ((c - 1n) % E === 0n) continue;
      if (c >> BigInt(bits - 2) !== 3n) break; // ran past the top bits: draw again
      if (await isPrime(c)) return c;
    }
  }
}

function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [a % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

function b64u(x: bigint): string {
  let h = x.toString(16);
  if (h.length % 2) h = "0" + h;
  return Buffer.from(h, "hex").toString("base64url");
}

/**
 * A new RSA private key of `bits` (2048, 3072, 4096) with e = 65537, as a
 * `node:crypto` KeyObject.
 *
 * @example
 * ```ts ignore
 * const key = await generateRsaKeyObject(2048);
 * key.asymmetricKeyDetails?.modulusLength; // 2048
 * ```
 */
export async function generateRsaKeyObject(bits: number): Promise<KeyObject> {
  for (;;) {
    const [p, q] = await Promise.all([randomPrime(bits / 2), randomPrime(bits / 2)]);
    if (p === q) continue;
    const n = p * q;
    if (n.toString(2).length !== bits) continue;
    const d = modInverse(E, (p - 1n) * (q - 1n));
    const dp = d % (p - 1n);
    const dq = d % (q - 1n);
    const qi = modInverse(q, p);
    // OpenSSL's private operation checks a CRT result and falls back to d when it is wrong,
    // so the signature below cannot catch a bad CRT parameter: check them here (what
    // RSA_check_key and Go's Validate check), then the signature through OpenSSL.
    if ((E * dp) % (p - 1n) !== 1n || (E * dq) % (q - 1n) !== 1n || (q * qi) % p !== 1n) {
      throw new Error("generated RSA key failed its self-check");
    }
    const key = createPrivateKey({
      key: {
        kty: "RSA",
        n: b64u(n),
        e: b64u(E),
        d: b64u(d),
        p: b64u(p),
        q: b64u(q),
        dp: b64u(dp),
        dq: b64u(dq),
        qi: b64u(qi),
      },
      format: "jwk",
    });
    const probe = Buffer.from("joinkit rsa key check");
    if (!verify("sha256", probe, createPublicKey(key), sign("sha256", probe, key))) {
      throw new Error("generated RSA key failed its self-check");
    }
    return key;
  }
}
