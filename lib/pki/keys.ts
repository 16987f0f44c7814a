/**
 * Private keys: generation (WebCrypto), PEM export in the formats kubeadm and
 * client-go write (`keyutil.MarshalPrivateKeyToPEM`: RSA as PKCS#1
 * `RSA PRIVATE KEY`, ECDSA as SEC 1 `EC PRIVATE KEY`, Ed25519 as PKCS#8
 * `PRIVATE KEY`), and PEM import of PKCS#1, SEC 1 and PKCS#8 keys.
 *
 * Format conversion goes through `node:crypto` key objects, which Deno and
 * Node 20 both provide; signing keys are WebCrypto `CryptoKey`s. Errors name
 * the input and never include key material.
 *
 * @module
 */

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair as nodeGenerateKeyPair,
  type KeyObject,
} from "node:crypto";
import { Buffer } from "node:buffer";
import { decodePem } from "./pem.ts";
import { InputError } from "../base/errors.ts";

/** The key types joinkit generates. */
export type KeyType =
  | "rsa-2048"
  | "rsa-3072"
  | "rsa-4096"
  | "ecdsa-p256"
  | "ecdsa-p384"
  | "ed25519";

/** Every {@link KeyType}, in the order help texts list them. */
export const KEY_TYPES: readonly KeyType[] = [
  "rsa-2048",
  "rsa-3072",
  "rsa-4096",
  "ecdsa-p256",
  "ecdsa-p384",
  "ed25519",
];

/** kubeadm's default key type (`EncryptionAlgorithm: RSA-2048`). */
export const DEFAULT_KEY_TYPE: KeyType = "rsa-2048";

const RSA_EXPONENT = new Uint8Array([1, 0, 1]);

/** The WebCrypto key-generation parameters for a key type. */
function generationParams(type: KeyType): RsaHashedKeyGenParams | EcKeyGenParams | Algorithm {
  switch (type) {
    case "rsa-2048":
    case "rsa-3072":
    case "rsa-4096":
      return {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: Number(type.slice(4)),
        publicExponent: RSA_EXPONENT,
        hash: "SHA-256",
      };
    case "ecdsa-p256":
      return { name: "ECDSA", namedCurve: "P-256" };
    case "ecdsa-p384":
      return { name: "ECDSA", namedCurve: "P-384" };
    case "ed25519":
      return { name: "Ed25519" };
  }
}

/**
 * Generates an extractable key pair with the CSPRNG. RSA keys are bound to
 * RSASSA-PKCS1-v1_5 with SHA-256; ECDSA keys sign with SHA-256 (P-256) or
 * SHA-384 (P-384), as Go's x509 picks (see {@link signingAlgorithm}).
 *
 * @example
 * ```ts
 * const { privateKey, publicKey } = await generateKeyPair("ecdsa-p256");
 * ```
 */
export async function generateKeyPair(type: KeyType): Promise<CryptoKeyPair> {
  return await globalThis.crypto.subtle.generateKey(
    generationParams(type),
    true,
    ["sign", "verify"],
  ) as CryptoKeyPair;
}

/**
 * The signature algorithm Go's `x509.CreateCertificate` picks for a key:
 * SHA-256 with RSA, ECDSA with SHA-256 (P-256) / SHA-384 (P-384) / SHA-512
 * (P-521), or Ed25519. In the shape WebCrypto takes.
 */
export function signingAlgorithm(key: CryptoKey): Algorithm & { hash?: string } {
  const alg = key.algorithm as Algorithm & { namedCurve?: string };
  switch (alg.name) {
    case "RSASSA-PKCS1-v1_5":
      return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    case "ECDSA":
      return {
        name: "ECDSA",
        hash: alg.namedCurve === "P-384"
          ? "SHA-384"
          : alg.namedCurve === "P-521"
          ? "SHA-512"
          : "SHA-256",
      };
    case "Ed25519":
      return { name: "Ed25519" };
    default:
      throw new InputError(`unsupported key algorithm ${alg.name}`);
  }
}

/** A short human description of a CryptoKey, e.g. `RSA 2048`, `ECDSA P-256`, `Ed25519`. */
export function describeKey(key: CryptoKey): string {
  const alg = key.algorithm as Algorithm & { namedCurve?: string; modulusLength?: number };
  if (alg.name.startsWith("RSA")) return `RSA ${alg.modulusLength}`;
  if (alg.name === "ECDSA") return `ECDSA ${alg.namedCurve}`;
  return alg.name;
}

/**
 * Encodes a private key as kubeadm writes `ca.key` (client-go
 * `keyutil.MarshalPrivateKeyToPEM`): RSA → PKCS#1 `RSA PRIVATE KEY`, ECDSA →
 * SEC 1 `EC PRIVATE KEY`, Ed25519 → PKCS#8 `PRIVATE KEY`. The key must be
 * extractable.
 *
 * @example
 * ```ts ignore
 * const pem = await exportPrivateKeyPem(pair.privateKey); // "-----BEGIN EC PRIVATE KEY-----\n…"
 * ```
 */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey("pkcs8", key));
  const obj = createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
  const kind = obj.asymmetricKeyType;
  const type = kind === "rsa" ? "pkcs1" : kind === "ec" ? "sec1" : "pkcs8";
  return String(obj.export({ type, format: "pem" }));
}

/** A private key read from PEM, with its public half. */
export interface LoadedKey {
  /** The signing key (WebCrypto, extractable). */
  privateKey: CryptoKey;
  /** Its public key (WebCrypto). */
  publicKey: CryptoKey;
  /** The DER SubjectPublicKeyInfo of the public key. */
  spki: Uint8Array;
  /** e.g. `RSA 2048`, `ECDSA P-256`, `Ed25519`. */
  description: string;
  /** The same private key for synchronous `node:crypto` signing. */
  keyObject?: KeyObject;
}

const KEY_BLOCKS: Record<string, "pkcs1" | "sec1" | "pkcs8"> = {
  "RSA PRIVATE KEY": "pkcs1",
  "EC PRIVATE KEY": "sec1",
  "PRIVATE KEY": "pkcs8",
};

const CURVES: Record<string, string> = {
  prime256v1: "P-256",
  secp384r1: "P-384",
  secp521r1: "P-521",
};

/**
 * Reads the first private key in PEM `text`: PKCS#1 (`RSA PRIVATE KEY`),
 * SEC 1 (`EC PRIVATE KEY`, P-256/P-384/P-521) or PKCS#8 (`PRIVATE KEY`:
 * RSA, EC, Ed25519). Refuses encrypted keys and other types with one line
 * naming `source`, never showing key material.
 *
 * @example
 * ```ts ignore
 * const key = await importPrivateKeyPem(text, "ca.key");
 * key.description; // "RSA 2048"
 * ```
 */
export async function importPrivateKeyPem(text: string, source: string): Promise<LoadedKey> {
  const blocks = decodePem(text, source);
  if (blocks.some((b) => b.type === "ENCRYPTED PRIVATE KEY")) {
    throw new InputError(`${source}: encrypted private keys are not supported; decrypt it first`);
  }
  const block = blocks.find((b) => b.type in KEY_BLOCKS);
  if (block === undefined) {
    const found = [...new Set(blocks.map((b) => b.type))].join(", ");
    throw new InputError(
      `${source}: no private key found${found ? ` (found ${found})` : ""}`,
    );
  }
  if ((block.headers["Proc-Type"] ?? "").includes("ENCRYPTED")) {
    throw new InputError(`${source}: encrypted private keys are not supported; decrypt it first`);
  }
  let obj: KeyObject;
  try {
    obj = createPrivateKey({
      key: Buffer.from(block.der),
      format: "der",
      type: KEY_BLOCKS[block.type]!,
    });
  } catch {
    throw new InputError(`${source}: malformed ${block.type} block`);
  }
  const kind = obj.asymmetricKeyType;
  let alg: RsaHashedImportParams | EcKeyImportParams | Algorithm;
  let description: string;
  if (kind === "rsa") {
    alg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    description = `RSA ${obj.asymmetricKeyDetails?.modulusLength}`;
  } else if (kind === "ec") {
    const curve = CURVES[obj.asymmetricKeyDetails?.namedCurve ?? ""];
    if (curve === undefined) {
      throw new InputError(
        `${source}: unsupported EC curve ${obj.asymmetricKeyDetails?.namedCurve ?? "(unknown)"}`,
      );
    }
    alg = { name: "ECDSA", namedCurve: curve };
    description = `ECDSA ${curve}`;
  } else if (kind === "ed25519") {
    alg = { name: "Ed25519" };
    description = "Ed25519";
  } else {
    throw new InputError(`${source}: unsupported private key type ${kind ?? "(unknown)"}`);
  }
  const pkcs8 = obj.export({ type: "pkcs8", format: "der" });
  const spki = new Uint8Array(createPublicKey(obj).export({ type: "spki", format: "der" }));
  const subtle = globalThis.crypto.subtle;
  try {
    const privateKey = await subtle.importKey("pkcs8", pkcs8, alg, true, ["sign"]);
    const publicKey = await subtle.importKey("spki", spki, alg, true, ["verify"]);
    return { privateKey, publicKey, spki, description, keyObject: obj };
  } catch {
    throw new InputError(`${source}: ${description} key not usable on this runtime`);
  }
}

/** The DER SubjectPublicKeyInfo of a public (or private) CryptoKey. */
export async function exportSpki(key: CryptoKey): Promise<Uint8Array> {
  if (key.type === "private") {
    const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey("pkcs8", key));
    const obj = createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
    return new Uint8Array(createPublicKey(obj).export({ type: "spki", format: "der" }));
  }
  return new Uint8Array(await globalThis.crypto.subtle.exportKey("spki", key));
}

/** Whether two DER SubjectPublicKeyInfos are the same key (byte equality). */
export function publicKeyMatches(spkiA: Uint8Array, spkiB: Uint8Array): boolean {
  return spkiA.length === spkiB.length && spkiA.every((b, i) => b === spkiB[i]);
}

/**
 * Generates a private key as a `node:crypto` KeyObject, off the main thread
 * (node:crypto's asynchronous `generateKeyPair`, which runs in the thread
 * pool): many keys requested together are made in parallel. RSA keys use
 * e = 65537, as Go's `rsa.GenerateKey`.
 *
 * @example
 * ```ts ignore
 * const key = await generateKeyObject("rsa-2048");
 * ```
 */
export function generateKeyObject(type: KeyType): Promise<KeyObject> {
  if (type.startsWith("rsa-") && !underDeno()) {
    // Node (the binary): a sieve before OpenSSL's prime tests costs a third of
    // OpenSSL's own RSA key generation (rsa_keygen.ts). Deno's checkPrime is slower
    // than its key generation, so deno run keeps generateKeyPair.
    return import("./rsa_keygen.ts").then((m) => m.generateRsaKeyObject(Number(type.slice(4))));
  }
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, _pub: KeyObject, priv: KeyObject) =>
      err ? reject(new InputError(`key generation failed: ${err.message}`)) : resolve(priv);
    switch (type) {
      case "rsa-2048":
      case "rsa-3072":
      case "rsa-4096":
        nodeGenerateKeyPair(
          "rsa",
          { modulusLength: Number(type.slice(4)), publicExponent: 65537 },
          done,
        );
        return;
      case "ecdsa-p256":
        nodeGenerateKeyPair("ec", { namedCurve: "P-256" }, done);
        return;
      case "ecdsa-p384":
        nodeGenerateKeyPair("ec", { namedCurve: "P-384" }, done);
        return;
      case "ed25519":
        nodeGenerateKeyPair("ed25519", {}, done);
        return;
    }
  });
}

/** Whether this runs under `deno run` (Deno's node:crypto), not Node. */
function underDeno(): boolean {
  return (globalThis as { process?: { versions?: { deno?: string } } }).process?.versions?.deno !==
    undefined;
}

/**
 * A KeyObject's private key as client-go's `keyutil.MarshalPrivateKeyToPEM`
 * writes it: RSA → PKCS #1 `RSA PRIVATE KEY`, ECDSA → SEC 1 `EC PRIVATE KEY`,
 * others → PKCS #8 `PRIVATE KEY`.
 */
export function keyObjectPem(key: KeyObject): string {
  const kind = key.asymmetricKeyType;
  const type = kind === "rsa" ? "pkcs1" : kind === "ec" ? "sec1" : "pkcs8";
  return String(key.export({ type, format: "pem" }));
}

/** The DER SubjectPublicKeyInfo of a KeyObject (private or public). */
export function keyObjectSpki(key: KeyObject): Uint8Array {
  return new Uint8Array(createPublicKey(key).export({ type: "spki", format: "der" }));
}
