/**
 * Decoding Kubernetes `Secret` objects as the API server stores them: `data`
 * base64-decoded, `stringData` merged over it. Shared by the token commands
 * and the cluster-info signer.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { decodeGoBase64 } from "../base/base64.ts";
import { InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";

/** A Secret reduced to what bootstrap-token logic reads. */
export interface DecodedSecret {
  /** `metadata.name` (empty when absent). */
  name: string;
  /** `metadata.namespace` (empty when absent). */
  namespace: string;
  /** `type`; the API server's default `Opaque` when absent. */
  type: string;
  /** Decoded `data`, with `stringData` merged over it (UTF-8 text). */
  data: Record<string, string>;
  /** `metadata.deletionTimestamp`, when set. */
  deletionTimestamp?: string;
}

/** Whether `obj` is a Secret (`kind: Secret`); other objects are not decoded. */
export function isSecretObject(obj: unknown): boolean {
  return isObject(obj) && obj.kind === "Secret";
}

/**
 * Names an object for messages: `Secret kube-system/bootstrap-token-abcdef`,
 * `ConfigMap "x"`, or `Secret without metadata.name`.
 *
 * @example
 * ```ts
 * describeObject({ kind: "Secret", metadata: { name: "a", namespace: "b" } }); // "Secret b/a"
 * ```
 */
export function describeObject(obj: unknown): string {
  if (!isObject(obj)) return "object";
  const kind = typeof obj.kind === "string" && obj.kind !== "" ? obj.kind : "object";
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const name = typeof meta.name === "string" ? meta.name : "";
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  return describeNamed(kind, name, ns);
}

/**
 * {@link describeObject} of the Secret `secret` was decoded from, for a
 * Secret whose name and namespace were read as strings (or absent).
 *
 * @example
 * ```ts
 * describeSecret({ name: "a", namespace: "", type: "Opaque", data: {} }); // 'Secret "a"'
 * ```
 */
export function describeSecret(secret: DecodedSecret): string {
  return describeNamed("Secret", secret.name, secret.namespace);
}

function describeNamed(kind: string, name: string, ns: string): string {
  if (name === "") return `${kind} without metadata.name`;
  return ns === "" ? `${kind} ${JSON.stringify(name)}` : `${kind} ${ns}/${name}`;
}

/**
 * Decodes base64 the way Go's `encoding/json` does for `[]byte`: standard
 * alphabet, padding required, CR and LF ignored; anything else is refused.
 * Returns `undefined` when the text is not valid base64.
 *
 * @example
 * ```ts
 * decodeBase64Strict("YWJjZGVm"); // "abcdef"
 * ```
 */
export function decodeBase64Strict(text: string): string | undefined {
  // Fleets repeat most values (usages, groups, expirations): short ones are cached.
  const cached = decoded.get(text);
  if (cached !== undefined) return cached;
  const ascii = text.length <= 128 ? decodeAsciiBase64(text) : undefined;
  if (ascii !== undefined) {
    if (decoded.size >= 4096) decoded.clear();
    decoded.set(text, ascii);
    return ascii;
  }
  const bytes = decodeGoBase64(text);
  const out = bytes &&
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (out !== undefined && text.length <= 128) {
    if (decoded.size >= 4096) decoded.clear();
    decoded.set(text, out);
  }
  return out;
}

const decoded = new Map<string, string>();

/** Standard base64's sextets by code unit, -1 for other characters (and `=`). */
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  SEXTET["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charCodeAt(i)] = i;
}

/** A decoded value's bytes (reused: at most 96 from 128 characters). */
const asciiBytes = new Uint8Array(96);
/** `asciiBytes[0, n)` as a latin1 string: Node's own reader where there is one, else Buffer's. */
const latin1Of: (n: number) => string = (() => {
  const buf = Buffer.from(asciiBytes.buffer, asciiBytes.byteOffset, asciiBytes.length);
  const direct = (buf as unknown as { latin1Slice?: (start: number, end: number) => string })
    .latin1Slice;
  return typeof direct === "function"
    ? (n: number) => direct.call(buf, 0, n)
    : (n: number) => buf.toString("latin1", 0, n);
})();

/**
 * The common case of {@link decodeBase64Strict}, on `text[start, end)` and
 * without its cache or buffers: padded standard base64 (no CR or LF) of at
 * most 128 characters whose bytes are ASCII. `undefined` for anything else,
 * which decodeBase64Strict then decodes or refuses. Bits after the last
 * whole byte are ignored, as there. The one such decoder: the Secret fast
 * readers (simple_secrets, json_items) call it on their values.
 *
 * @example
 * ```ts
 * decodeAsciiBase64("YWJjZGVm"); // "abcdef"
 * ```
 */
export function decodeAsciiBase64(
  text: string,
  start = 0,
  end = text.length,
): string | undefined {
  const n = end - start;
  if (n % 4 !== 0 || n > 128) return undefined;
  let pad = 0;
  if (n > 0 && text.charCodeAt(end - 1) === 61) pad = text.charCodeAt(end - 2) === 61 ? 2 : 1;
  // Whole groups (a sextet that is not one is -1: `bad` turns negative), then the last.
  const whole = pad === 0 ? end : end - 4;
  let k = 0, bad = 0, high = 0;
  for (let i = start; i < whole; i += 4) {
    const a = sextet(text, i), b = sextet(text, i + 1);
    const c = sextet(text, i + 2), d = sextet(text, i + 3);
    bad |= a | b | c | d;
    const bits = (a << 18) | (b << 12) | (c << 6) | d;
    asciiBytes[k++] = bits >> 16;
    asciiBytes[k++] = bits >> 8;
    asciiBytes[k++] = bits;
    high |= bits;
  }
  if (pad !== 0) {
    const a = sextet(text, whole), b = sextet(text, whole + 1);
    const c = pad === 2 ? 0 : sextet(text, whole + 2);
    bad |= a | b | c;
    const bits = (a << 18) | (b << 12) | (c << 6);
    asciiBytes[k++] = bits >> 16;
    high |= bits >> 16;
    if (pad === 1) {
      asciiBytes[k++] = bits >> 8;
      high |= (bits >> 8) & 255;
    }
  }
  // (A byte of 128 or more sets a bit 7 of a byte in `high`.)
  return bad >= 0 && (high & 0x808080) === 0 ? latin1Of(k) : undefined;
}

function sextet(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? SEXTET[c]! : -1;
}

/**
 * Validates and decodes one Secret object. `source` (a file name) starts
 * every error message, which then names the object; values never appear in
 * messages.
 *
 * @example
 * ```ts
 * decodeSecret({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" },
 *   data: { a: "Yg==" } }, "s.yaml").data.a; // "b"
 * ```
 */
export function decodeSecret(obj: unknown, source: string): DecodedSecret {
  if (!isObject(obj)) throw new InputError(`${source}: not an object`);
  if (obj.kind !== "Secret") throw secretError(obj, source, "is not a Secret");
  if (obj.apiVersion !== undefined && obj.apiVersion !== "v1") {
    throw secretError(obj, source, `apiVersion ${JSON.stringify(obj.apiVersion)} is not v1`);
  }
  if (obj.metadata !== undefined && !isObject(obj.metadata)) {
    throw secretError(obj, source, "metadata is not a map");
  }
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const name = stringField(meta.name, obj, source, "metadata.name");
  const namespace = stringField(meta.namespace, obj, source, "metadata.namespace");
  const type = stringField(obj.type, obj, source, "type") || "Opaque";
  const data: Record<string, string> = {};
  decodeDataMap(obj, "data", data, source);
  decodeDataMap(obj, "stringData", data, source);
  const out: DecodedSecret = { name, namespace, type, data };
  const deletion = meta.deletionTimestamp;
  if (deletion !== undefined && deletion !== null) {
    out.deletionTimestamp = stringField(deletion, obj, source, "metadata.deletionTimestamp");
  }
  return out;
}

function secretError(obj: unknown, source: string, why: string): InputError {
  return new InputError(`${source}: ${describeObject(obj)}: ${why}`);
}

function stringField(v: unknown, obj: unknown, source: string, field: string): string {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw secretError(obj, source, `${field} is not a string`);
  return v;
}

/** Merges `obj[field]` into `data`: base64-decoded for `data`, as is for `stringData`. */
function decodeDataMap(
  obj: Record<string, unknown>,
  field: "data" | "stringData",
  data: Record<string, string>,
  source: string,
): void {
  const map = obj[field];
  if (map === undefined || map === null) return;
  if (!isObject(map)) throw secretError(obj, source, `${field} is not a map`);
  const base64 = field === "data";
  for (const key of Object.keys(map)) {
    const value = map[key];
    if (value === null) {
      setKey(data, key, "");
      continue;
    }
    if (typeof value !== "string") {
      throw secretError(obj, source, `${field}[${JSON.stringify(key)}] is not a string`);
    }
    if (!base64) {
      setKey(data, key, value);
      continue;
    }
    const decoded = decodeBase64Strict(value);
    if (decoded === undefined) {
      throw secretError(obj, source, `data[${JSON.stringify(key)}] is not valid base64`);
    }
    setKey(data, key, decoded);
  }
}

// Plain assignment of "__proto__" would change the prototype instead of adding a key.
function setKey(map: Record<string, string>, key: string, value: string): void {
  // Only `__proto__` needs defining: assigning it would set the prototype instead.
  if (key !== "__proto__") map[key] = value;
  else {Object.defineProperty(map, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });}
}

/**
 * `GetData`: a data value, or `""` when the key is absent.
 *
 * @example
 * ```ts
 * getData({ name: "", namespace: "", type: "", data: {} }, "x"); // ""
 * ```
 */
export function getData(secret: DecodedSecret, key: string): string {
  return Object.hasOwn(secret.data, key) ? secret.data[key]! : "";
}
