/**
 * `joinkit kubeconfig bootstrap`: the kubelet's bootstrap-kubelet.conf.
 *
 * @module
 */

import { readClusterCa } from "../lib/pki/certsource.ts";
import { findClusterInfo } from "../lib/discovery/cluster_info.ts";
import { verifyClusterInfo } from "../lib/discovery/discovery.ts";
import { UsageError } from "../lib/base/errors.ts";
import {
  DEFAULT_CLUSTER_NAME,
  TLS_BOOTSTRAP_USER,
  tokenKubeconfig,
} from "../lib/discovery/bootstrap_kubeconfig.ts";
import { renderKubeconfig } from "../lib/k8s/kubeconfig_yaml.ts";
import { parseManifests } from "../lib/k8s/manifest.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { requirePinsOrUnsafe } from "./cluster_info_verify.ts";
import {
  expectArgs,
  flagBool,
  flagOut,
  flagPins,
  flagSet,
  flagString,
  flagUnsafe,
  givenName,
  outputFormat,
  requireServer,
  requireString,
  requireToken,
} from "./_flags.ts";
import { tokenString } from "../lib/tokens/token.ts";
import { ensureParentDir, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("kubeconfig bootstrap", [
  ["server", "API server, https://HOST:PORT (or HOST:PORT)"],
  "ca",
  ["token", "the bootstrap token (required)"],
  ["cluster-name", `cluster name (default ${DEFAULT_CLUSTER_NAME})`],
  ["user", `user name (default ${TLS_BOOTSTRAP_USER})`],
  ["cluster-info", "take server and CA from this verified cluster-info"],
  [
    "discovery-token-ca-cert-hash",
    "with --cluster-info: sha256:<hex> CA pin, repeatable or\ncomma-separated",
  ],
  ["discovery-token-unsafe-skip-ca-verification", "with --cluster-info: accept without pins"],
  [
    "out",
    "write here (mode 0600, atomically; missing directories created 0700)\ninstead of stdout",
  ],
  ["force", "overwrite --out if it exists"],
  ["output", "yaml (default) or json: the kubeconfig's serialisation"],
]);

export const command: Command = {
  name: "kubeconfig bootstrap",
  options: FLAGS.options,
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
hold a key pinned by --discovery-token-ca-cert-hash. Without a pin this is
refused unless --discovery-token-unsafe-skip-ca-verification is given: anyone
who knows the token could have signed the file.

Usage:
  joinkit kubeconfig bootstrap --server https://HOST:PORT --ca CA.crt --token T [flags]
  joinkit kubeconfig bootstrap --cluster-info FILE --token T --discovery-token-ca-cert-hash H...

${FLAGS.help}
Output (-o json): the same kubeconfig (apiVersion v1, kind Config) as JSON,
keys sorted, as 'kubectl config view --raw -o json' prints it; client-go
reads either form. -o applies to --out too.

${EXIT_CODES}

Examples:
  joinkit kubeconfig bootstrap --server https://10.0.0.1:6443 --ca pki/ca.crt \\
    --token abcdef.0123456789abcdef --out /etc/kubernetes/bootstrap-kubelet.conf
  joinkit kubeconfig bootstrap --cluster-info ci.yaml --token "$TOKEN" \\
    --discovery-token-ca-cert-hash "$HASH"
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const token = tokenString(requireToken(ctx.flags));
    const clusterName = flagString(ctx.flags, "cluster-name") ?? DEFAULT_CLUSTER_NAME;
    const user = flagString(ctx.flags, "user") ?? TLS_BOOTSTRAP_USER;
    if (clusterName === "") throw new UsageError("--cluster-name must not be empty");
    if (user === "") throw new UsageError("--user must not be empty");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const out = flagOut(ctx.flags);
    const clusterInfoFile = flagString(ctx.flags, "cluster-info");
    let server: string;
    let caData: Uint8Array;
    const pins = flagPins(ctx.flags);
    const unsafe = flagUnsafe(ctx.flags);
    if (clusterInfoFile !== undefined) {
      if (
        flagString(ctx.flags, "server") !== undefined || flagString(ctx.flags, "ca") !== undefined
      ) {
        throw new UsageError("--cluster-info replaces --server and --ca: give one or the other");
      }
      requirePinsOrUnsafe(pins, unsafe);
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
      for (
        const [name, on] of [["discovery-token-ca-cert-hash", pins.length > 0], [
          "discovery-token-unsafe-skip-ca-verification",
          unsafe,
        ]] as const
      ) {
        if (on) throw new UsageError(`${givenName(ctx.flags, name)} goes with --cluster-info`);
      }
      server = requireServer(ctx.flags).url;
      const ca = readInput(requireString(ctx.flags, "ca"));
      await readClusterCa(ca.bytes, ca.name); // Go loads it, a CA first, nothing but certificates
      caData = ca.bytes;
    }
    const text = renderKubeconfig(
      tokenKubeconfig({ server, caData, token, clusterName, user }),
      format,
    );
    if (out === undefined) {
      ctx.stdout(text);
      return;
    }
    ensureParentDir(out);
    writeFilesAtomic([{ path: out, data: text, mode: 0o600 }], flagBool(ctx.flags, "force"));
    ctx.stderr(`wrote ${out}`);
  },
};
