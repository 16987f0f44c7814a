/**
 * Just enough kubeconfig parsing to read the cluster out of a cluster-info
 * kubeconfig, as `clientcmd.Load` and kubeadm's `GetClusterFromKubeConfig` do.
 *
 * @module
 */

import { isScalar, parseDocument, visit } from "yaml";
import { decodeGoBase64 } from "./base64.ts";
import { InputError } from "./errors.ts";
import { isObject } from "./manifest.ts";

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
    const caData = typeof ca === "string" ? decodeGoBase64(ca) : undefined;
    if (caData === undefined) {
      throw fail(source, `clusters[${i}].cluster.certificate-authority-data is not base64`);
    }
    return { name, server, caData };
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
