/**
 * Bitnami Sealed Secrets, offline: the `SealedSecret` (`bitnami.com/v1alpha1`)
 * that `kubeseal --cert CONTROLLER.crt` writes for a Secret
 * (bitnami-labs/sealed-secrets `pkg/kubeseal/kubeseal.go` `Seal`,
 * `pkg/apis/sealedsecrets/v1alpha1/sealedsecret_expansion.go`
 * `NewSealedSecret`, `pkg/crypto/crypto.go` `HybridEncrypt`).
 *
 * Every value is sealed on its own: a fresh 32-byte AES-256-GCM session key
 * encrypts the value under an all-zero 12-byte nonce (the key is used once),
 * and RSA-OAEP (SHA-256 for the hash and MGF1) with the scope's label
 * encrypts the session key. The blob is `uint16 BE len(rsa) ‖ rsa ‖ gcm
 * ciphertext ‖ tag`, base64 (standard, padded). The controller unseals with
 * the label it computes from the SealedSecret's own metadata, so a sealed
 * value only opens under the name/namespace (strict), the namespace
 * (namespace-wide) or anywhere (cluster-wide) it was sealed for.
 *
 * The OAEP padding is encoded here (RFC 8017 7.1.1) and the RSA step done
 * raw by node:crypto, so that all randomness (session key and OAEP seed)
 * comes from one injectable source and tests can pin whole outputs.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import {
  constants,
  createCipheriv,
  createHash,
  createPublicKey,
  type KeyObject,
  publicEncrypt,
} from "node:crypto";
import { decodeGoBase64 } from "../base/base64.ts";
import { InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { cryptoRandom, type RandomBytes } from "../base/random.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import type { Cert } from "../pki/cert_info.ts";

/** The sealing scopes, as `kubeseal --scope` names them. */
export const SEALING_SCOPES = ["strict", "namespace-wide", "cluster-wide"] as const;

/** Where a sealed value may be unsealed. */
export type SealingScope = typeof SEALING_SCOPES[number];

/** `SealedSecretClusterWideAnnotation`. */
export const CLUSTER_WIDE_ANNOTATION = "sealedsecrets.bitnami.com/cluster-wide";
/** `SealedSecretNamespaceWideAnnotation`. */
export const NAMESPACE_WIDE_ANNOTATION = "sealedsecrets.bitnami.com/namespace-wide";

/** The annotations `StripLastAppliedAnnotations` drops (they hold the Secret in clear). */
export const LAST_APPLIED_ANNOTATIONS = [
  "kubectl.kubernetes.io/last-applied-configuration",
  "kubecfg.ksonnet.io/last-applied-configuration",
] as const;

/**
 * `obj` without the last-applied annotations (a copy; `obj` itself when it
 * has none): `kubectl apply` stores the whole object, values included, there.
 */
export function withoutLastApplied(obj: KubeObject): KubeObject {
  const meta = obj.metadata;
  if (!isObject(meta) || !isObject(meta.annotations)) return obj;
  const annotations = meta.annotations;
  if (!LAST_APPLIED_ANNOTATIONS.some((a) => a in annotations)) return obj;
  const kept = { ...annotations };
  for (const a of LAST_APPLIED_ANNOTATIONS) delete kept[a];
  const newMeta: Record<string, unknown> = { ...meta, annotations: kept };
  if (Object.keys(kept).length === 0) delete newMeta.annotations;
  return { ...obj, metadata: newMeta };
}

/** `sessionKeyBytes`: AES-256. */
const SESSION_KEY_BYTES = 32;
/** `cipher.NewGCM`'s nonce size; the session key is used once, so the nonce is all zero. */
const ZERO_NONCE = new Uint8Array(12);
const SHA256_BYTES = 32;

/** kubeseal's refusal when a namespace is needed and, offline, cannot be inferred. */
export const NO_NAMESPACE =
  "input secret has no namespace and cannot infer the namespace automatically when no kube config is available";
/** kubeseal's refusal of a Secret with nothing to seal. */
export const EMPTY_DATA =
  "secret.data is empty in input Secret, assuming this is an error and aborting. To work with empty data, --allow-empty-data can be used";
/** kubeseal's refusal of a Secret without a name. */
export const NO_NAME = "missing metadata.name in input Secret";

/** The controller's public key, checked as `kubeseal --cert` checks it (`ParseKey`). */
export interface SealingKey {
  /** The RSA public key. */
  key: KeyObject;
  /** Its modulus and public exponent, for the BigInt path of {@link rsaPublicRaw}. */
  n: bigint;
  e: bigint;
  /** Modulus length in bytes (512 for the controller's default 4096-bit key). */
  size: number;
  /** The certificate's NotAfter. */
  notAfter: Date;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Go's `Format("January 2, 2006")` of a UTC instant. */
export function goLongDate(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/**
 * `kubeseal`'s `ParseKey` on the first certificate of `--cert`: its key must
 * be RSA and it must not have expired at `now` (kubeseal's texts). Errors are
 * `InputError`s (exit 1); the certificate is public, so naming it is safe.
 *
 * @example
 * ```ts ignore
 * const key = sealingKeyFromCert((await loadCertsPem(pem, "cert.pem"))[0], now);
 * ```
 */
export function sealingKeyFromCert(cert: Cert, now: Date): SealingKey {
  if (cert.publicKeyAlgorithm !== "RSA") {
    const what = cert.key.curve ? `${cert.key.type} ${cert.key.curve}` : cert.key.type || "unknown";
    throw new InputError(`expected RSA public key but found ${what} key`);
  }
  if (now.getTime() > cert.notAfter.getTime()) {
    throw new InputError(
      `failed to encrypt using an expired certificate on ${goLongDate(cert.notAfter)}`,
    );
  }
  const key = createPublicKey({ key: Buffer.from(cert.key.spki), format: "der", type: "spki" });
  const jwk = key.export({ format: "jwk" });
  const n = bigFrom(Buffer.from(String(jwk.n), "base64url"));
  const e = bigFrom(Buffer.from(String(jwk.e), "base64url"));
  const size = Math.ceil(n.toString(16).length / 2);
  // kubeseal is built with Go >= 1.24, whose crypto/rsa refuses to encrypt with a smaller key
  // (below 784 bits OAEP-SHA256 could not even hold the 32-byte session key).
  const bits = n.toString(2).length;
  if (bits < 1024) {
    throw new InputError(
      `crypto/rsa: ${bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)`,
    );
  }
  return { key, n, e, size, notAfter: cert.notAfter };
}

function bigFrom(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt("0x" + Buffer.from(bytes).toString("hex"));
}

/** `m^e mod n` by square-and-multiply on BigInt. */
function modPow(m: bigint, e: bigint, n: bigint): bigint {
  let result = 1n;
  let base = m % n;
  for (let bits = e; bits > 0n; bits >>= 1n) {
    if (bits & 1n) result = result === 1n ? base : (result * base) % n;
    if (bits > 1n) base = (base * base) % n; // no square after the top bit
  }
  return result;
}

/**
 * The raw RSA public operation on a `size`-byte block, big-endian, by
 * node:crypto (`RSA_NO_PADDING`) or by BigInt arithmetic: the two give the
 * same bytes, and which is faster depends on the runtime (Node's OpenSSL
 * takes ~0.05 ms for a 4096-bit key; under Deno node:crypto takes ~0.5 ms
 * and BigInt ~0.1 ms), so the first calls time both and keep the faster.
 */
export function rsaPublicRaw(
  key: SealingKey,
  block: Uint8Array,
  how?: "node" | "bigint",
): Uint8Array {
  const method = how ?? rawMethod(key, block);
  if (method === "node") {
    return new Uint8Array(
      publicEncrypt({ key: key.key, padding: constants.RSA_NO_PADDING }, block),
    );
  }
  const hex = modPow(bigFrom(block), key.e, key.n).toString(16).padStart(key.size * 2, "0");
  return new Uint8Array(Buffer.from(hex, "hex"));
}

let fasterRaw: "node" | "bigint" | undefined;

function rawMethod(key: SealingKey, block: Uint8Array): "node" | "bigint" {
  if (fasterRaw) return fasterRaw;
  const time = (how: "node" | "bigint") => {
    const t0 = performance.now();
    for (let i = 0; i < 3; i++) rsaPublicRaw(key, block, how);
    return performance.now() - t0;
  };
  time("node"); // warm both up once
  time("bigint");
  fasterRaw = time("node") <= time("bigint") ? "node" : "bigint";
  return fasterRaw;
}

/** `EncryptionLabel`: the OAEP label that binds a sealed value to its scope. */
export function encryptionLabel(namespace: string, name: string, scope: SealingScope): Uint8Array {
  const text = scope === "cluster-wide"
    ? ""
    : scope === "namespace-wide"
    ? namespace
    : `${namespace}/${name}`;
  return new Uint8Array(Buffer.from(text, "utf8"));
}

/** `SecretScope`: the scope an object's annotations declare (cluster-wide wins). */
export function scopeOfAnnotations(annotations: unknown): SealingScope {
  if (!isObject(annotations)) return "strict";
  if (annotations[CLUSTER_WIDE_ANNOTATION] === "true") return "cluster-wide";
  if (annotations[NAMESPACE_WIDE_ANNOTATION] === "true") return "namespace-wide";
  return "strict";
}

/** `UpdateScopeAnnotations`: both scope annotations removed, the scope's one set. */
export function withScopeAnnotations(
  annotations: Record<string, unknown> | undefined,
  scope: SealingScope,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(annotations ?? {}) };
  delete out[NAMESPACE_WIDE_ANNOTATION];
  delete out[CLUSTER_WIDE_ANNOTATION];
  if (scope === "namespace-wide") out[NAMESPACE_WIDE_ANNOTATION] = "true";
  if (scope === "cluster-wide") out[CLUSTER_WIDE_ANNOTATION] = "true";
  return out;
}

function sha256(data: Uint8Array): Uint8Array {
  return createHash("sha256").update(data).digest();
}

/** MGF1 with SHA-256 (RFC 8017 B.2.1), XORed into `out` in place. */
function xorMgf1(seed: Uint8Array, out: Uint8Array): void {
  // The seed is hashed once; each block continues a copy of that state.
  const base = createHash("sha256").update(seed);
  const counter = new Uint8Array(4);
  for (let done = 0, i = 0; done < out.length; i++) {
    counter[0] = i >>> 24;
    counter[1] = (i >>> 16) & 0xff;
    counter[2] = (i >>> 8) & 0xff;
    counter[3] = i & 0xff;
    const block = base.copy().update(counter).digest();
    for (let j = 0; j < block.length && done < out.length; j++, done++) out[done]! ^= block[j]!;
  }
}

let lastLabel: { label: Uint8Array; hash: Uint8Array } | undefined;

/** SHA-256 of the OAEP label, kept for the next call (a Secret's values share one label). */
function labelHash(label: Uint8Array): Uint8Array {
  if (
    lastLabel === undefined || lastLabel.label.length !== label.length ||
    !lastLabel.label.every((b, i) => b === label[i])
  ) {
    lastLabel = { label: label.slice(), hash: sha256(label) };
  }
  return lastLabel.hash;
}

/**
 * EME-OAEP encoding with SHA-256 and MGF1-SHA-256 (RFC 8017 7.1.1 step 2),
 * as Go's `rsa.EncryptOAEP(sha256.New(), …)` pads: `0x00 ‖ maskedSeed ‖
 * maskedDB` for a `k`-byte modulus. `seed` is 32 random bytes.
 */
export function oaepEncode(
  message: Uint8Array,
  label: Uint8Array,
  k: number,
  seed: Uint8Array,
): Uint8Array {
  if (message.length > k - 2 * SHA256_BYTES - 2) {
    throw new InputError("crypto/rsa: message too long for RSA key size");
  }
  if (seed.length !== SHA256_BYTES) throw new Error("oaepEncode: seed must be 32 bytes");
  const em = new Uint8Array(k);
  const seedPart = em.subarray(1, 1 + SHA256_BYTES);
  const db = em.subarray(1 + SHA256_BYTES);
  db.set(labelHash(label), 0);
  db[db.length - message.length - 1] = 0x01;
  db.set(message, db.length - message.length);
  seedPart.set(seed);
  xorMgf1(seed, db);
  xorMgf1(db, seedPart);
  return em;
}

/** RSA-OAEP-SHA256 of `message` under `key` with `label` (Go's `rsa.EncryptOAEP`). */
export function rsaOaepEncrypt(
  key: SealingKey,
  message: Uint8Array,
  label: Uint8Array,
  random: RandomBytes = cryptoRandom,
): Uint8Array {
  return rsaPublicRaw(key, oaepEncode(message, label, key.size, random(SHA256_BYTES)));
}

/**
 * `HybridEncrypt`: `uint16 BE len(rsa) ‖ RSA-OAEP(session key) ‖
 * AES-256-GCM(plaintext)` with a fresh session key and the all-zero nonce.
 */
export function hybridEncrypt(
  key: SealingKey,
  plaintext: Uint8Array,
  label: Uint8Array,
  random: RandomBytes = cryptoRandom,
): Uint8Array {
  const sessionKey = random(SESSION_KEY_BYTES);
  const rsa = rsaOaepEncrypt(key, sessionKey, label, random);
  const gcm = createCipheriv("aes-256-gcm", sessionKey, ZERO_NONCE);
  const body = Buffer.concat([gcm.update(plaintext), gcm.final(), gcm.getAuthTag()]);
  sessionKey.fill(0);
  const out = new Uint8Array(2 + rsa.length + body.length);
  out[0] = rsa.length >>> 8;
  out[1] = rsa.length & 0xff;
  out.set(rsa, 2);
  out.set(body, 2 + rsa.length);
  return out;
}

/** How to seal: the controller key, the `--scope` (strict is kubeseal's default), options. */
export interface SealOptions {
  key: SealingKey;
  /** `--scope`; strict (the default) leaves the Secret's own scope annotations in charge. */
  scope?: SealingScope;
  /** `--allow-empty-data`: seal a Secret with neither data nor stringData. */
  allowEmptyData?: boolean;
  random?: RandomBytes;
}

/** The server-set ObjectMeta fields kubeseal strips before sealing. */
const SERVER_FIELDS = [
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
];

/** Names a Secret for errors without any of its values. */
function secretName(meta: Record<string, unknown>): string {
  const name = typeof meta.name === "string" ? meta.name : "";
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  return ns ? `Secret ${ns}/${name}` : `Secret ${JSON.stringify(name)}`;
}

/**
 * The Secret's values as kubeseal decodes them: data (base64) then stringData
 * (wins). A null value is a key with an empty value, as encoding/json decodes
 * `null` into a map's `[]byte` or `string` element: kubeseal counts it and
 * seals the empty value, so the controller's Secret has the key.
 */
function secretValues(secret: KubeObject, where: string): Map<string, Uint8Array> {
  const values = new Map<string, Uint8Array>();
  const { data, stringData } = secret as { data?: unknown; stringData?: unknown };
  if (data !== undefined && data !== null) {
    if (!isObject(data)) throw new InputError(`${where}: data is not a map`);
    for (const [k, v] of Object.entries(data)) {
      if (v === null) {
        values.set(k, new Uint8Array(0));
        continue;
      }
      const bytes = typeof v === "string" ? decodeGoBase64(v) : undefined;
      // The value itself is never quoted: it is the secret.
      if (bytes === undefined) {
        throw new InputError(`${where}: data[${JSON.stringify(k)}]: illegal base64 data`);
      }
      values.set(k, bytes);
    }
  }
  if (stringData !== undefined && stringData !== null) {
    if (!isObject(stringData)) throw new InputError(`${where}: stringData is not a map`);
    for (const [k, v] of Object.entries(stringData)) {
      if (v === null) {
        values.set(k, new Uint8Array(0));
        continue;
      }
      if (typeof v !== "string") {
        throw new InputError(`${where}: stringData[${JSON.stringify(k)}] is not a string`);
      }
      values.set(k, new Uint8Array(Buffer.from(v, "utf8")));
    }
  }
  return values;
}

/**
 * The SealedSecret `kubeseal --cert` writes for `secret` (kubeseal's `Seal`
 * then `NewSealedSecret`): a non-default `--scope` is written into the
 * Secret's annotations first; otherwise the Secret's own scope annotations
 * decide. The namespace is required except cluster-wide (kubeseal's offline
 * text). `spec.template` is the Secret's metadata without the server fields,
 * the last-applied annotations and ownerReferences, plus its type and
 * immutable; `spec.encryptedData` holds every data and stringData value
 * sealed on its own. `source` names the input in errors (never a value).
 *
 * @example
 * ```ts ignore
 * const sealed = sealSecret(secret, { key, scope: "strict" }, "secrets.yaml");
 * ```
 */
export function sealSecret(secret: KubeObject, opts: SealOptions, source: string): KubeObject {
  const random = opts.random ?? cryptoRandom;
  const meta: Record<string, unknown> = isObject(secret.metadata) ? { ...secret.metadata } : {};
  const where = `${source}: ${secretName(meta)}`;
  const values = secretValues(secret, where);
  if (values.size === 0 && !opts.allowEmptyData) throw new InputError(`${where}: ${EMPTY_DATA}`);
  if (typeof meta.name !== "string" || meta.name === "") {
    throw new InputError(`${source}: ${NO_NAME}`);
  }
  const scopeFlag = opts.scope ?? "strict";
  if (scopeFlag !== "strict") {
    meta.annotations = withScopeAnnotations(
      isObject(meta.annotations) ? meta.annotations : undefined,
      scopeFlag,
    );
  }
  const scope = scopeOfAnnotations(meta.annotations);
  const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
  if (scope !== "cluster-wide" && namespace === "") {
    throw new InputError(`${where}: ${NO_NAMESPACE}`);
  }
  for (const f of SERVER_FIELDS) delete meta[f];

  const template: Record<string, unknown> = { ...meta, creationTimestamp: null };
  delete template.ownerReferences;
  if (isObject(template.annotations)) {
    const annotations = { ...template.annotations };
    for (const a of LAST_APPLIED_ANNOTATIONS) delete annotations[a];
    if (Object.keys(annotations).length > 0) template.annotations = annotations;
    else delete template.annotations;
  }

  const label = encryptionLabel(namespace, meta.name, scope);
  const encryptedData: Record<string, string> = {};
  for (const k of [...values.keys()].sort()) {
    const blob = hybridEncrypt(opts.key, values.get(k)!, label, random);
    encryptedData[k] = Buffer.from(blob).toString("base64");
  }

  const sealedMeta: Record<string, unknown> = { name: meta.name, creationTimestamp: null };
  if (namespace !== "") sealedMeta.namespace = namespace;
  const annotations = withScopeAnnotations(undefined, scope);
  if (Object.keys(annotations).length > 0) sealedMeta.annotations = annotations;

  const spec: Record<string, unknown> = { encryptedData, template: { metadata: template } };
  const tmpl = spec.template as Record<string, unknown>;
  if (typeof secret.type === "string" && secret.type !== "") tmpl.type = secret.type;
  if (typeof secret.immutable === "boolean") tmpl.immutable = secret.immutable;
  return { apiVersion: "bitnami.com/v1alpha1", kind: "SealedSecret", metadata: sealedMeta, spec };
}
