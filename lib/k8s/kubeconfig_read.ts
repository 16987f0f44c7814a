/**
 * Reading a kubeconfig as client-go's `clientcmd.Load` reads it, and choosing
 * its cluster as kubeadm's `GetClusterFromKubeConfig` does.
 *
 * `clientcmd.Load` (c-g `tools/clientcmd/loader.go`): empty input is an empty
 * Config; otherwise YAML is turned into JSON (sigs.k8s.io/yaml `YAMLToJSON`:
 * first document only, duplicate keys allowed, last wins, keys sorted) and
 * decoded non-strictly into a v1 `Config`: unknown fields are ignored, field
 * names are case-sensitive, a value of the wrong JSON type is an error (the
 * first one in key order, `encoding/json`'s `UnmarshalTypeError` text), and
 * `[]byte` fields are standard base64 with CR/LF ignored. The v1 lists are
 * then converted to maps, and a repeated `name` is refused
 * (`tools/clientcmd/api/v1/conversion.go`). An entry without `name` is the one
 * named "".
 *
 * @module
 */

import { isScalar, parseAllDocuments, visit } from "yaml";
import { isObject } from "../base/object.ts";
import { goQuote } from "../go/quote.ts";
import { InputError } from "../base/errors.ts";

/** One cluster entry of a loaded kubeconfig. */
export interface KubeconfigCluster {
  /** Its name ("" for the unnamed cluster cluster-info uses). */
  name: string;
  /** `server`, or "" when absent. */
  server: string;
  /** Decoded `certificate-authority-data` (the raw bytes), empty when absent. */
  caData: Uint8Array;
  /** `certificate-authority` (a file path), or "". */
  caFile: string;
}

/** One user entry of a loaded kubeconfig. */
export interface KubeconfigUser {
  name: string;
  /** Decoded `client-certificate-data`, empty when absent. */
  clientCertData: Uint8Array;
  /**
   * kubeadm's `HasAuthenticationCredentials` for this user: a `token`;
   * `username` and `password`; or a client certificate and key (file or data).
   */
  hasCredentials: boolean;
  /** A field that names a file (`client-certificate`, `client-key`, `tokenFile`), or "". */
  fileRef: string;
}

/** What joinkit reads from a kubeconfig (client-go's `api.Config`, the parts used). */
export interface ParsedKubeconfig {
  /** Clusters in file order; names are unique (the loader refuses repeats). */
  clusters: KubeconfigCluster[];
  /** Users in file order; names are unique. */
  users: KubeconfigUser[];
  /** `current-context`, or "". */
  currentContext: string;
  /** Context name → cluster name. */
  contextClusters: Map<string, string>;
  /** Context name → user name. */
  contextUsers: Map<string, string>;
}

// ---------------------------------------------------------------------------
// The v1 schema (c-g tools/clientcmd/api/v1/types.go), as encoding/json sees it.

type FieldType =
  | { kind: "string" | "bool" | "bytes" | "any" }
  | { kind: "strings" | "stringMap" | "stringsMap" }
  | { kind: "struct"; type: StructType }
  | { kind: "list"; of: StructType };

interface StructType {
  /** Go name, e.g. `NamedCluster` (as `UnmarshalTypeError` names it). */
  name: string;
  fields: Record<string, FieldType>;
}

const str: FieldType = { kind: "string" };
const bool: FieldType = { kind: "bool" };
const bytes: FieldType = { kind: "bytes" };
const struct = (type: StructType): FieldType => ({ kind: "struct", type });
const list = (of: StructType): FieldType => ({ kind: "list", of });

const NamedExtension: StructType = {
  name: "NamedExtension",
  fields: { name: str, extension: { kind: "any" } },
};
const extensions = list(NamedExtension);
const Preferences: StructType = { name: "Preferences", fields: { colors: bool, extensions } };
const Cluster: StructType = {
  name: "Cluster",
  fields: {
    server: str,
    "tls-server-name": str,
    "insecure-skip-tls-verify": bool,
    "certificate-authority": str,
    "certificate-authority-data": bytes,
    "proxy-url": str,
    "disable-compression": bool,
    extensions,
  },
};
const AuthProviderConfig: StructType = {
  name: "AuthProviderConfig",
  fields: { name: str, config: { kind: "stringMap" } },
};
const ExecEnvVar: StructType = { name: "ExecEnvVar", fields: { name: str, value: str } };
const ExecConfig: StructType = {
  name: "ExecConfig",
  fields: {
    command: str,
    args: { kind: "strings" },
    env: list(ExecEnvVar),
    apiVersion: str,
    installHint: str,
    provideClusterInfo: bool,
    interactiveMode: str,
  },
};
const AuthInfo: StructType = {
  name: "AuthInfo",
  fields: {
    "client-certificate": str,
    "client-certificate-data": bytes,
    "client-key": str,
    "client-key-data": bytes,
    token: str,
    tokenFile: str,
    as: str,
    "as-uid": str,
    "as-groups": { kind: "strings" },
    "as-user-extra": { kind: "stringsMap" },
    username: str,
    password: str,
    "auth-provider": struct(AuthProviderConfig),
    exec: struct(ExecConfig),
    extensions,
  },
};
const Context: StructType = {
  name: "Context",
  fields: { cluster: str, user: str, namespace: str, extensions },
};
const NamedCluster: StructType = {
  name: "NamedCluster",
  fields: { name: str, cluster: struct(Cluster) },
};
const NamedAuthInfo: StructType = {
  name: "NamedAuthInfo",
  fields: { name: str, user: struct(AuthInfo) },
};
const NamedContext: StructType = {
  name: "NamedContext",
  fields: { name: str, context: struct(Context) },
};
const Config: StructType = {
  name: "Config",
  fields: {
    kind: str,
    apiVersion: str,
    preferences: struct(Preferences),
    clusters: list(NamedCluster),
    users: list(NamedAuthInfo),
    contexts: list(NamedContext),
    "current-context": str,
    extensions,
  },
};

function goTypeName(t: FieldType): string {
  switch (t.kind) {
    case "string":
      return "string";
    case "bool":
      return "bool";
    case "bytes":
      return "[]uint8";
    case "strings":
      return "[]string";
    case "stringMap":
      return "map[string]string";
    case "stringsMap":
      return "map[string][]string";
    case "struct":
      return `v1.${t.type.name}`;
    case "list":
      return `[]v1.${t.of.name}`;
    case "any":
      return "interface {}";
  }
}

/** The JSON kind of a value, as `UnmarshalTypeError.Value` names it. */
function jsonKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

/**
 * Go's `base64.StdEncoding.DecodeString` (padding required, CR/LF skipped,
 * non-zero trailing bits tolerated); the error is `illegal base64 data at
 * input byte N`, N counted in the input as given.
 */
export function goStdBase64(text: string): Uint8Array | string {
  const src = new TextEncoder().encode(text);
  const out: number[] = [];
  const n = src.length;
  const corrupt = (at: number) => `illegal base64 data at input byte ${at}`;
  const isNewline = (c: number | undefined) => c === 0x0a || c === 0x0d;
  const PAD = 0x3d;
  let si = 0;
  // encoding/base64 decodeQuantum, one quantum per iteration.
  for (;;) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailing: string | undefined;
    for (let j = 0; j < 4; j++) {
      if (si === n) {
        if (j === 0) return new Uint8Array(out);
        return corrupt(si - j); // StdEncoding requires padding
      }
      const c = src[si]!;
      si++;
      const v = B64_DECODE[c]!;
      if (v !== 0xff) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) return corrupt(si - 1);
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        // "==" expected; newlines may sit between the two.
        while (si < n && isNewline(src[si])) si++;
        if (si === n) return corrupt(n);
        if (src[si] !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < n && isNewline(src[si])) si++;
      if (si < n) trailing = corrupt(si);
      dlen = j;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const b = [(val >>> 16) & 0xff, (val >>> 8) & 0xff, val & 0xff];
    out.push(...b.slice(0, dlen - 1));
    if (trailing !== undefined) return trailing;
    if (dlen < 4) return new Uint8Array(out);
  }
}

const B64_DECODE: number[] = (() => {
  const t = new Array<number>(256).fill(0xff);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
})();

/** Thrown for anything `clientcmd.Load` refuses; the message is client-go's text. */
export class KubeconfigLoadError extends InputError {}

interface Decoder {
  /** The first type error, as `encoding/json` keeps it (`saveError`). */
  error?: string;
}

/**
 * Walks `value` against `type` the way `encoding/json` decodes (object keys
 * in sorted order, as YAMLToJSON writes them), recording the first type error.
 */
function check(d: Decoder, value: unknown, type: FieldType, owner: string, path: string[]) {
  if (value === null || value === undefined || d.error !== undefined) return;
  const typeError = () => {
    d.error = `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${owner}.${
      path.join(".")
    } of type ${goTypeName(type)}`;
  };
  switch (type.kind) {
    case "any":
      return;
    case "string":
      if (typeof value !== "string") typeError();
      return;
    case "bool":
      if (typeof value !== "boolean") typeError();
      return;
    case "bytes":
      if (typeof value !== "string") {
        // encoding/json decodes an array of numbers into []byte too; nothing real writes that.
        if (!Array.isArray(value)) typeError();
        return;
      }
      {
        const r = goStdBase64(value);
        if (typeof r === "string") d.error = r;
      }
      return;
    case "strings":
      if (!Array.isArray(value)) return typeError();
      for (const v of value) check(d, v, str, owner, path);
      return;
    case "stringMap":
    case "stringsMap":
      if (!isObject(value)) return typeError();
      for (const k of Object.keys(value).sort()) {
        const v = value[k];
        if (type.kind === "stringMap") check(d, v, str, owner, path);
        else check(d, v, { kind: "strings" }, owner, path);
      }
      return;
    case "struct":
      if (!isObject(value)) return typeError();
      checkStruct(d, value, type.type, path);
      return;
    case "list":
      if (!Array.isArray(value)) return typeError();
      for (const v of value) {
        if (v === null) continue;
        if (!isObject(v)) {
          d.error ??= `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${owner}.${
            path.join(".")
          } of type v1.${type.of.name}`;
          return;
        }
        checkStruct(d, v, type.of, path);
      }
      return;
  }
}

function checkStruct(d: Decoder, obj: Record<string, unknown>, type: StructType, path: string[]) {
  for (const key of Object.keys(obj).sort()) {
    const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
    if (field === undefined) continue; // unknown fields are ignored (non-strict decoding)
    check(d, obj[key], field, type.name, [...path, key]);
  }
}

/** YAML (or JSON) text to the JSON value YAMLToJSON would produce. */
function yamlToJson(text: string): unknown {
  const docs = parseAllDocuments(text, { version: "1.1", uniqueKeys: false, merge: true });
  const first = Array.isArray(docs) ? docs[0] : undefined;
  if (first === undefined) return null;
  if (first.errors.length > 0) {
    const msg = first.errors[0]!.message.split("\n")[0];
    throw new KubeconfigLoadError(`error converting YAML to JSON: yaml: ${msg}`);
  }
  // go-yaml v2 keeps timestamps and sexagesimal numbers as strings for interface{}.
  visit(first, {
    Scalar(_key, node) {
      if (!isScalar(node) || node.source === undefined) return;
      const v = node.value;
      if (v instanceof Date || (typeof v === "number" && node.format === "TIME")) {
        node.value = node.source;
      }
    },
  });
  try {
    return first.toJS({ maxAliasCount: 100 });
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).split("\n")[0];
    throw new KubeconfigLoadError(`error converting YAML to JSON: yaml: ${msg}`);
  }
}

/** `apiVersion` / `kind` as the meta factory reads them (encoding/json: case-insensitive keys). */
function typeMeta(doc: Record<string, unknown>): { apiVersion: string; kind: string } {
  const out = { apiVersion: "", kind: "" };
  for (const key of Object.keys(doc).sort()) {
    const lower = key.toLowerCase();
    if (lower !== "apiversion" && lower !== "kind") continue;
    const v = doc[key];
    if (v === null || v === undefined) continue;
    const field = lower === "kind" ? "kind" : "apiVersion";
    if (typeof v !== "string") {
      throw new KubeconfigLoadError(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${
          jsonKind(v)
        } into Go struct field .${field} of type string`,
      );
    }
    out[field] = v;
  }
  return out;
}

const decodeBytes = (v: unknown): Uint8Array => {
  if (typeof v !== "string") return new Uint8Array();
  const r = goStdBase64(v);
  return typeof r === "string" ? new Uint8Array() : r;
};

const asString = (v: unknown): string => (typeof v === "string" ? v : "");

const entries = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.map((e) => (isObject(e) ? e : {})) : [];

/**
 * `Convert_Slice_v1_Named*`: the entries become a map; a repeated name is
 * refused. Each entry's own nested extension list is converted first.
 */
function convertList(
  items: Record<string, unknown>[],
  goList: string,
  goMap: string,
  nested?: string,
): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (nested !== undefined) {
      const inner = item[nested];
      if (isObject(inner)) convertExtensions(inner.extensions);
    }
    const name = asString(item.name);
    if (seen.has(name)) {
      // Go adds ": <%v of the whole list>" (Go structs); the text up to "in list" is the stable part.
      throw new KubeconfigLoadError(
        `error converting *[]${goList} into *map[string]${goMap}: duplicate name "${name}" in list`,
      );
    }
    seen.add(name);
  }
}

function convertExtensions(v: unknown): void {
  convertList(entries(v), "NamedExtension", "runtime.Object");
}

/**
 * Loads a kubeconfig as `clientcmd.Load` does. Throws `KubeconfigLoadError`
 * with client-go's text (no source prefix) for what it refuses.
 *
 * @example
 * ```ts ignore
 * loadKubeconfig(text).clusters[0]?.server;
 * ```
 */
export function loadKubeconfig(text: string): ParsedKubeconfig {
  const empty: ParsedKubeconfig = {
    clusters: [],
    users: [],
    currentContext: "",
    contextClusters: new Map(),
    contextUsers: new Map(),
  };
  if (text.length === 0) return empty;
  const doc = yamlToJson(text);
  if (doc === null || doc === undefined) return empty;
  if (!isObject(doc)) {
    throw new KubeconfigLoadError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${
        jsonKind(doc)
      } into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const meta = typeMeta(doc);
  const slash = meta.apiVersion.indexOf("/");
  const group = slash >= 0 ? meta.apiVersion.slice(0, slash) : "";
  const version = (slash >= 0 ? meta.apiVersion.slice(slash + 1) : meta.apiVersion) ||
    (group === "" ? "v1" : "");
  const kind = meta.kind || "Config";
  if (group !== "" || version !== "v1" || kind !== "Config") {
    throw new KubeconfigLoadError(
      `no kind ${goQuote(kind)} is registered for version ${
        goQuote(group ? `${group}/${version}` : version)
      } in scheme "k8s.io/client-go/tools/clientcmd/api/latest/latest.go"`,
    );
  }
  const d: Decoder = {};
  checkStruct(d, doc, Config, []);
  if (d.error !== undefined) throw new KubeconfigLoadError(d.error);

  // Conversion to api.Config, in v1.Config's field order.
  const prefs = isObject(doc.preferences) ? doc.preferences : {};
  convertExtensions(prefs.extensions);
  const clusterItems = entries(doc.clusters);
  convertList(clusterItems, "NamedCluster", "*api.Cluster", "cluster");
  const userItems = entries(doc.users);
  convertList(userItems, "NamedAuthInfo", "*api.AuthInfo", "user");
  const contextItems = entries(doc.contexts);
  convertList(contextItems, "NamedContext", "*api.Context", "context");
  convertExtensions(doc.extensions);

  const clusters = clusterItems.map((item): KubeconfigCluster => {
    const c = isObject(item.cluster) ? item.cluster : {};
    return {
      name: asString(item.name),
      server: asString(c.server),
      caData: decodeBytes(c["certificate-authority-data"]),
      caFile: asString(c["certificate-authority"]),
    };
  });
  const users = userItems.map((item): KubeconfigUser => {
    const u = isObject(item.user) ? item.user : {};
    const set = (k: string) => asString(u[k]) !== "";
    const hasCredentials = set("token") || (set("username") && set("password")) ||
      ((set("client-certificate") || set("client-certificate-data")) &&
        (set("client-key") || set("client-key-data")));
    const fileRef = ["client-certificate", "client-key", "tokenFile"].find(set) ?? "";
    return {
      name: asString(item.name),
      clientCertData: decodeBytes(u["client-certificate-data"]),
      hasCredentials,
      fileRef,
    };
  });
  const contextClusters = new Map<string, string>();
  const contextUsers = new Map<string, string>();
  for (const item of contextItems) {
    const c = isObject(item.context) ? item.context : {};
    contextClusters.set(asString(item.name), asString(c.cluster));
    contextUsers.set(asString(item.name), asString(c.user));
  }
  return {
    clusters,
    users,
    currentContext: asString(doc["current-context"]),
    contextClusters,
    contextUsers,
  };
}

/**
 * {@link loadKubeconfig} with errors prefixed by `source`, e.g.
 * `admin.conf: error converting *[]NamedCluster …`.
 *
 * @example
 * ```ts ignore
 * parseKubeconfig(text, "cluster-info").clusters[0]?.server;
 * ```
 */
export function parseKubeconfig(text: string, source: string): ParsedKubeconfig {
  try {
    return loadKubeconfig(text);
  } catch (e) {
    if (e instanceof KubeconfigLoadError) throw new InputError(`${source}: ${e.message}`);
    throw e;
  }
}

/** The cluster kubeadm chooses, and its name in the kubeconfig. */
export interface ChosenCluster {
  name: string;
  cluster: KubeconfigCluster;
}

/**
 * kubeadm's `GetClusterFromKubeConfig` as in the 1.32–1.35 patch releases
 * carrying k/k#134715: the unnamed cluster "" when there is one; otherwise
 * the cluster of the current context. A named cluster no current context
 * points at is never chosen, even when it is the only one. Throws
 * `InputError` when the current context or its cluster is missing (kubeadm's
 * discovery wraps it as `malformed kubeconfig in the cluster-info ConfigMap`).
 *
 * The inner texts are joinkit's: upstream's were not available to compare
 * (go-exact.md §8); only the wrapper is kubeadm's.
 *
 * @example
 * ```ts ignore
 * getClusterFromKubeConfig(loadKubeconfig(text)).cluster.server;
 * ```
 */
export function getClusterFromKubeConfig(config: ParsedKubeconfig): ChosenCluster {
  const unnamed = config.clusters.find((c) => c.name === "");
  if (unnamed) return { name: "", cluster: unnamed };
  const current = config.currentContext;
  const clusterName = config.contextClusters.get(current);
  if (clusterName === undefined) {
    throw new InputError(
      `no unnamed cluster, and the current context ${
        JSON.stringify(current)
      } is not in the kubeconfig`,
    );
  }
  const cluster = config.clusters.find((c) => c.name === clusterName);
  if (!cluster) {
    throw new InputError(
      `cluster ${JSON.stringify(clusterName)} of the current context ${
        JSON.stringify(current)
      } is not in the kubeconfig`,
    );
  }
  return { name: clusterName, cluster };
}

/**
 * {@link getClusterFromKubeConfig} without the error: `undefined` when
 * kubeadm would find no cluster.
 */
export function clusterOf(config: ParsedKubeconfig): KubeconfigCluster | undefined {
  try {
    return getClusterFromKubeConfig(config).cluster;
  } catch {
    return undefined;
  }
}
