/**
 * Kubeconfig files as client-go's `clientcmd.Write` serialises them (the
 * bytes kubectl and kubeadm write), and just enough parsing to read the
 * cluster out of a cluster-info kubeconfig.
 *
 * Quoting follows go-yaml v2 (what `sigs.k8s.io/yaml` uses): a string that
 * Go would read back as a bool, number, null or timestamp is double-quoted;
 * one that cannot be plain for syntax reasons is single-quoted; anything else
 * is plain. Keys are sorted and sequences are not indented, as in kubectl.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { isScalar, parseDocument, Scalar, stringify, type Tags, visit } from "yaml";
import { certificatesFromPem } from "./certsource.ts";
import { InputError } from "./errors.ts";
import { decodePem, encodePem } from "./pem.ts";
import { isObject, toJson } from "./manifest.ts";

/** kubeadm's default cluster name (`DefaultClusterName`). */
export const DEFAULT_CLUSTER_NAME = "kubernetes";

/** The user kubeadm names in the TLS-bootstrap kubeconfig (`discovery.TokenUser`). */
export const TLS_BOOTSTRAP_USER = "tls-bootstrap-token-user";

/** A kubeconfig in its v1 serialised form (`clientcmd/api/v1.Config`). */
export type KubeconfigObject = Record<string, unknown>;

/** Inputs of {@link tokenKubeconfig}. */
export interface TokenKubeconfigOptions {
  /** API server URL, e.g. `https://10.0.0.1:6443`. */
  server: string;
  /** CA bundle bytes (PEM) to embed as `certificate-authority-data`. */
  caData: Uint8Array;
  /** The bearer token. */
  token: string;
  /** Cluster name (default `kubernetes`). */
  clusterName?: string;
  /** User name (default `tls-bootstrap-token-user`). */
  user?: string;
}

/**
 * kubeadm's `CreateWithToken(server, cluster, user, caData, token)`: one
 * cluster, one user with the token, one context `<user>@<cluster>` that is
 * current. Serialised as kubectl v1.32 writes it (with `preferences: {}`), so
 * it is byte-identical to `kubectl config set-cluster --embed-certs`,
 * `set-credentials --token`, `set-context` and `use-context`.
 *
 * @example
 * ```ts
 * kubeconfigYaml(tokenKubeconfig({ server, caData, token }));
 * ```
 */
export function tokenKubeconfig(opts: TokenKubeconfigOptions): KubeconfigObject {
  const cluster = opts.clusterName ?? DEFAULT_CLUSTER_NAME;
  const user = opts.user ?? TLS_BOOTSTRAP_USER;
  const context = `${user}@${cluster}`;
  const clusterEntry: Record<string, string> = { server: opts.server };
  // `[]byte` with omitempty: no key at all when there is no CA.
  if (opts.caData.length > 0) {
    clusterEntry["certificate-authority-data"] = Buffer.from(opts.caData).toString("base64");
  }
  return {
    apiVersion: "v1",
    clusters: [{ cluster: clusterEntry, name: cluster }],
    contexts: [{ context: { cluster, user }, name: context }],
    "current-context": context,
    kind: "Config",
    preferences: {},
    users: [{ name: user, user: { token: opts.token } }],
  };
}

/**
 * The kubeconfig kubeadm stores in `cluster-info` (`clusterinfo.go`): the
 * server and CA only, under the empty cluster name, with no users, contexts
 * or current context, as current client-go writes it (`null` lists, no
 * `preferences`; see upstream `discovery/token/testdata/expected-kubeconfig.yaml`).
 *
 * @example
 * ```ts
 * kubeconfigYaml(clusterInfoKubeconfig("https://10.0.0.1:6443", caPem));
 * ```
 */
export function clusterInfoKubeconfig(server: string, caData: Uint8Array): KubeconfigObject {
  return {
    apiVersion: "v1",
    clusters: [{
      cluster: {
        "certificate-authority-data": Buffer.from(caData).toString("base64"),
        server,
      },
      name: "",
    }],
    contexts: null,
    "current-context": "",
    kind: "Config",
    users: null,
  };
}

// ---- go-yaml v2 scalar resolution -------------------------------------------------

const GO_RESOLVE_MAP = new Set([
  "y",
  "Y",
  "yes",
  "Yes",
  "YES",
  "on",
  "On",
  "ON",
  "true",
  "True",
  "TRUE",
  "n",
  "N",
  "no",
  "No",
  "NO",
  "off",
  "Off",
  "OFF",
  "false",
  "False",
  "FALSE",
  "",
  "~",
  "null",
  "Null",
  "NULL",
  ".nan",
  ".NaN",
  ".NAN",
  ".inf",
  ".Inf",
  ".INF",
  "+.inf",
  "+.Inf",
  "+.INF",
  "-.inf",
  "-.Inf",
  "-.INF",
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP =
  /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: \d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?))?$/;
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

/** Go's `strconv.ParseFloat` success for a string already matching YAML_STYLE_FLOAT. */
function goFloatOk(s: string): boolean {
  return Number.isFinite(Number(s));
}

/**
 * Whether go-yaml v2's `resolve` reads the plain scalar `s` as something
 * other than a string (so its encoder double-quotes it).
 */
export function goResolvesNonString(s: string): boolean {
  if (GO_RESOLVE_MAP.has(s)) return true;
  if (BASE60_FLOAT.test(s)) return true;
  const c = s[0];
  if (c === ".") return YAML_STYLE_FLOAT.test(s) && goFloatOk(s);
  if (c === undefined || !/[-+0-9]/.test(c)) return false;
  if (TIMESTAMP.test(s)) return true;
  const plain = s.replace(/_/g, "");
  if (GO_INT.test(plain)) return true; // int64 or uint64 (overflow falls through to float)
  if (YAML_STYLE_FLOAT.test(plain) && goFloatOk(plain)) return true;
  return false;
}

// Keep the YAML 1.1 tags for identifying values (null, booleans, numbers), but take
// quoting decisions from Go's rules only.
const noImplicitTests = (tags: Tags): Tags =>
  tags.map((t) =>
    typeof t === "object" && t.tag !== "tag:yaml.org,2002:str" && "test" in t
      ? { ...t, test: undefined } as typeof t
      : t
  );

const OPTIONS = {
  version: "1.1",
  customTags: noImplicitTests,
  indentSeq: false,
  lineWidth: 0,
  sortMapEntries: true,
  singleQuote: true,
} as const;

/**
 * Serialises a kubeconfig (or any JSON-like value) byte-for-byte as
 * client-go's `clientcmd.Write` / `sigs.k8s.io/yaml` does.
 *
 * @example
 * ```ts
 * kubeconfigYaml({ kind: "Config", apiVersion: "v1" }); // "apiVersion: v1\nkind: Config\n"
 * ```
 */
export function kubeconfigYaml(value: unknown): string {
  const quoteTyped = (v: unknown): unknown => {
    if (typeof v === "string") {
      let type: Scalar.Type | undefined;
      if (goResolvesNonString(v)) {
        type = Scalar.QUOTE_DOUBLE;
      } else if (
        // deno-lint-ignore no-control-regex
        v.includes("'") && !/[\x00-\x1f\x7f-\x9f]/.test(v) &&
        stringify(v, OPTIONS).startsWith('"')
      ) {
        // go-yaml single-quotes (doubling the quote) what cannot be plain; yaml switches to
        // double quotes when the text holds a single quote.
        type = Scalar.QUOTE_SINGLE;
      }
      if (type === undefined) return v;
      const s = new Scalar(v);
      s.type = type;
      return s;
    }
    if (Array.isArray(v)) return v.map(quoteTyped);
    if (isObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = quoteTyped(x);
      return out;
    }
    return v;
  };
  return stringify(quoteTyped(value), OPTIONS);
}

/** Renders a kubeconfig as YAML (`clientcmd.Write` bytes) or sorted JSON. */
export function renderKubeconfig(config: KubeconfigObject, format: "yaml" | "json"): string {
  return format === "json" ? toJson(config) : kubeconfigYaml(config);
}

// ---- parsing ----------------------------------------------------------------------

/** One cluster entry of a parsed kubeconfig. */
export interface KubeconfigCluster {
  /** Its name (may be empty, as in cluster-info). */
  name: string;
  /** `server`, or "" when absent. */
  server: string;
  /** Decoded `certificate-authority-data`, empty when absent. */
  caData: Uint8Array;
}

/** What joinkit reads from a kubeconfig. */
export interface ParsedKubeconfig {
  /** Clusters in file order. */
  clusters: KubeconfigCluster[];
  /** `current-context`, or "". */
  currentContext: string;
  /** Context name → cluster name. */
  contextClusters: Map<string, string>;
}

const fail = (source: string, why: string) => new InputError(`${source}: ${why}`);

/**
 * Parses a kubeconfig (YAML or JSON) as `clientcmd.Load` would, enough to
 * find its clusters. Throws `InputError` naming `source` when it is not a
 * kubeconfig.
 *
 * @example
 * ```ts
 * parseKubeconfig(text, "cluster-info").clusters[0]?.server;
 * ```
 */
export function parseKubeconfig(text: string, source: string): ParsedKubeconfig {
  let doc: unknown;
  try {
    const parsed = parseDocument(text, { version: "1.1", uniqueKeys: true });
    if (parsed.errors.length > 0) throw parsed.errors[0];
    // Go reads every scalar the kubeconfig schema declares as a string as a string.
    visit(parsed, {
      Scalar(_key, node) {
        if (
          isScalar(node) && node.source !== undefined &&
          (typeof node.value === "number" || typeof node.value === "boolean")
        ) {
          node.value = node.source;
        }
      },
    });
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw fail(
      source,
      `not YAML or JSON: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`,
    );
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isObject(doc)) throw fail(source, "not a kubeconfig (not a mapping)");
  if (doc.kind !== undefined && doc.kind !== "Config" && doc.kind !== "") {
    throw fail(source, `not a kubeconfig (kind ${JSON.stringify(doc.kind)})`);
  }
  const list = (key: string): unknown[] => {
    const v = doc[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw fail(source, `${key} is not a list`);
    return v;
  };
  const clusters: KubeconfigCluster[] = list("clusters").map((entry, i) => {
    if (!isObject(entry)) throw fail(source, `clusters[${i}] is not a mapping`);
    const name = entry.name ?? "";
    if (typeof name !== "string") throw fail(source, `clusters[${i}].name is not a string`);
    const c = entry.cluster ?? {};
    if (!isObject(c)) throw fail(source, `clusters[${i}].cluster is not a mapping`);
    const server = c.server ?? "";
    if (typeof server !== "string") {
      throw fail(source, `clusters[${i}].cluster.server is not a string`);
    }
    const ca = c["certificate-authority-data"] ?? "";
    if (typeof ca !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(ca) || ca.length % 4 !== 0) {
      throw fail(source, `clusters[${i}].cluster.certificate-authority-data is not base64`);
    }
    return { name, server, caData: new Uint8Array(Buffer.from(ca, "base64")) };
  });
  const contextClusters = new Map<string, string>();
  list("contexts").forEach((entry, i) => {
    if (!isObject(entry)) throw fail(source, `contexts[${i}] is not a mapping`);
    const ctx = isObject(entry.context) ? entry.context : {};
    contextClusters.set(String(entry.name ?? ""), String(ctx.cluster ?? ""));
  });
  const current = doc["current-context"] ?? "";
  return {
    clusters,
    currentContext: typeof current === "string" ? current : String(current),
    contextClusters,
  };
}

/**
 * kubeadm's `GetClusterFromKubeConfig`: the cluster of the current context
 * when there is one, else the first cluster. `undefined` when none is usable.
 */
export function clusterOf(config: ParsedKubeconfig): KubeconfigCluster | undefined {
  const byContext = config.contextClusters.get(config.currentContext);
  if (byContext !== undefined) {
    const c = config.clusters.find((x) => x.name === byContext);
    if (c) return c;
  }
  return config.clusters[0];
}

/** A CA bundle read from PEM. */
export interface CaBundle {
  /** Each certificate's DER, in file order. */
  ders: Uint8Array[];
  /** The certificates re-encoded as PEM (what kubeadm embeds from admin.conf). */
  pem: Uint8Array;
}

/**
 * Reads a PEM CA bundle: at least one `CERTIFICATE` block (else
 * `<source>: no certificate found`), and nothing else that is PEM, so a key
 * pasted into the same file is never embedded in a kubeconfig.
 *
 * @example
 * ```ts
 * caBundle(fs.readFileSync("ca.crt", "utf8"), "ca.crt").ders.length; // 1
 * ```
 */
export function caBundle(text: string, source: string): CaBundle {
  const ders = certificatesFromPem(text, source);
  const other = decodePem(text, source).find((b) => b.type !== "CERTIFICATE");
  if (other) {
    throw new InputError(
      `${source}: holds a ${other.type} block besides the certificates; refusing to embed it`,
    );
  }
  const pem = ders.map((der) => encodePem("CERTIFICATE", der)).join("");
  return { ders, pem: new Uint8Array(Buffer.from(pem, "utf8")) };
}
