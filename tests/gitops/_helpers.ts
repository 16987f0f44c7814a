/**
 * Test helpers for the GitOps formats: a seeded randomness source (so whole
 * outputs can be pinned), and readers that open SealedSecrets and SOPS
 * documents with code other than lib/gitops: OpenSSL's RSA-OAEP through
 * node:crypto `privateDecrypt`, and the age reference implementation
 * (`age-encryption`'s Decrypter).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { constants, createDecipheriv, createHash, privateDecrypt } from "node:crypto";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { repoPath } from "../_cli.ts";

/** The fixtures directory. */
export const FIXTURES = repoPath("tests/fixtures/gitops");

/** A fixture file's text. */
export function fixture(name: string): string {
  return fs.readFileSync(`${FIXTURES}/${name}`, "utf8");
}

/** Deterministic "random" bytes: SHA-256(seed ‖ counter) blocks, for pinned outputs. */
export function seededRandom(seed: string): (n: number) => Uint8Array {
  let counter = 0;
  let pool = new Uint8Array(0);
  return (n) => {
    while (pool.length < n) {
      const block = createHash("sha256").update(`${seed}:${counter++}`).digest();
      pool = new Uint8Array([...pool, ...block]);
    }
    const out = pool.slice(0, n);
    pool = pool.slice(n);
    return out;
  };
}

/**
 * Sealed Secrets' `HybridDecrypt` with OpenSSL: `uint16 len ‖ RSA-OAEP-SHA256
 * (label) ‖ AES-256-GCM (zero nonce)`. Throws on a wrong label or key.
 */
export function unsealBlob(keyPem: string, blobB64: string, label: string): Uint8Array {
  const blob = Buffer.from(blobB64, "base64");
  const n = blob.readUInt16BE(0);
  const sessionKey = privateDecrypt({
    key: keyPem,
    padding: constants.RSA_PKCS1_OAEP_PADDING,
    oaepHash: "sha256",
    oaepLabel: Buffer.from(label, "utf8"),
  }, blob.subarray(2, 2 + n));
  const body = blob.subarray(2 + n);
  const d = createDecipheriv("aes-256-gcm", sessionKey, new Uint8Array(12));
  d.setAuthTag(body.subarray(body.length - 16));
  return new Uint8Array(Buffer.concat([d.update(body.subarray(0, body.length - 16)), d.final()]));
}

/** The sops data key of an armored `enc` block, opened by age's reference implementation. */
export async function ageOpen(identityFile: string, armored: string): Promise<Uint8Array> {
  const { Decrypter, armor } = await import("age-encryption");
  const identity = fs.readFileSync(identityFile, "utf8").split("\n").find((l) =>
    l.startsWith("AGE-SECRET-KEY-1")
  )!;
  const d = new Decrypter();
  d.addIdentity(identity);
  return await d.decrypt(armor.decode(armored));
}

/** Whether a judge tool runs here (`tool --version`); tests that need it are reported ignored otherwise. */
export function hasTool(tool: string, args: string[] = ["--version"]): boolean {
  try {
    execFileSync(tool, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
