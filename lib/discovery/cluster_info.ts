/**
 * The `kube-public/cluster-info` ConfigMap: building it as kubeadm does
 * (`phases/bootstraptoken/clusterinfo`) and finding it among input objects.
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { isObject } from "../base/object.ts";

/** `ConfigMapClusterInfo`. */
export const CLUSTER_INFO_NAME = "cluster-info";
/** `metav1.NamespacePublic`. */
export const CLUSTER_INFO_NAMESPACE = "kube-public";
/** `KubeConfigKey`. */
export const KUBECONFIG_KEY = "kubeconfig";
/** `JWSSignatureKeyPrefix`. */
export const JWS_KEY_PREFIX = "jws-kubeconfig-";

/**
 * The ConfigMap object: `data.kubeconfig` plus any `jws-kubeconfig-<id>`
 * signatures given.
 *
 * @example
 * ```ts ignore
 * clusterInfoConfigMap({ kubeconfig: text }).metadata; // { name: "cluster-info", namespace: "kube-public" }
 * ```
 */
export function clusterInfoConfigMap(data: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    data: { ...data },
    kind: "ConfigMap",
    metadata: { name: CLUSTER_INFO_NAME, namespace: CLUSTER_INFO_NAMESPACE },
  };
}

/** A cluster-info ConfigMap found in an input. */
export interface ClusterInfo {
  /** The object as read (other fields are kept when it is written back). */
  object: KubeObject;
  /** Its `data`, every value a string. */
  data: Record<string, string>;
}

function isConfigMap(obj: unknown): obj is KubeObject {
  return isObject(obj) && obj.kind === "ConfigMap";
}

function nameOf(obj: KubeObject): { name: string; namespace: string } {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  return {
    name: typeof meta.name === "string" ? meta.name : "",
    namespace: typeof meta.namespace === "string" ? meta.namespace : "",
  };
}

/**
 * Finds the `kube-public/cluster-info` ConfigMap among `objects` (a file may
 * hold just it, or a whole `joinkit init` stream). `source` names the input
 * in errors: `not a ConfigMap`, `no cluster-info ConfigMap`, or a `data`
 * value that is not a string.
 *
 * @example
 * ```ts ignore
 * findClusterInfo(parseManifests(text, "ci.yaml"), "ci.yaml").data.kubeconfig;
 * ```
 */
export function findClusterInfo(objects: readonly unknown[], source: string): ClusterInfo {
  const maps = objects.filter(isConfigMap);
  if (maps.length === 0) {
    const kinds = [
      ...new Set(objects.map((o) => (isObject(o) && typeof o.kind === "string" ? o.kind : "?"))),
    ];
    throw new InputError(
      `${source}: not a ConfigMap${
        kinds.length ? ` (found ${kinds.join(", ")})` : " (no objects)"
      }`,
    );
  }
  const found = maps.filter((m) => {
    const { name, namespace } = nameOf(m);
    return name === CLUSTER_INFO_NAME && (namespace === CLUSTER_INFO_NAMESPACE || namespace === "");
  });
  if (found.length === 0) {
    const { name, namespace } = nameOf(maps[0]!);
    throw new InputError(
      `${source}: ConfigMap ${namespace ? namespace + "/" : ""}${
        name || "<no name>"
      } is not kube-public/cluster-info`,
    );
  }
  if (found.length > 1) throw new InputError(`${source}: more than one cluster-info ConfigMap`);
  const object = found[0]!;
  if (object.apiVersion !== undefined && object.apiVersion !== "v1") {
    throw new InputError(
      `${source}: ConfigMap apiVersion ${JSON.stringify(object.apiVersion)} is not v1`,
    );
  }
  const raw = object.data ?? {};
  if (raw !== null && !isObject(raw)) {
    throw new InputError(`${source}: cluster-info data is not a map`);
  }
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (value === null) continue;
    if (typeof value !== "string") {
      throw new InputError(`${source}: cluster-info data[${JSON.stringify(key)}] is not a string`);
    }
    Object.defineProperty(data, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { object, data };
}
