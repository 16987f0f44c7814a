/**
 * The kubeconfigs kubeadm builds (the TLS-bootstrap kubeconfig, the one in
 * cluster-info) and the CA bundles they embed. Serialising lives in
 * `k8s/kubeconfig_yaml.ts`, reading in `k8s/kubeconfig_read.ts`.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { certificatesFromPem } from "../pki/certsource.ts";
import { InputError } from "../base/errors.ts";
import { decodePem, encodePem } from "../pki/pem.ts";

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
 * ```ts ignore
 * kubeconfigYaml(tokenKubeconfig({ server, caData, token }));
 * ```
 */
export function tokenKubeconfig(opts: TokenKubeconfigOptions): KubeconfigObject {
  return basicKubeconfig(
    opts.server,
    opts.caData,
    opts.clusterName ?? DEFAULT_CLUSTER_NAME,
    opts.user ?? TLS_BOOTSTRAP_USER,
    { token: opts.token },
  );
}

/**
 * kubeadm's `CreateBasic` with the user's credentials filled in, as
 * `CreateWithToken` and `CreateWithCerts` do: one cluster, one user, one
 * context `<user>@<cluster>` that is current, `preferences: {}` as kubectl
 * writes it back.
 *
 * @example
 * ```ts ignore
 * basicKubeconfig(server, caData, "kubernetes", "system:node:worker-1", { "client-certificate": p, "client-key": p });
 * ```
 */
export function basicKubeconfig(
  server: string,
  caData: Uint8Array,
  cluster: string,
  user: string,
  credentials: Record<string, string>,
): KubeconfigObject {
  const context = `${user}@${cluster}`;
  const clusterEntry: Record<string, string> = { server };
  // `[]byte` with omitempty: no key at all when there is no CA.
  if (caData.length > 0) {
    clusterEntry["certificate-authority-data"] = Buffer.from(caData).toString("base64");
  }
  return {
    apiVersion: "v1",
    clusters: [{ cluster: clusterEntry, name: cluster }],
    contexts: [{ context: { cluster, user }, name: context }],
    "current-context": context,
    kind: "Config",
    preferences: {},
    users: [{ name: user, user: credentials }],
  };
}

/**
 * The kubeconfig kubeadm stores in `cluster-info` (`clusterinfo.go`): the
 * server and CA only, under the empty cluster name, with no users, contexts
 * or current context, as current client-go writes it (`null` lists, no
 * `preferences`; see upstream `discovery/token/testdata/expected-kubeconfig.yaml`).
 *
 * @example
 * ```ts ignore
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
 * ```ts ignore
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
