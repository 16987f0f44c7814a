/**
 * The files a node payload carries, read back for the checkers (`doctor`,
 * `ca rotation-check`): a `#cloud-config` (with or without CABPK's
 * `## template: jinja` header) and its `write_files` (content plain,
 * `b64`/`base64`, `gz`/`gzip`, or both, as cloud-init decodes them), or an
 * Ignition config (spec 2.x or 3.x) and its `storage.files` (`data:` URLs,
 * percent-encoded or `;base64`, optionally gzip-compressed; `inline`
 * contents). What cannot be decoded is reported, never dropped.
 *
 * @module
 */

import { isObject } from "../base/object.ts";
import { parseManifests } from "../k8s/manifest.ts";

/**
 * Whether a payload entry's path names an artefact the checkers read (YAML,
 * JSON, a kubeconfig, PEM material): such an entry must read as one. Others
 * (scripts, placeholders) are passed over.
 */
export function isArtefactPath(path: string): boolean {
  return /\.(ya?ml|json|conf|kubeconfig|crt|pem|cert|cer|key|pub|csr)$/i.test(path);
}

/** One file inside a payload. */
export interface PayloadEntry {
  /** The path on the node. */
  path: string;
  bytes: Uint8Array;
  text: string;
}

/** A payload's files, and the entries that could not be decoded. */
export interface PayloadFiles {
  format: "cloud-config" | "ignition";
  files: PayloadEntry[];
  problems: { path: string; reason: string }[];
}

const zlib = () => process.getBuiltinModule("node:zlib");

function entry(path: string, bytes: Uint8Array): PayloadEntry {
  return { path, bytes, text: new TextDecoder().decode(bytes) };
}

/** Go's/Python's standard base64, whitespace ignored; undefined when malformed. */
function base64Bytes(text: string): Uint8Array | undefined {
  const t = text.replace(/\s+/g, "");
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(t)) {
    return undefined;
  }
  return Uint8Array.from(atob(t), (c) => c.charCodeAt(0));
}

/** RFC 2397 `data:[<mediatype>][;base64],<data>` bytes; undefined when malformed. */
export function decodeDataUrl(url: string): Uint8Array | undefined {
  if (!/^data:/i.test(url)) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const raw: number[] = [];
  const data = url.slice(comma + 1);
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 0x25) {
      const h = data.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) return undefined;
      raw.push(parseInt(h, 16));
      i += 2;
    } else if (c < 0x80) raw.push(c);
    else raw.push(...new TextEncoder().encode(data[i]!));
  }
  if (!/;base64$/i.test(meta)) return Uint8Array.from(raw);
  return base64Bytes(String.fromCharCode(...raw));
}

/** Whether `text` is a cloud-config (cloud-init's header, optionally after a template line). */
export function isCloudConfig(text: string): boolean {
  const t = text.replace(/^\uFEFF/, "");
  return /^#cloud-config[ \t]*\r?\n/.test(t) ||
    /^## template: *jinja[ \t]*\r?\n#cloud-config[ \t]*\r?\n/i.test(t);
}

function gunzip(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(zlib().gunzipSync(bytes));
}

/** cloud-init's `write_files` decoding of one entry. */
function cloudInitContent(content: string, encoding: string): Uint8Array | string {
  const enc = encoding.toLowerCase();
  if (["", "text/plain"].includes(enc)) return new TextEncoder().encode(content);
  if (["b64", "base64"].includes(enc)) return base64Bytes(content) ?? "content is not base64";
  if (["gz+base64", "gzip+base64", "gz+b64", "gzip+b64"].includes(enc)) {
    const b = base64Bytes(content);
    if (!b) return "content is not base64";
    try {
      return gunzip(b);
    } catch {
      return "content is not gzip";
    }
  }
  return `unknown encoding ${JSON.stringify(encoding)}`;
}

/**
 * The files of a payload, or undefined when `text` is neither a
 * cloud-config nor an Ignition config. A payload that does not parse is
 * returned with one problem at path `""`.
 */
export function payloadFiles(text: string): PayloadFiles | undefined {
  if (isCloudConfig(text)) {
    const out: PayloadFiles = { format: "cloud-config", files: [], problems: [] };
    let doc: unknown;
    try {
      doc = parseManifests(text.replace(/^\uFEFF/, ""), "cloud-config")[0] ?? {};
    } catch (e) {
      out.problems.push({ path: "", reason: (e as Error).message });
      return out;
    }
    const list = isObject(doc) && Array.isArray(doc.write_files) ? doc.write_files : [];
    list.forEach((w, i) => {
      const path = isObject(w) && typeof w.path === "string" ? w.path : `write_files[${i}]`;
      if (!isObject(w) || (w.content !== undefined && typeof w.content !== "string")) {
        out.problems.push({ path, reason: "content is not text" });
        return;
      }
      const got = cloudInitContent(String(w.content ?? ""), String(w.encoding ?? ""));
      if (typeof got === "string") out.problems.push({ path, reason: got });
      else out.files.push(entry(path, got));
    });
    return out;
  }
  const t = text.trimStart();
  if (!t.startsWith("{")) return undefined;
  let cfg: unknown;
  try {
    cfg = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (!isObject(cfg) || !isObject(cfg.ignition) || typeof cfg.ignition.version !== "string") {
    return undefined;
  }
  const out: PayloadFiles = { format: "ignition", files: [], problems: [] };
  const storage = isObject(cfg.storage) ? cfg.storage : {};
  const files = Array.isArray(storage.files) ? storage.files : [];
  files.forEach((f, i) => {
    const path = isObject(f) && typeof f.path === "string" ? f.path : `storage.files[${i}]`;
    const contents = isObject(f) && isObject(f.contents) ? f.contents : {};
    let bytes: Uint8Array | undefined;
    if (typeof contents.inline === "string") bytes = new TextEncoder().encode(contents.inline);
    else if (typeof contents.source === "string") bytes = decodeDataUrl(contents.source);
    else if (contents.source === undefined || contents.source === null) bytes = new Uint8Array();
    if (!bytes) {
      out.problems.push({ path, reason: "contents.source is not a data URL joinkit can read" });
      return;
    }
    if (contents.compression === "gzip") {
      try {
        bytes = gunzip(bytes);
      } catch {
        out.problems.push({ path, reason: "contents are not gzip" });
        return;
      }
    }
    out.files.push(entry(path, bytes));
  });
  return out;
}
