/**
 * `joinkit kubeconfig bootstrap`: the kubelet's bootstrap-kubelet.conf.
 *
 * @module
 */

import { findClusterInfo } from "../lib/cluster_info.ts";
import { verifyClusterInfo } from "../lib/discovery.ts";
import { UsageError } from "../lib/errors.ts";
import {
  caBundle,
  DEFAULT_CLUSTER_NAME,
  kubeconfigYaml,
  TLS_BOOTSTRAP_USER,
  tokenKubeconfig,
} from "../lib/kubeconfig.ts";
import { parseManifests } from "../lib/manifest.ts";
import { parseServerUrl } from "../lib/server_url.ts";
import { parseToken } from "../lib/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagList, flagString, requireString } from "./_flags.ts";
import { readInput, writeFilesAtomic } from "./_io.ts";

export const command: Command = {
  name: "kubeconfig bootstrap",
  options: {
    server: { type: "string" },
    ca: { type: "string" },
    token: { type: "string" },
    "cluster-name": { type: "string" },
    user: { type: "string" },
    "cluster-info": { type: "string" },
    "ca-cert-hash": { type: "string", multiple: true },
    out: { type: "string" },
    force: { type: "boolean" },
  },
  help: `Write the kubelet's bootstrap kubeconfig (bootstrap-kubelet.conf).

What kubeadm join writes (CreateWithToken): one cluster (default
"kubernetes") with the server and the embedded CA, one user (default
"tls-bootstrap-token-user") with the token, and the context
<user>@<cluster>, current. Byte-identical to what
  kubectl config set-cluster CLUSTER --server URL --certificate-authority CA --embed-certs
  kubectl config set-credentials USER --token T
  kubectl config set-context USER@CLUSTER --cluster CLUSTER --user USER
  kubectl config use-context USER@CLUSTER
write for the same inputs (the CA file is embedded as is; a file holding any
PEM block other than certificates is refused).

With --cluster-info FILE instead of --server/--ca, both are taken from a
cluster-info ConfigMap, as kubeadm join does, after verifying it as
'cluster-info verify' does: the token's jws-kubeconfig-<id> signature must
verify over data.kubeconfig, and each --ca-cert-hash given must pin the CA in
it. Without --ca-cert-hash this is the trust of kubeadm's
--discovery-token-unsafe-skip-ca-verification: anyone who knows the token
could have signed it.

Usage:
  joinkit kubeconfig bootstrap --server https://HOST:PORT --ca CA.crt --token T [flags]
  joinkit kubeconfig bootstrap --cluster-info FILE --token T [--ca-cert-hash H]... [flags]

Flags:
  --server URL          API server URL, https://HOST:PORT
  --ca FILE             PEM CA certificate or bundle
  --token T             the bootstrap token (required)
  --cluster-name NAME   cluster name (default ${DEFAULT_CLUSTER_NAME})
  --user NAME           user name (default ${TLS_BOOTSTRAP_USER})
  --cluster-info FILE   take server and CA from this verified cluster-info
  --ca-cert-hash H      with --cluster-info: CA pin to check, repeatable
  --out FILE            write here (mode 0600, atomically) instead of stdout
  --force               overwrite --out if it exists

${EXIT_CODES}

Examples:
  joinkit kubeconfig bootstrap --server https://10.0.0.1:6443 --ca pki/ca.crt \\
    --token abcdef.0123456789abcdef --out /etc/kubernetes/bootstrap-kubelet.conf
  joinkit kubeconfig bootstrap --cluster-info ci.yaml --token "$TOKEN" --ca-cert-hash "$HASH"
`,
  run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const token = requireString(ctx.flags, "token");
    parseToken(token);
    const clusterName = flagString(ctx.flags, "cluster-name") ?? DEFAULT_CLUSTER_NAME;
    const user = flagString(ctx.flags, "user") ?? TLS_BOOTSTRAP_USER;
    if (clusterName === "") throw new UsageError("--cluster-name must not be empty");
    if (user === "") throw new UsageError("--user must not be empty");
    const clusterInfoFile = flagString(ctx.flags, "cluster-info");
    let server: string;
    let caData: Uint8Array;
    if (clusterInfoFile !== undefined) {
      if (
        flagString(ctx.flags, "server") !== undefined || flagString(ctx.flags, "ca") !== undefined
      ) {
        throw new UsageError("--cluster-info replaces --server and --ca: give one or the other");
      }
      const input = readInput(clusterInfoFile);
      const info = findClusterInfo(parseManifests(input.text, input.name), input.name);
      const pins = flagList(ctx.flags, "ca-cert-hash", true);
      const result = verifyClusterInfo({
        data: info.data,
        token,
        caCertHashes: pins,
        unsafeSkipCAVerification: true,
      });
      server = result.cluster.server;
      caData = result.cluster.caData;
      ctx.stderr(
        `[discovery] cluster-info signature for token ID ${
          JSON.stringify(result.tokenId)
        } is valid; ${
          pins.length ? "CA pinned" : "CA NOT pinned (no --ca-cert-hash)"
        }; API server ${JSON.stringify(server)}`,
      );
    } else {
      if (flagList(ctx.flags, "ca-cert-hash").length) {
        throw new UsageError("--ca-cert-hash goes with --cluster-info");
      }
      server = parseServerUrl(requireString(ctx.flags, "server")).url;
      const ca = readInput(requireString(ctx.flags, "ca"));
      caBundle(ca.text, ca.name); // at least one certificate, nothing else
      caData = ca.bytes;
    }
    const yaml = kubeconfigYaml(tokenKubeconfig({ server, caData, token, clusterName, user }));
    const out = flagString(ctx.flags, "out");
    if (out === undefined) {
      ctx.stdout(yaml);
      return;
    }
    writeFilesAtomic([{ path: out, data: yaml, mode: 0o600 }], flagBool(ctx.flags, "force"));
    ctx.stderr(`wrote ${out}`);
  },
};
