/**
 * YAML as client-go's `clientcmd.Write` serialises kubeconfigs (the bytes
 * kubectl and kubeadm write): the same go-yaml v2 rules as every manifest
 * joinkit writes, see {@link toYaml}.
 *
 * @module
 */

import { toJson, toYaml } from "./manifest.ts";

/**
 * Serialises a kubeconfig byte-for-byte as `clientcmd.Write` does.
 *
 * @example
 * ```ts
 * kubeconfigYaml({ kind: "Config", apiVersion: "v1" }); // "apiVersion: v1\nkind: Config\n"
 * ```
 */
export function kubeconfigYaml(value: unknown): string {
  return toYaml(value);
}

/** Renders a kubeconfig as YAML (`clientcmd.Write` bytes) or sorted JSON. */
export function renderKubeconfig(
  config: Record<string, unknown>,
  format: "yaml" | "json",
): string {
  return format === "json" ? toJson(config) : kubeconfigYaml(config);
}
