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
import { CheckError, JoinkitError } from "../lib/base/errors.ts";
import { renderKubeconfig } from "../lib/k8s/kubeconfig_yaml.ts";
import { parseManifests } from "../lib/k8s/manifest.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagChoice, flagList, requireString } from "./_flags.ts";
import { readInput } from "./_io.ts";

/** `--ca-cert-hash` and kubeadm's `--discovery-token-ca-cert-hash` spelling, together. */
export function pinFlags(ctx: Context): string[] {
  return [
    ...flagList(ctx.flags, "ca-cert-hash", true),
    ...flagList(ctx.flags, "discovery-token-ca-cert-hash", true),
  ];
}

/** `--unsafe-skip-ca-verification` or kubeadm's spelling. */
export function unsafeFlag(ctx: Context): boolean {
  return flagBool(ctx.flags, "unsafe-skip-ca-verification") ||
    flagBool(ctx.flags, "discovery-token-unsafe-skip-ca-verification");
}

export const command: Command = {
  name: "cluster-info verify",
  options: {
    token: { type: "string" },
    "ca-cert-hash": { type: "string", multiple: true },
    "discovery-token-ca-cert-hash": { type: "string", multiple: true },
    "unsafe-skip-ca-verification": { type: "boolean" },
    "discovery-token-unsafe-skip-ca-verification": { type: "boolean" },
    output: { type: "string", short: "o" },
  },
  help: `Verify a cluster-info ConfigMap offline, as 'kubeadm join' token discovery does.

Same checks, same order, same error texts as kubeadm:
  1. the flags: a valid token, and at least one --ca-cert-hash unless
     --unsafe-skip-ca-verification;
  2. the pins parse (sha256:<64 hex>);
  3. a jws-kubeconfig-<token-id> key exists ("could not find a JWS signature…");
  4. data.kubeconfig exists ("there is no kubeconfig key…");
  5. the signature is non-empty ("token id … is invalid for this cluster or it
     has expired…") and verifies: detached HS256 JWS keyed with the token
     secret over data.kubeconfig byte for byte ("failed to verify JWS
     signature…");
  6. data.kubeconfig loads as client-go's clientcmd.Load loads it ("couldn't
     parse the kubeconfig file…": duplicate names, bad base64, wrong types);
  7. a cluster is chosen as kubeadm's GetClusterFromKubeConfig chooses it: the
     unnamed cluster "", else the current context's cluster ("malformed
     kubeconfig in the cluster-info ConfigMap…");
  8. with pins, the CA data is read as certutil.ParseCertsPEM reads it
     ("failed to parse cluster CA…") and one of its certificates is pinned
     ("cluster CA found in cluster-info ConfigMap is invalid: none of the
     public keys … are pinned"). With several clusters, every cluster's CA
     must pass: kubeadm checks whichever its map loop visits last.
On success prints the TLS-bootstrap kubeconfig kubeadm would write
(bootstrap-kubelet.conf): server and CA bytes of the chosen cluster (the
whole CA bundle: a pin on one certificate trusts all of them, as in Go), cluster
"kubernetes", user "tls-bootstrap-token-user", the token. On any failure of
the check (including a FILE that holds no cluster-info ConfigMap) exits 3;
the token secret never appears in a message. FILE may be a whole
'joinkit init' stream; '-' reads stdin.

Usage:
  joinkit cluster-info verify FILE --token T [--ca-cert-hash H]... [flags]

Flags:
  --token T                        the bootstrap token (required)
  --ca-cert-hash H                 sha256:<hex> CA pin, repeatable or comma-separated
                                   (also --discovery-token-ca-cert-hash)
  --unsafe-skip-ca-verification    accept without pins (also
                                   --discovery-token-unsafe-skip-ca-verification)
  -o, --output FMT                 yaml (default) or json

${EXIT_CODES}

Examples:
  joinkit cluster-info verify ci.yaml --token abcdef.0123456789abcdef \\
    --ca-cert-hash "$(joinkit ca hash pki/ca.crt)"
  kubectl -n kube-public get cm cluster-info -o yaml |
    joinkit cluster-info verify - --token "$TOKEN" --ca-cert-hash "$HASH"
`,
  run(ctx) {
    expectArgs(ctx, 1, 1, "FILE (the cluster-info ConfigMap)");
    const format = flagChoice(ctx.flags, "output", ["yaml", "json"] as const, "yaml");
    const token = requireString(ctx.flags, "token");
    const pins = pinFlags(ctx);
    const unsafe = unsafeFlag(ctx);
    // kubeadm validates its flags before it contacts anything.
    const invalid = validateDiscoveryFlags(token, pins, unsafe);
    if (invalid !== undefined) throw new CheckError(invalid);
    const input = readInput(ctx.args[0]!);
    let result;
    try {
      const info = findClusterInfo(parseManifests(input.text, input.name), input.name);
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
