/**
 * `kubeadm join`'s token discovery, offline (k/k `cmd/kubeadm/app/discovery/
 * token/token.go`, `discovery/discovery.go`, join validation): the same
 * checks in the same order with the same texts, then the TLS-bootstrap
 * kubeconfig kubeadm would write. Every failure is a `CheckError` (exit 3);
 * no message contains the token secret.
 *
 * @module
 */

import { aggregateErrors } from "../go/aggregate.ts";
import { JWS_KEY_PREFIX, KUBECONFIG_KEY } from "./cluster_info.ts";
import { CheckError, JoinkitError } from "../base/errors.ts";
import { detachedTokenIsValid } from "./jws.ts";
import { type Cert, parseCertificate } from "../pki/cert_info.ts";
import { parseCertsPem } from "../pki/certsource.ts";
import { type KubeconfigObject, tokenKubeconfig } from "./bootstrap_kubeconfig.ts";
import {
  type ChosenCluster,
  getClusterFromKubeConfig,
  type KubeconfigCluster,
  loadKubeconfig,
  type ParsedKubeconfig,
} from "../k8s/kubeconfig_read.ts";
import { PinSet } from "../pki/pin.ts";
import { tokenFromString } from "../tokens/token.ts";

/** Inputs of {@link verifyClusterInfo}. */
export interface DiscoveryOptions {
  /** The cluster-info ConfigMap's `data`. */
  data: Record<string, string>;
  /** `--token`. */
  token: string;
  /** `--discovery-token-ca-cert-hash` values. */
  caCertHashes: readonly string[];
  /** `--discovery-token-unsafe-skip-ca-verification`. */
  unsafeSkipCAVerification: boolean;
}

/** What discovery established. */
export interface DiscoveryResult {
  /** The token ID whose signature verified. */
  tokenId: string;
  /** The verified `data.kubeconfig` string. */
  kubeconfig: string;
  /** Name of the cluster chosen as `GetClusterFromKubeConfig` does ("" for the unnamed one). */
  clusterName: string;
  /** That cluster (server and raw CA data). */
  cluster: KubeconfigCluster;
  /**
   * Its CA data as `ParseCertsPEM` loads it: the certificates pin-checked and
   * embedded in {@link bootstrapKubeconfig}. Empty without pins (kubeadm
   * then never parses the CA).
   */
  caCerts: Cert[];
  /** Index in {@link caCerts} of the first pinned certificate, or -1 without pins. */
  pinnedIndex: number;
  /** The TLS-bootstrap kubeconfig `discovery.For` builds from it. */
  bootstrapKubeconfig: KubeconfigObject;
}

/** Prefix `discovery.For`'s caller adds to every discovery failure. */
export const DISCOVERY_ERROR_PREFIX = "couldn't validate the identity of the API Server: ";

/**
 * kubeadm's `ValidateDiscoveryBootstrapToken` (the parts that apply offline):
 * `undefined` when valid, else the aggregated `field.ErrorList` text.
 */
export function validateDiscoveryFlags(
  token: string,
  caCertHashes: readonly string[],
  unsafe: boolean,
): string | undefined {
  const errs: string[] = [];
  if (caCertHashes.length === 0 && !unsafe) {
    errs.push(
      `discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue`,
    );
  }
  if (tokenFromString(token) === undefined) {
    // kubeadm would quote the value here; ours may hold a secret, so it is left out.
    errs.push(`discovery.bootstrapToken.token: Invalid value: "": the bootstrap token is invalid`);
  }
  return errs.length ? aggregateErrors(errs) : undefined;
}

/** What {@link pinnedClusterOf} established about a cluster-info kubeconfig. */
export interface PinnedCluster {
  /** The loaded kubeconfig. */
  parsed: ParsedKubeconfig;
  /** The cluster `GetClusterFromKubeConfig` chooses. */
  chosen: ChosenCluster;
  /** Its CA data as `ParseCertsPEM` loads it; empty without pins. */
  caCerts: Cert[];
  /** Index in {@link caCerts} of the first pinned certificate, or -1 without pins. */
  pinnedIndex: number;
}

/**
 * The part of token discovery after the signature: `data.kubeconfig` loads
 * (`clientcmd.Load`), a cluster is chosen (`GetClusterFromKubeConfig`) and,
 * with pins, the CA of every cluster parses (`ParseCertsPEM`) and holds a
 * pinned key (`CheckAny`). `fail` wraps each failure (kubeadm's texts follow
 * it). Shared by {@link verifyClusterInfo} and the discovery file.
 */
export function pinnedClusterOf(
  kubeconfig: string,
  pins: PinSet,
  fail: (why: string) => JoinkitError,
): PinnedCluster {
  let parsed: ParsedKubeconfig;
  try {
    parsed = loadKubeconfig(kubeconfig);
  } catch (e) {
    if (!(e instanceof JoinkitError)) throw e;
    throw fail(`couldn't parse the kubeconfig file in the cluster-info ConfigMap: ${e.message}`);
  }
  let chosen: ChosenCluster;
  try {
    chosen = getClusterFromKubeConfig(parsed);
  } catch (e) {
    if (!(e instanceof JoinkitError)) throw e;
    throw fail(`malformed kubeconfig in the cluster-info ConfigMap: ${e.message}`);
  }

  // validateClusterCA. kubeadm pin-checks the CA of "the last cluster of the
  // map loop": with several clusters Go's map order makes that any of them,
  // and not necessarily the one chosen above, whose server and CA the node
  // then uses. joinkit checks the chosen cluster first, then every other
  // cluster: it accepts only what kubeadm accepts whichever cluster its loop
  // lands on, and what it outputs (the chosen cluster) is always pinned.
  let caCerts: Cert[] = [];
  let pinnedIndex = -1;
  if (!pins.isEmpty()) {
    const others = parsed.clusters.filter((c) => c !== chosen.cluster);
    for (const cluster of [chosen.cluster, ...others]) {
      let certs: Cert[];
      try {
        certs = parseCertsPem(cluster.caData, parseCertificate);
      } catch (e) {
        if (!(e instanceof JoinkitError)) throw e;
        throw fail(`failed to parse cluster CA from the cluster-info ConfigMap: ${e.message}`);
      }
      let index: number;
      try {
        index = pins.checkAny(certs.map((c) => c.der));
      } catch (e) {
        if (!(e instanceof JoinkitError)) throw e;
        throw fail(`cluster CA found in cluster-info ConfigMap is invalid: ${e.message}`);
      }
      if (cluster === chosen.cluster) {
        caCerts = certs;
        pinnedIndex = index;
      }
    }
  }

  return { parsed, chosen, caCerts, pinnedIndex };
}

/**
 * Runs token discovery over a cluster-info's `data`, in kubeadm's order:
 * flag validation; pins parsed; JWS key for the token ID present
 * (`getClusterInfo`); `kubeconfig` key present; signature non-empty and
 * valid; kubeconfig loads (`clientcmd.Load`); a cluster is chosen
 * (`GetClusterFromKubeConfig`); with pins, the CA of every cluster parses
 * (`ParseCertsPEM`) and holds a pinned key (`CheckAny`). Returns the
 * TLS-bootstrap kubeconfig built from the chosen cluster's server and CA
 * bytes.
 *
 * @example
 * ```ts ignore
 * verifyClusterInfo({ data, token, caCertHashes: [pin], unsafeSkipCAVerification: false });
 * ```
 */
export function verifyClusterInfo(opts: DiscoveryOptions): DiscoveryResult {
  const invalid = validateDiscoveryFlags(
    opts.token,
    opts.caCertHashes,
    opts.unsafeSkipCAVerification,
  );
  if (invalid !== undefined) throw new CheckError(invalid);
  const fail = (why: string) => new CheckError(DISCOVERY_ERROR_PREFIX + why);
  const { id, secret } = tokenFromString(opts.token)!;

  const pins = new PinSet();
  try {
    pins.allow(...opts.caCertHashes);
  } catch (e) {
    throw fail(`invalid discovery token CA certificate hash: ${(e as Error).message}`);
  }

  const data = opts.data;
  const has = (k: string) => Object.hasOwn(data, k);
  if (!has(JWS_KEY_PREFIX + id)) {
    throw fail(
      `could not find a JWS signature in the cluster-info ConfigMap for token ID ${
        JSON.stringify(id)
      }`,
    );
  }
  const kubeconfig = has(KUBECONFIG_KEY) ? data[KUBECONFIG_KEY]! : "";
  if (kubeconfig === "") {
    throw fail(
      "there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect",
    );
  }
  const signature = data[JWS_KEY_PREFIX + id]!;
  if (signature === "") {
    throw fail(
      `token id ${
        JSON.stringify(id)
      } is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token`,
    );
  }
  if (!detachedTokenIsValid(signature, kubeconfig, id, secret)) {
    throw fail(
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
  }

  const { chosen, caCerts, pinnedIndex } = pinnedClusterOf(kubeconfig, pins, fail);

  const cluster = chosen.cluster;
  return {
    tokenId: id,
    kubeconfig,
    clusterName: chosen.name,
    cluster,
    caCerts,
    pinnedIndex,
    // discovery.For: CreateWithToken(server, "kubernetes", user, CA data, token) from the
    // chosen cluster. The CA bytes are the ones pin-checked above, whole: Go trusts every
    // certificate of the bundle once one of them is pinned.
    bootstrapKubeconfig: tokenKubeconfig({
      server: cluster.server,
      caData: cluster.caData,
      token: opts.token,
    }),
  };
}
