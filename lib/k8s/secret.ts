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
  const fail = (why: string) => new InputError(`${source}: ${describeObject(obj)}: ${why}`);
  if (!isObject(obj)) throw new InputError(`${source}: not an object`);
  if (obj.kind !== "Secret") throw fail("is not a Secret");
  if (obj.apiVersion !== undefined && obj.apiVersion !== "v1") {
    throw fail(`apiVersion ${JSON.stringify(obj.apiVersion)} is not v1`);
  }
  if (obj.metadata !== undefined && !isObject(obj.metadata)) throw fail("metadata is not a map");
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const str = (v: unknown, field: string): string => {
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") throw fail(`${field} is not a string`);
    return v;
  };
  const name = str(meta.name, "metadata.name");
  const namespace = str(meta.namespace, "metadata.namespace");
  const type = str(obj.type, "type") || "Opaque";
  const data: Record<string, string> = {};
  for (const [field, base64] of [["data", true], ["stringData", false]] as const) {
    const map = obj[field];
    if (map === undefined || map === null) continue;
    if (!isObject(map)) throw fail(`${field} is not a map`);
    for (const [key, value] of Object.entries(map)) {
      if (value === null) {
        setKey(data, key, "");
        continue;
      }
      if (typeof value !== "string") throw fail(`${field}[${JSON.stringify(key)}] is not a string`);
      if (!base64) {
        setKey(data, key, value);
        continue;
      }
      const decoded = decodeBase64Strict(value);
      if (decoded === undefined) {
        throw fail(`data[${JSON.stringify(key)}] is not valid base64`);
      }
      setKey(data, key, decoded);
    }
  }
  const out: DecodedSecret = { name, namespace, type, data };
  const deletion = meta.deletionTimestamp;
  if (deletion !== undefined && deletion !== null) {
    out.deletionTimestamp = str(deletion, "metadata.deletionTimestamp");
  }
  return out;
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
