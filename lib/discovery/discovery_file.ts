/**
 * The kubeconfig for `kubeadm join --discovery-file` (file discovery, k/k
 * `cmd/kubeadm/app/discovery/file/file.go`): building it from the cluster
 * cluster-info holds, and checking one as kubeadm's `ValidateConfigInfo`
 * does before it contacts the API server.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { CheckError, JoinkitError } from "../base/errors.ts";
import { goQuote } from "../go/quote.ts";
import {
  getClusterFromKubeConfig,
  type KubeconfigCluster,
  loadKubeconfig,
  type ParsedKubeconfig,
} from "../k8s/kubeconfig_read.ts";
import { parseCertificate } from "../pki/cert_info.ts";
import { parseCertsPem } from "../pki/certsource.ts";
import { type KubeconfigObject, tokenKubeconfig } from "./bootstrap_kubeconfig.ts";

/** Inputs of {@link discoveryFileKubeconfig}. */
export interface DiscoveryFileOptions {
  /** API server URL, as the cluster-info cluster holds it. */
  server: string;
  /** The CA bundle bytes, as the cluster-info cluster holds them. */
  caData: Uint8Array;
  /** The TLS bootstrap token, as the file's user; absent: no credentials. */
  token?: string;
  /** With a token: the cluster name (default `kubernetes`). */
  clusterName?: string;
  /** With a token: the user name (default `tls-bootstrap-token-user`). */
  user?: string;
}

/**
 * The discovery file. Without a token it is the cluster-info kubeconfig:
 * one cluster named "" (kubeadm picks the unnamed cluster first), no users,
 * no contexts, serialised as kubectl writes such a file back (`preferences:
 * {}`, `null` lists). A context needs a user (`clientcmd.Validate`: "user
 * was not specified for context"), so there is none. With a token it is
 * the TLS-bootstrap kubeconfig (`CreateWithToken`): cluster `kubernetes`,
 * user `tls-bootstrap-token-user`, context `<user>@<cluster>`, current;
 * kubeadm then uses the file's credentials for the TLS bootstrap.
 *
 * @example
 * ```ts ignore
 * kubeconfigYaml(discoveryFileKubeconfig({ server, caData }));
 * ```
 */
export function discoveryFileKubeconfig(opts: DiscoveryFileOptions): KubeconfigObject {
  if (opts.token !== undefined) {
    return tokenKubeconfig({
      server: opts.server,
      caData: opts.caData,
      token: opts.token,
      ...(opts.clusterName !== undefined ? { clusterName: opts.clusterName } : {}),
      ...(opts.user !== undefined ? { user: opts.user } : {}),
    });
  }
  const cluster: Record<string, string> = { server: opts.server };
  if (opts.caData.length > 0) {
    cluster["certificate-authority-data"] = Buffer.from(opts.caData).toString("base64");
  }
  return {
    apiVersion: "v1",
    clusters: [{ cluster, name: "" }],
    contexts: null,
    "current-context": "",
    kind: "Config",
    preferences: {},
    users: null,
  };
}

/** What {@link checkDiscoveryFile} established. */
export interface DiscoveryFileCheck {
  /** The loaded kubeconfig. */
  parsed: ParsedKubeconfig;
  /** The name of the cluster kubeadm uses ("" for the unnamed one). */
  clusterName: string;
  /** That cluster. */
  cluster: KubeconfigCluster;
  /** The current context's user has credentials (`HasAuthenticationCredentials`). */
  hasCredentials: boolean;
}

/** `utilerrors.NewAggregate(errs).Error()`: one error as is, several as `[a, b]`. */
function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(", ")}]`;
}

/**
 * client-go's `clientcmd.Validate` for what a discovery file can hold
 * (`tools/clientcmd/validation.go`): the current context exists; every
 * context names an existing user and cluster; every cluster has a server and
 * not both CA data and a CA file. Go walks maps, so its order varies; here
 * contexts and clusters are in name order. `undefined` when valid.
 */
export function clientcmdValidate(k: ParsedKubeconfig): string | undefined {
  const errs: string[] = [];
  if (k.currentContext !== "" && !k.contextClusters.has(k.currentContext)) {
    errs.push(`context was not found for specified context: ${k.currentContext}`);
  }
  const users = new Set(k.users.map((u) => u.name));
  const clusters = new Set(k.clusters.map((c) => c.name));
  for (const name of [...k.contextClusters.keys()].sort()) {
    if (name === "") errs.push(`empty context name is not allowed`);
    const user = k.contextUsers.get(name) ?? "";
    if (user === "") errs.push(`user was not specified for context ${goQuote(name)}`);
    else if (!users.has(user)) {
      errs.push(`user ${goQuote(user)} was not found for context ${goQuote(name)}`);
    }
    const cluster = k.contextClusters.get(name) ?? "";
    if (cluster === "") errs.push(`cluster was not specified for context ${goQuote(name)}`);
    else if (!clusters.has(cluster)) {
      errs.push(`cluster ${goQuote(cluster)} was not found for context ${goQuote(name)}`);
    }
  }
  for (
    const c of [...k.clusters].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  ) {
    if (c.server === "") {
      errs.push(
        c.name === ""
          ? "default cluster has no server defined"
          : `no server found for cluster ${goQuote(c.name)}`,
      );
    }
    if (c.caFile !== "" && c.caData.length > 0) {
      errs.push(
        `certificate-authority-data and certificate-authority are both specified for ${c.name}. certificate-authority-data will override.`,
      );
    }
  }
  return errs.length ? `invalid configuration: ${aggregate(errs)}` : undefined;
}

/**
 * Checks a discovery file as kubeadm's `RetrieveValidatedConfigInfo` does
 * before it dials the API server, with kubeadm's texts: it loads
 * (`clientcmd.Load`); it has a cluster ("the provided kubeconfig file must
 * have at least one Cluster defined"); a cluster is chosen (the unnamed one,
 * else the current context's: "the provided kubeconfig file is malformed:
 * …"); `clientcmd.Validate` passes. Then joinkit's rules for a file that
 * travels to another host, where kubeadm would read referenced files on the
 * node: the chosen cluster's CA is embedded and parses as certificates
 * (`ParseCertsPEM`), and the current user's credentials are embedded, not
 * file paths. Every refusal is a `CheckError`.
 *
 * @example
 * ```ts ignore
 * checkDiscoveryFile(text).cluster.server;
 * ```
 */
export function checkDiscoveryFile(text: string): DiscoveryFileCheck {
  let parsed: ParsedKubeconfig;
  try {
    parsed = loadKubeconfig(text);
  } catch (e) {
    if (e instanceof JoinkitError) throw new CheckError(e.message);
    throw e;
  }
  if (parsed.clusters.length < 1) {
    throw new CheckError("the provided kubeconfig file must have at least one Cluster defined");
  }
  let chosen;
  try {
    chosen = getClusterFromKubeConfig(parsed);
  } catch (e) {
    if (!(e instanceof JoinkitError)) throw e;
    throw new CheckError(`the provided kubeconfig file is malformed: ${e.message}`);
  }
  const invalid = clientcmdValidate(parsed);
  if (invalid !== undefined) throw new CheckError(invalid);
  const cluster = chosen.cluster;
  const label = goQuote(chosen.name);
  if (cluster.caFile !== "") {
    throw new CheckError(
      `cluster ${label} refers to the CA file ${
        goQuote(cluster.caFile)
      }: a discovery file must embed it (certificate-authority-data)`,
    );
  }
  if (cluster.caData.length === 0) {
    throw new CheckError(`cluster ${label} has no certificate-authority-data`);
  }
  try {
    parseCertsPem(cluster.caData, parseCertificate);
  } catch (e) {
    if (!(e instanceof JoinkitError)) throw e;
    throw new CheckError(`cluster ${label}: failed to parse its CA: ${e.message}`);
  }
  const userName = parsed.contextUsers.get(parsed.currentContext);
  const user = parsed.users.find((u) => u.name === userName);
  const hasCredentials = user?.hasCredentials === true;
  if (user !== undefined && hasCredentials && user.fileRef !== "") {
    throw new CheckError(
      `user ${
        goQuote(user.name)
      } refers to a file (${user.fileRef}): a discovery file must embed its credentials`,
    );
  }
  return { parsed, clusterName: chosen.name, cluster, hasCredentials };
}
