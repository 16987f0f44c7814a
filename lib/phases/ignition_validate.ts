/**
 * The rules Ignition (spec v3, coreos/ignition `config/v3_*`) applies to a
 * config before it writes anything, for the parts joinkit's payloads use
 * (`ignition`, `storage.files`/`directories`/`links`, `systemd.units`),
 * with Ignition's error texts. `node-payload` runs it over every Ignition
 * payload it renders (a final self-check) and the tests run it over
 * hostile inputs.
 *
 * Followed: `Node.Validate`/`validatePath` (`path not specified`, `path
 * not absolute`, `path is not fully simplified`: `path.Clean(p) != p`);
 * `validateMode` (0–07777, and no setuid/setgid/sticky bits before spec
 * 3.4.0); `validateURL` for `contents.source` (schemes http, https, tftp,
 * s3, data; a data URL must decode); `compression` "" or gzip; `overwrite`
 * with no source; user/group with both id and name; `ValidateDups` (one
 * path across files, directories and links: `duplicate entry defined`;
 * unit names; drop-in names); `Storage.Validate` (nothing under a link);
 * spec ≥ 3.1's `ErrPathConflictsSystemd` (a node at
 * `/etc/systemd/system/<unit>` of a unit with contents), applied to every
 * version; unit names by extension and contents that parse as a unit
 * file; `ValidateInstallSection` (an enabled unit with contents but no
 * `[Install]` section: a warning in Ignition, reported here). Also unknown
 * keys (Ignition warns `Unused key`). Added from Ignition's runtime, not its
 * validator: a node under a file cannot be created.
 *
 * @module
 */

import { validateUnits } from "./ignition_units.ts";
import { goPathClean } from "./node_payload_paths.ts";

/** The spec versions this validator knows (Ignition v2.x reads all of them). */
const VERSIONS = ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0"];

const NODE_KEYS = ["path", "overwrite", "user", "group"];
const KEYS: Record<string, string[]> = {
  root: ["ignition", "storage", "systemd", "passwd", "kernelArguments"],
  ignition: ["version", "config", "timeouts", "security", "proxy"],
  storage: ["disks", "raid", "filesystems", "files", "directories", "links", "luks"],
  file: [...NODE_KEYS, "mode", "contents", "append"],
  directory: [...NODE_KEYS, "mode"],
  link: [...NODE_KEYS, "target", "hard"],
  owner: ["id", "name"],
  contents: ["compression", "source", "verification", "httpHeaders"],
  systemd: ["units"],
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** What {@link validateIgnitionConfig} found: `path: text` lines. */
export interface IgnitionReport {
  errors: string[];
  warnings: string[];
}

/**
 * Judges an Ignition config (already parsed JSON) as Ignition would:
 * `errors` make Ignition refuse the whole config; `warnings` are what it
 * logs and goes on (unused keys, an enabled unit without `[Install]`).
 *
 * @example
 * ```ts
 * validateIgnitionConfig({ ignition: { version: "3.0.0" }, storage: { files: [{ path: "/a/../b" }] } }).errors;
 * // ["storage.files.0.path: path is not fully simplified"]
 * ```
 */
export function validateIgnitionConfig(cfg: unknown): IgnitionReport {
  const r: IgnitionReport = { errors: [], warnings: [] };
  if (!isObj(cfg)) {
    r.errors.push("config is not valid");
    return r;
  }
  keys(cfg, "root", "", r);
  const ign = cfg.ignition;
  const version = isObj(ign) ? ign.version : undefined;
  if (isObj(ign)) keys(ign, "ignition", "ignition", r);
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version)) {
    r.errors.push("ignition.version: invalid config version (couldn't parse)");
  } else if (!VERSIONS.includes(version)) {
    r.errors.push("ignition.version: unsupported config version");
  }
  const minor = typeof version === "string" ? Number(version.split(".")[1]) : 0;

  const storage = isObj(cfg.storage) ? cfg.storage : {};
  if (cfg.storage !== undefined) keys(storage, "storage", "storage", r);
  const systemd = isObj(cfg.systemd) ? cfg.systemd : {};
  if (cfg.systemd !== undefined) keys(systemd, "systemd", "systemd", r);

  // Nodes: directories, files, links share one key space (MergedKeys "Node"), checked in the
  // order of Storage's fields, so the later entry of a pair is the one reported.
  const nodes: { at: string; path: string; kind: "file" | "directory" | "link" }[] = [];
  const seen = new Set<string>();
  for (
    const [section, kind] of [
      ["directories", "directory"],
      ["files", "file"],
      ["links", "link"],
    ] as const
  ) {
    const list = storage[section];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      r.errors.push(`storage.${section}: not a list`);
      continue;
    }
    list.forEach((n, i) => {
      const at = `storage.${section}.${i}`;
      if (!isObj(n)) {
        r.errors.push(`${at}: not an object`);
        return;
      }
      keys(n, kind, at, r);
      const path = typeof n.path === "string" ? n.path : "";
      const pathError = validatePath(path);
      if (pathError) r.errors.push(`${at}.path: ${pathError}`);
      if (seen.has(path)) r.errors.push(`${at}: duplicate entry defined`);
      seen.add(path);
      nodes.push({ at, path, kind });
      for (const who of ["user", "group"]) {
        const o = n[who];
        if (o === undefined) continue;
        if (!isObj(o)) {
          r.errors.push(`${at}.${who}: not an object`);
          continue;
        }
        keys(o, "owner", `${at}.${who}`, r);
        if (o.id !== undefined && !Number.isInteger(o.id)) {
          r.errors.push(`${at}.${who}.id: not an integer`);
        }
        if (o.name !== undefined && typeof o.name !== "string") {
          r.errors.push(`${at}.${who}.name: not a string`);
        }
        if (o.id !== undefined && o.id !== null && typeof o.name === "string" && o.name !== "") {
          r.errors.push(`${at}.${who}: cannot set both id and name`);
        }
      }
      if (kind !== "link" && n.mode !== undefined) {
        const modeError = validateMode(n.mode);
        if (modeError) r.errors.push(`${at}.mode: ${modeError}`);
        if (typeof n.mode === "number" && n.mode & 0o7000 && minor < 4) {
          r.warnings.push(
            `${at}.mode: setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0`,
          );
        }
      }
      if (kind === "file") validateContents(n, at, r, minor);
      if (kind === "link" && (typeof n.target !== "string" || n.target === "")) {
        r.errors.push(`${at}.target: link target is required`);
      }
    });
  }
  for (const n of nodes) {
    for (const l of nodes) {
      if (l.kind === "link" && n.path.startsWith(l.path + "/")) {
        r.errors.push(`${n.at}: ${n.kind} path includes link in config`);
      }
      // Both paths valid and not the root, else the path rules above have said it already.
      if (
        l.kind === "file" && l.path !== "/" && validatePath(l.path) === undefined &&
        validatePath(n.path) === undefined && n.path.startsWith(l.path + "/")
      ) {
        r.errors.push(`${n.at}.path: ${l.path} is a file in the config (${l.at}), not a directory`);
      }
    }
  }

  const unitPaths = validateUnits(systemd.units, r);
  for (const n of nodes) {
    if (unitPaths.has(n.path)) {
      r.errors.push(`${n.at}.path: path conflicts with systemd unit or dropin`);
    }
  }
  return r;
}

/** Ignition's `validatePath`. */
function validatePath(p: string): string | undefined {
  if (p === "") return "path not specified";
  if (!p.startsWith("/")) return "path not absolute";
  if (goPathClean(p) !== p) return "path is not fully simplified";
  return undefined;
}

/** Ignition's `validateMode` (and, before spec 3.4.0, `ErrModeSpecialBits`). */
function validateMode(mode: unknown): string | undefined {
  if (mode === null) return undefined;
  if (!Number.isInteger(mode)) return "not an integer";
  const m = mode as number;
  if (m < 0 || m > 0o7777) return "illegal file mode";
  return undefined;
}

function validateContents(f: Obj, at: string, r: IgnitionReport, minor: number): void {
  const c = f.contents;
  let source: string | undefined;
  if (c !== undefined) {
    if (!isObj(c)) {
      r.errors.push(`${at}.contents: not an object`);
      return;
    }
    keys(c, "contents", `${at}.contents`, r);
    if (
      c.compression !== undefined && c.compression !== null && c.compression !== "" &&
      c.compression !== "gzip"
    ) {
      r.errors.push(`${at}.contents.compression: invalid compression method`);
    }
    if (c.source !== undefined && c.source !== null) {
      if (typeof c.source !== "string") r.errors.push(`${at}.contents.source: not a string`);
      else {
        source = c.source;
        const e = validateUrl(c.source, minor);
        if (e) r.errors.push(`${at}.contents.source: ${e}`);
      }
    }
  }
  if (f.overwrite === true && source === undefined) {
    r.errors.push(`${at}.overwrite: overwrite must be false if source is unspecified`);
  }
}

/**
 * Ignition's `validateURL`: Go's `url.Parse` (a control character fails),
 * the schemes of the spec version (gs from 3.2.0, arn from 3.4.0), and a
 * data URL that decodes (the text of vincent-petithory/dataurl for a bad
 * `%` escape).
 */
function validateUrl(s: string, minor: number): string | undefined {
  if (s === "") return undefined;
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(s)) return "unable to parse url";
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (!m) return "invalid url scheme";
  const scheme = m[1]!.toLowerCase();
  const schemes = [
    "http",
    "https",
    "tftp",
    "s3",
    ...(minor >= 2 ? ["gs"] : []),
    ...(minor >= 4 ? ["arn"] : []),
  ];
  if (schemes.includes(scheme)) return undefined;
  if (scheme !== "data") return "invalid url scheme";
  return dataUrlBytes(s) === undefined
    ? "rfc2396: invalid char 0x25 in unescape sequence"
    : undefined;
}

/**
 * The bytes an RFC 2397 `data:` URL carries, as vincent-petithory/dataurl
 * (Ignition's decoder) reads them, or undefined when it does not decode: a
 * `,` must end the media type, `%` must start a two-digit hex escape, and
 * `;base64` data must be standard base64.
 *
 * @example
 * ```ts
 * new TextDecoder().decode(dataUrlBytes("data:,a%20b")); // "a b"
 * ```
 */
export function dataUrlBytes(url: string): Uint8Array | undefined {
  if (!/^data:/i.test(url)) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  const base64 = /;base64$/i.test(meta);
  const bytes: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const ch = data.charCodeAt(i);
    if (ch === 0x25) {
      const hi = hexValue(data.charCodeAt(i + 1));
      const lo = hexValue(data.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) return undefined;
      bytes.push(hi * 16 + lo);
      i += 2;
    } else if (ch < 0x80) bytes.push(ch);
    else {
      const cp = data.codePointAt(i)!;
      const char = String.fromCodePoint(cp);
      bytes.push(...new TextEncoder().encode(char));
      i += char.length - 1;
    }
  }
  if (!base64) return new Uint8Array(bytes);
  const text = String.fromCharCode(...bytes);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) {
    return undefined;
  }
  return new Uint8Array(atob(text).split("").map((c) => c.charCodeAt(0)));
}

/** The value of a hex digit's char code, or -1 (NaN, past the end, included). */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
}

/** Ignition's `Unused key` warnings for the keys of `o` that `what` does not define. */
export function unusedKeys(o: Obj, known: readonly string[], at: string, r: IgnitionReport): void {
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) r.warnings.push(`${at ? at + "." : ""}${k}: Unused key ${k}`);
  }
}

function keys(o: Obj, what: string, at: string, r: IgnitionReport): void {
  unusedKeys(o, KEYS[what]!, at, r);
}
