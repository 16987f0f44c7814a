/**
 * `joinkit cluster-info verify`: kubeadm join's token discovery, offline.
 *
 * @module
 */

import { findClusterInfo } from "../lib/discovery/cluster_info.ts";
import {
  DISCOVERY_ERROR_PREFIX,
  validateDiscoveryFlags,
  verifyClusterInfo,
} from "../lib/discovery/discovery.ts";
import { CheckError, JoinkitError, UsageError } from "../lib/base/errors.ts";
import { renderKubeconfig } from "../lib/k8s/kubeconfig_yaml.ts";
import { parseManifests } from "../lib/k8s/manifest.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagPins, flagSet, flagUnsafe, outputFormat, requireToken } from "./_flags.ts";
import { tokenString } from "../lib/tokens/token.ts";
import { readInput } from "./_read.ts";

/**
 * kubeadm's flag rule for token discovery: pins, or the explicit unsafe flag.
 * Missing both is a usage error, with kubeadm's text.
 */
export function requirePinsOrUnsafe(pins: readonly string[], unsafe: boolean): void {
  // A well-formed token (parsed at the edge) leaves only the pin rule to report.
  const invalid = validateDiscoveryFlags("abcdef.0123456789abcdef", pins, unsafe);
  if (invalid !== undefined) throw new UsageError(invalid);
}

const FLAGS = flagSet("cluster-info verify", [
  ["token", "the bootstrap token (required)"],
  "discovery-token-ca-cert-hash",
  "discovery-token-unsafe-skip-ca-verification",
  ["output", "yaml (default) or json: the bootstrap kubeconfig's serialisation"],
]);

export const command: Command = {
  name: "cluster-info verify",
  options: FLAGS.options,
  help: `Verify a cluster-info ConfigMap offline, as 'kubeadm join' token discovery does.

Same checks, same order, same error texts as kubeadm:
  1. the flags: a valid token, and at least one --discovery-token-ca-cert-hash
     unless --discovery-token-unsafe-skip-ca-verification; the pins parse
     (sha256:<64 hex>) (these are usage errors, exit 2);
  2. a jws-kubeconfig-<token-id> key exists ("could not find a JWS signature…");
  3. data.kubeconfig exists ("there is no kubeconfig key…");
  4. the signature is non-empty ("token id … is invalid for this cluster or it
     has expired…") and verifies: detached HS256 JWS keyed with the token
     secret over data.kubeconfig byte for byte ("failed to verify JWS
     signature…");
  5. data.kubeconfig loads as client-go's clientcmd.Load loads it ("couldn't
     parse the kubeconfig file…": duplicate names, bad base64, wrong types);
  6. a cluster is chosen as kubeadm's GetClusterFromKubeConfig chooses it: the
     unnamed cluster "", else the current context's cluster ("malformed
     kubeconfig in the cluster-info ConfigMap…");
  7. with pins, the CA data is read as certutil.ParseCertsPEM reads it
     ("failed to parse cluster CA…") and one of its certificates is pinned
     ("cluster CA found in cluster-info ConfigMap is invalid: none of the
     public keys … are pinned"). With several clusters, every cluster's CA
     must pass: kubeadm checks whichever its map loop visits last.
On success prints the TLS-bootstrap kubeconfig kubeadm would write
(bootstrap-kubelet.conf): server and CA bytes of the chosen cluster (the
whole CA bundle: a pin on one certificate trusts all of them, as in Go), cluster
"kubernetes", user "tls-bootstrap-token-user", the token. On any failure of
the check exits 3 (a FILE that does not parse or holds no cluster-info
ConfigMap is bad input, 1); the token secret never appears in a message. FILE may be a whole
'joinkit init' stream; '-' reads stdin.

Usage:
  joinkit cluster-info verify FILE --token T [--discovery-token-ca-cert-hash H]... [flags]

${FLAGS.help}
Output (-o json): the bootstrap kubeconfig (apiVersion v1, kind Config) as
JSON, keys sorted.

${EXIT_CODES}

Examples:
  joinkit cluster-info verify ci.yaml --token abcdef.0123456789abcdef \\
    --discovery-token-ca-cert-hash "$(joinkit ca hash pki/ca.crt)"
  kubectl -n kube-public get cm cluster-info -o yaml |
    joinkit cluster-info verify - --token "$TOKEN" --discovery-token-ca-cert-hash "$HASH"
`,
  run(ctx) {
    expectArgs(ctx, 1, 1, "FILE (the cluster-info ConfigMap)");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const token = tokenString(requireToken(ctx.flags));
    const pins = flagPins(ctx.flags);
    const unsafe = flagUnsafe(ctx.flags);
    // kubeadm validates its flags before it contacts anything.
    requirePinsOrUnsafe(pins, unsafe);
    const input = readInput(ctx.args[0]!);
    // A FILE that does not parse or holds no cluster-info is bad input (1); what discovery
    // finds wrong with the cluster-info is a check that said no (3).
    const info = findClusterInfo(parseManifests(input.text, input.name), input.name);
    let result;
    try {
      result = verifyClusterInfo({
        data: info.data,
        token,
        caCertHashes: pins,
        unsafeSkipCAVerification: unsafe,
      });
    } catch (e) {
      if (!(e instanceof JoinkitError)) throw e;
      const msg = e.message.startsWith(DISCOVERY_ERROR_PREFIX)
        ? `${input.name}: ${e.message}`
        : e.message;
      throw new CheckError(msg);
    }
    const pinned = result.pinnedIndex >= 0
      ? `CA certificate ${result.pinnedIndex + 1} is pinned`
      : "CA NOT pinned (unsafe)";
    ctx.stderr(
      `[discovery] cluster-info signature for token ID ${
        JSON.stringify(result.tokenId)
      } is valid; ${pinned}; API server ${JSON.stringify(result.cluster.server)}`,
    );
    ctx.stdout(renderKubeconfig(result.bootstrapKubeconfig, format));
  },
};
