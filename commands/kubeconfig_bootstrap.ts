/**
 * `joinkit kubeconfig bootstrap`: the kubelet's bootstrap-kubelet.conf.
 *
 * @module
 */

import { readClusterCa } from "../lib/pki/certsource.ts";
import { findClusterInfo } from "../lib/discovery/cluster_info.ts";
import { validateDiscoveryFlags, verifyClusterInfo } from "../lib/discovery/discovery.ts";
import { CheckError, UsageError } from "../lib/base/errors.ts";
import {
  DEFAULT_CLUSTER_NAME,
  TLS_BOOTSTRAP_USER,
  tokenKubeconfig,
} from "../lib/discovery/bootstrap_kubeconfig.ts";
import { kubeconfigYaml } from "../lib/k8s/kubeconfig_yaml.ts";
import { parseManifests } from "../lib/k8s/manifest.ts";
import { parseServerUrl } from "../lib/k8s/server_url.ts";
import { parseToken } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { pinFlags, unsafeFlag } from "./cluster_info_verify.ts";
import { expectArgs, flagBool, flagString, requireString } from "./_flags.ts";
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
    "discovery-token-ca-cert-hash": { type: "string", multiple: true },
    "unsafe-skip-ca-verification": { type: "boolean" },
    "discovery-token-unsafe-skip-ca-verification": { type: "boolean" },
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
write for the same inputs. The CA file is embedded as is, after it is read as
client-go reads it (certutil.ParseCertsPEM): a bundle Go cannot load, a first
certificate that is not a CA ("ca certificate is not a certificate
authority", as kubeadm) and a file holding any PEM block other than
certificates are refused.

With --cluster-info FILE instead of --server/--ca, both are taken from a
cluster-info ConfigMap exactly as 'cluster-info verify' (kubeadm join's token
discovery) takes them: the token's jws-kubeconfig-<id> signature must verify
over data.kubeconfig, the cluster is the one kubeadm chooses, and its CA must
hold a key pinned by --ca-cert-hash. Without a pin this is refused unless
--unsafe-skip-ca-verification is given: anyone who knows the token could
have signed the file.

Usage:
  joinkit kubeconfig bootstrap --server https://HOST:PORT --ca CA.crt --token T [flags]
  joinkit kubeconfig bootstrap --cluster-info FILE --token T --ca-cert-hash H... [flags]

Flags:
  --server URL          API server URL, https://HOST:PORT
  --ca FILE             PEM CA certificate or bundle
  --token T             the bootstrap token (required)
  --cluster-name NAME   cluster name (default ${DEFAULT_CLUSTER_NAME})
  --user NAME           user name (default ${TLS_BOOTSTRAP_USER})
  --cluster-info FILE   take server and CA from this verified cluster-info
  --ca-cert-hash H      with --cluster-info: sha256:<hex> CA pin, repeatable or
                        comma-separated (also --discovery-token-ca-cert-hash)
  --unsafe-skip-ca-verification
                        with --cluster-info: accept without pins (also
                        --discovery-token-unsafe-skip-ca-verification)
  --out FILE            write here (mode 0600, atomically) instead of stdout
  --force               overwrite --out if it exists

${EXIT_CODES}

Examples:
  joinkit kubeconfig bootstrap --server https://10.0.0.1:6443 --ca pki/ca.crt \\
    --token abcdef.0123456789abcdef --out /etc/kubernetes/bootstrap-kubelet.conf
  joinkit kubeconfig bootstrap --cluster-info ci.yaml --token "$TOKEN" --ca-cert-hash "$HASH"
`,
  async run(ctx) {
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
    const pins = pinFlags(ctx);
    const unsafe = unsafeFlag(ctx);
    if (clusterInfoFile !== undefined) {
      if (
        flagString(ctx.flags, "server") !== undefined || flagString(ctx.flags, "ca") !== undefined
      ) {
        throw new UsageError("--cluster-info replaces --server and --ca: give one or the other");
      }
      // kubeadm validates its flags before it contacts anything.
      const invalid = validateDiscoveryFlags(token, pins, unsafe);
      if (invalid !== undefined) throw new CheckError(invalid);
      const input = readInput(clusterInfoFile);
      const info = findClusterInfo(parseManifests(input.text, input.name), input.name);
      const result = verifyClusterInfo({
        data: info.data,
        token,
        caCertHashes: pins,
        unsafeSkipCAVerification: unsafe,
      });
      server = result.cluster.server;
      caData = result.cluster.caData;
      ctx.stderr(
        `[discovery] cluster-info signature for token ID ${
          JSON.stringify(result.tokenId)
        } is valid; ${
          result.pinnedIndex >= 0
            ? `CA certificate ${result.pinnedIndex + 1} is pinned`
            : "CA NOT pinned (unsafe)"
        }; API server ${JSON.stringify(server)}`,
      );
    } else {
      if (pins.length) throw new UsageError("--ca-cert-hash goes with --cluster-info");
      if (unsafe) throw new UsageError("--unsafe-skip-ca-verification goes with --cluster-info");
      server = parseServerUrl(requireString(ctx.flags, "server")).url;
      const ca = readInput(requireString(ctx.flags, "ca"));
      await readClusterCa(ca.bytes, ca.name); // Go loads it, a CA first, nothing but certificates
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
