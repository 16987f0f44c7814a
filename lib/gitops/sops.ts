/**
 * SOPS-encrypted Kubernetes objects (getsops/sops `aes/cipher.go`, `sops.go`
 * `Tree.Encrypt`, `stores/stores.go` metadata, `age/keysource.go`), as
 * `sops --encrypt --encrypted-regex '^(data|stringData)$' --age …` writes a
 * Secret and as Flux's kustomize-controller decrypts it.
 *
 * - A leaf is encrypted when any key on its path matches the regex (list
 *   indices are not on the path), so `apiVersion`, `kind` and `metadata`
 *   stay in clear and every `data`/`stringData` value is encrypted.
 * - A value is `ENC[AES256_GCM,data:…,iv:…,tag:…,type:str|int|float|bool]`:
 *   AES-256-GCM with a 32-byte random IV, the key path joined with `:` plus
 *   a trailing `:` as additional data; an empty string stays empty.
 * - The MAC is SHA-512 over every leaf's plaintext in document order (keys
 *   are not hashed, nulls are skipped, booleans are `True`/`False`), as
 *   upper-case hex, encrypted like a value with `lastmodified` as additional
 *   data.
 * - The 32-byte data key is age-encrypted (armored) to each recipient.
 *
 * Document order is the order {@link toYaml} writes (go-yaml's sorted keys),
 * so the MAC is computed in that order; each document carries its own
 * metadata and MAC, as Flux decrypts every resource on its own.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createCipheriv, createDecipheriv, createHash } from "node:crypto";
import { InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { cryptoRandom, type RandomBytes } from "../base/random.ts";
import { formatRfc3339 } from "../go/time.ts";
import { type KubeObject, sortKeysGoYaml } from "../k8s/manifest.ts";
import { ageEncryptArmored } from "./age.ts";

/** The sops format version written into `sops.version`. */
export const SOPS_VERSION = "3.9.4";

/** The Kubernetes convention: only `data` and `stringData` are encrypted. */
export const SECRET_ENCRYPTED_REGEX = "^(data|stringData)$";
const ENCRYPTED_KEY = /^(data|stringData)$/;

/** `aes.nonceSize`: sops uses 32-byte GCM IVs. */
const IV_BYTES = 32;
const TAG_BYTES = 16;
const DATA_KEY_BYTES = 32;

/** A sops data key and its age-wrapped copies, one per recipient. */
export interface SopsDataKey {
  /** The 32-byte AES-256 key. */
  key: Uint8Array;
  /** `sops.age`: each recipient and the armored age file holding the key. */
  age: { recipient: string; enc: string }[];
}

/**
 * A fresh data key wrapped for `recipients` (age X25519, armored). One key
 * may serve many documents of one run: each still gets its own IVs and MAC.
 */
export async function newSopsDataKey(
  recipients: readonly string[],
  random: RandomBytes = cryptoRandom,
): Promise<SopsDataKey> {
  if (recipients.length === 0) throw new Error("newSopsDataKey: no recipient");
  const key = random(DATA_KEY_BYTES);
  const age: SopsDataKey["age"] = [];
  // One age file per recipient, as sops writes one sops.age entry per key.
  for (const recipient of recipients) {
    age.push({ recipient, enc: await ageEncryptArmored([recipient], key) });
  }
  return { key, age };
}

/** A leaf value sops encrypts: its type word and its bytes (`ToBytes`). */
function leafBytes(value: string | number | boolean): { type: string; bytes: Uint8Array } {
  if (typeof value === "string") return { type: "str", bytes: Buffer.from(value, "utf8") };
  if (typeof value === "boolean") {
    return { type: "bool", bytes: Buffer.from(value ? "True" : "False") };
  }
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
    return { type: "int", bytes: Buffer.from(String(value)) };
  }
  return { type: "float", bytes: Buffer.from(goFormatFloatF(value)) };
}

/**
 * Go's `strconv.FormatFloat(f, 'f', -1, 64)`, as sops' `ToBytes` and
 * `aes.Cipher.Encrypt` write a float: the shortest digits that read back as
 * `f` (JavaScript's `String` picks the same ones), never in exponent form;
 * `+Inf`, `-Inf`, `NaN`, `-0`.
 */
export function goFormatFloatF(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (Object.is(f, -0)) return "-0";
  const text = String(f);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[2]! + (m[3] ?? "");
  const point = 1 + Number(m[4]);
  const body = point <= 0
    ? "0." + "0".repeat(-point) + digits
    : point >= digits.length
    ? digits + "0".repeat(point - digits.length)
    : digits.slice(0, point) + "." + digits.slice(point);
  return m[1] + body;
}

/**
 * `aes.Cipher.Encrypt`: `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`, or `""`
 * for an empty string.
 *
 * @example
 * ```ts ignore
 * sopsEncryptValue("s3cr3t", key, "data:password:"); // "ENC[AES256_GCM,data:…,type:str]"
 * ```
 */
export function sopsEncryptValue(
  value: string | number | boolean,
  key: Uint8Array,
  additionalData: string,
  random: RandomBytes = cryptoRandom,
): string {
  if (value === "") return "";
  const { type, bytes } = leafBytes(value);
  const iv = random(IV_BYTES);
  const c = createCipheriv("aes-256-gcm", key, iv);
  c.setAAD(Buffer.from(additionalData, "utf8"));
  const data = Buffer.concat([c.update(bytes), c.final()]);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
  return `ENC[AES256_GCM,data:${b64(data)},iv:${b64(iv)},tag:${b64(c.getAuthTag())},type:${type}]`;
}

const ENC = /^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]/;

/**
 * `aes.Cipher.Decrypt`: the plaintext of an `ENC[…]` value (its type
 * restored), `""` for `""`. A wrong key, path or tampered value throws.
 */
export function sopsDecryptValue(
  text: string,
  key: Uint8Array,
  additionalData: string,
): string | number | boolean {
  if (text === "") return "";
  const m = ENC.exec(text);
  if (!m) throw new InputError("value does not match sops' data format");
  const d = createDecipheriv("aes-256-gcm", key, Buffer.from(m[2]!, "base64"));
  d.setAAD(Buffer.from(additionalData, "utf8"));
  const tag = Buffer.from(m[3]!, "base64");
  if (tag.length !== TAG_BYTES) throw new InputError("sops value: bad tag length");
  d.setAuthTag(tag);
  let plain: string;
  try {
    plain = Buffer.concat([d.update(Buffer.from(m[1]!, "base64")), d.final()]).toString("utf8");
  } catch {
    throw new InputError("Could not decrypt with AES_GCM: cipher: message authentication failed");
  }
  switch (m[4]) {
    case "str":
      return plain;
    case "int":
      return Number(plain);
    case "float":
      // strconv.ParseFloat also reads what FormatFloat writes for infinities.
      return /^[+-]?inf(inity)?$/i.test(plain)
        ? (plain.startsWith("-") ? -Infinity : Infinity)
        : Number(plain);
    case "bool":
      return /^(1|t|T|TRUE|true|True)$/.test(plain);
    default:
      throw new InputError(`Unknown datatype: ${m[4]}`);
  }
}

/** Walks `value` in document order: each leaf hashed (plaintext) and maybe transformed. */
function walk(
  value: unknown,
  path: string[],
  encrypted: boolean,
  sorted: boolean,
  leaf: (v: string | number | boolean, path: string[], encrypted: boolean) => unknown,
): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, path, encrypted, sorted, leaf));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    const keys = sorted ? sortKeysGoYaml(Object.keys(value)) : Object.keys(value);
    for (const k of keys) {
      out[k] = walk(value[k], [...path, k], encrypted || ENCRYPTED_KEY.test(k), sorted, leaf);
    }
    return out;
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return leaf(value, path, encrypted);
  }
  return value; // null: sops neither encrypts nor hashes it
}

/**
 * `obj` as a sops-encrypted document: `data`/`stringData` values encrypted,
 * everything else in clear, and the `sops` metadata (age keys,
 * `encrypted_regex`, `lastmodified` = `now` to the second in UTC, the
 * encrypted MAC, `version`). A `sops` key already present is refused, as
 * sops refuses it.
 *
 * @example
 * ```ts ignore
 * const doc = sopsEncryptObject(secret, await newSopsDataKey(["age1…"]), now);
 * toYaml(doc); // what `sops --decrypt` and Flux read
 * ```
 */
export function sopsEncryptObject(
  obj: KubeObject,
  dataKey: SopsDataKey,
  now: Date,
  random: RandomBytes = cryptoRandom,
): KubeObject {
  if ("sops" in obj) {
    throw new InputError(
      `Found key "sops" in encrypted data, which is a reserved key used for SOPS metadata`,
    );
  }
  const mac = createHash("sha512");
  const leaves: Uint8Array[] = [];
  const out = walk(obj, [], false, true, (v, path, encrypted) => {
    const bytes = leafBytes(v).bytes;
    mac.update(bytes);
    leaves.push(bytes);
    return encrypted ? sopsEncryptValue(v, dataKey.key, path.join(":") + ":", random) : v;
  }) as KubeObject;
  const lastmodified = formatRfc3339(new Date(Math.floor(now.getTime() / 1000) * 1000));
  const macText = mac.digest("hex").toUpperCase();
  out.sops = {
    age: dataKey.age.map((a) => ({ recipient: a.recipient, enc: a.enc })),
    encrypted_regex: SECRET_ENCRYPTED_REGEX,
    lastmodified,
    mac: sopsEncryptValue(macText, dataKey.key, lastmodified, random),
    version: SOPS_VERSION,
  };
  // Kept (not enumerable: never rendered) for sopsStreamDocuments.
  const part: StreamPart = {
    leaves: Buffer.concat(leaves),
    key: dataKey.key,
    lastmodified,
    random,
    share: sopsStreamDocuments,
  };
  Object.defineProperty(out, SOPS_STREAM_PART, { value: part, enumerable: false });
  return out;
}

/**
 * The key under which {@link sopsEncryptObject} keeps, on each document, what
 * a stream of them needs to share one MAC (a `Symbol.for`, so a writer can
 * use it without loading this module).
 */
export const SOPS_STREAM_PART: unique symbol = Symbol.for("joinkit.sops.streamPart") as never;

/** One document's share of a stream MAC: its leaves' plaintext bytes, in document order. */
interface StreamPart {
  leaves: Uint8Array;
  key: Uint8Array;
  lastmodified: string;
  random: RandomBytes;
  share: typeof sopsStreamDocuments;
}

/**
 * sops' multi-document YAML file: sops reads the metadata of the first
 * document only (`stores.ExtractMetadata`) and checks ONE MAC over the leaves
 * of every document in order, and writes that metadata into each document
 * (`SerializeMetadata`). So when the first of `docs` is a document
 * {@link sopsEncryptObject} made, every encrypted one shares its data key and
 * instant, and no document in clear has a `data`/`stringData` value (sops
 * would try to decrypt it), each encrypted document gets the MAC of the
 * whole stream, clear ones included; documents in clear are left as they
 * are. Each document still opens alone in Flux, which decrypts resource by
 * resource without checking the MAC. Otherwise (`sops --decrypt` cannot read
 * the stream as one file anyway) `docs` is returned as it is, each encrypted
 * document with its own MAC.
 */
export function sopsStreamDocuments(docs: readonly KubeObject[]): KubeObject[] {
  const stream = new SopsStreamMac();
  for (const d of docs) stream.add(d);
  const mac = stream.finish();
  if (mac === undefined) return [...docs];
  return docs.map((d) => isSopsStreamPart(d) ? { ...d, sops: { ...(d.sops as object), mac } } : d);
}

/** Whether {@link sopsEncryptObject} made `doc` (it carries a share of a stream MAC). */
export function isSopsStreamPart(doc: KubeObject): boolean {
  return (doc as { [SOPS_STREAM_PART]?: StreamPart })[SOPS_STREAM_PART] !== undefined;
}

/**
 * {@link sopsStreamDocuments}' MAC, computed document by document so a
 * stream can be written as it is made (keeping only a running SHA-512):
 * `add` each document in order, then `finish` gives the encrypted MAC every
 * encrypted document of the stream carries, or undefined when each keeps its
 * own (fewer than two documents, a first one in clear, a clear one holding
 * a `data`/`stringData` value, another data key or instant). The randomness
 * is drawn as {@link sopsStreamDocuments} draws it: once, at `finish`.
 */
export class SopsStreamMac {
  #mac = createHash("sha512");
  #first: StreamPart | undefined;
  #count = 0;
  #shared = true;

  /** The next document of the stream. */
  add(doc: KubeObject): void {
    const part = (doc as { [SOPS_STREAM_PART]?: StreamPart })[SOPS_STREAM_PART];
    this.#count++;
    if (!this.#shared) return;
    if (this.#count === 1) {
      if (part === undefined) {
        this.#shared = false;
        return;
      }
      this.#first = part;
    }
    const first = this.#first!;
    if (part !== undefined) {
      if (part.key !== first.key || part.lastmodified !== first.lastmodified) {
        this.#shared = false;
        return;
      }
      this.#mac.update(part.leaves);
      return;
    }
    let readable = true;
    walk(doc, [], false, true, (v, _path, encrypted) => {
      if (encrypted) readable = false;
      this.#mac.update(leafBytes(v).bytes);
      return v;
    });
    if (!readable) this.#shared = false;
  }

  /** The stream's encrypted MAC, or undefined when each document keeps its own. */
  finish(): string | undefined {
    const first = this.#first;
    if (this.#count < 2 || !this.#shared || first === undefined) return undefined;
    const text = this.#mac.digest("hex").toUpperCase();
    return sopsEncryptValue(text, first.key, first.lastmodified, first.random);
  }
}

/**
 * Decrypts a document {@link sopsEncryptObject} wrote (or sops wrote with the
 * same rule) with the data key and checks its MAC as `sops --decrypt` does,
 * over the leaves in the object's own key order (the order it was parsed
 * in); returns the plaintext object without `sops`. Used to check output.
 */
export function sopsDecryptObject(doc: KubeObject, key: Uint8Array): KubeObject {
  const meta = doc.sops;
  if (!isObject(meta)) throw new InputError("sops metadata not found");
  const body: Record<string, unknown> = { ...doc };
  delete body.sops;
  const mac = createHash("sha512");
  const plain = walk(body, [], false, false, (v, path, encrypted) => {
    const p = encrypted && typeof v === "string"
      ? sopsDecryptValue(v, key, path.join(":") + ":")
      : v;
    mac.update(leafBytes(p).bytes);
    return p;
  }) as KubeObject;
  const stored = sopsDecryptValue(String(meta.mac), key, String(meta.lastmodified));
  if (stored !== mac.digest("hex").toUpperCase()) throw new InputError("MAC mismatch");
  return plain;
}
