/**
 * `joinkit join-command`: the line `kubeadm token create --print-join-command`
 * prints. Loads no YAML; the X.509 parser only once the CA file is read.
 *
 * @module
 */

import { loadClusterCa } from "../lib/pki/certsource.ts";
import { joinCommand } from "../lib/discovery/join_command.ts";
import { caCertHash } from "../lib/pki/pin.ts";
import { parseJoinEndpoint } from "../lib/k8s/server_url.ts";
import { parseToken } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagString, requireString } from "./_flags.ts";
import { readInput } from "./_io.ts";

export const command: Command = {
  name: "join-command",
  options: {
    server: { type: "string" },
    token: { type: "string" },
    ca: { type: "string" },
    "control-plane": { type: "boolean" },
    "certificate-key": { type: "string" },
  },
  help: `Print the kubeadm join command line, as 'kubeadm token create --print-join-command'.

One line: kubeadm join HOST:PORT --token T, then one
--discovery-token-ca-cert-hash sha256:<hex> per certificate in the CA bundle
(in file order), each followed by a space as kubeadm's template leaves it.
The bundle is read as client-go reads it (certutil.ParseCertsPEM): blocks Go
skips are not pinned, a bundle Go cannot load is refused, and so is a first
certificate that is not a CA.
With --control-plane (implied by --certificate-key) it adds --control-plane
and --certificate-key KEY. The token is printed: this is the command a node
runs.

Usage:
  joinkit join-command --server HOST:PORT --token T --ca CA.crt [flags]

Flags:
  --server HOST:PORT        control-plane endpoint (an https:// prefix is dropped, as kubeadm does)
  --token T                 the bootstrap token (required)
  --ca FILE                 PEM CA certificate or bundle (required)
  --control-plane           join as a control-plane node
  --certificate-key KEY     the key from 'kubeadm init phase upload-certs --upload-certs' (64 hex)

${EXIT_CODES}

Examples:
  joinkit join-command --server 10.0.0.1:6443 --token abcdef.0123456789abcdef --ca pki/ca.crt
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const server = parseJoinEndpoint(requireString(ctx.flags, "server"));
    const token = requireString(ctx.flags, "token");
    parseToken(token);
    const ca = readInput(requireString(ctx.flags, "ca"));
    const hashes = (await loadClusterCa(ca.bytes, ca.name)).map((c) => caCertHash(c.der));
    const key = flagString(ctx.flags, "certificate-key");
    ctx.stdout(joinCommand({
      hostPort: server.hostPort,
      token,
      caCertHashes: hashes,
      controlPlane: flagBool(ctx.flags, "control-plane"),
      ...(key !== undefined ? { certificateKey: key } : {}),
    }));
  },
};
