/**
 * `joinkit join-command`: the line `kubeadm token create --print-join-command`
 * prints. Loads no YAML; the X.509 parser only once the CA file is read.
 *
 * @module
 */

import { loadClusterCa } from "../lib/pki/certsource.ts";
import { CERTIFICATE_KEY_PATTERN, joinCommand } from "../lib/discovery/join_command.ts";
import { UsageError } from "../lib/base/errors.ts";
import { caCertHash } from "../lib/pki/pin.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagSet,
  flagString,
  optionalOutput,
  renderData,
  requireServer,
  requireString,
  requireToken,
} from "./_flags.ts";
import { tokenString } from "../lib/tokens/token.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("join-command", [
  ["server", "control-plane endpoint: https://HOST:PORT or HOST:PORT (required)"],
  ["token", "the bootstrap token (required)"],
  ["ca", "PEM CA certificate or bundle (required)"],
  "control-plane",
  "certificate-key",
  ["output", "text (default: the command line), json or yaml"],
]);

export const command: Command = {
  name: "join-command",
  options: FLAGS.options,
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
  joinkit join-command --server https://HOST:PORT --token T --ca CA.crt [flags]

${FLAGS.help}
Output (-o json): one object: caCertHashes (the pins, in bundle order),
certificateKey (only when given), command (the line, without its newline),
controlPlane, server (HOST:PORT) and token. Keys sorted; -o yaml is the same
object.

${EXIT_CODES}

Examples:
  joinkit join-command --server https://10.0.0.1:6443 --token abcdef.0123456789abcdef --ca pki/ca.crt
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const server = requireServer(ctx.flags);
    const token = tokenString(requireToken(ctx.flags));
    const caFile = requireString(ctx.flags, "ca");
    const key = flagString(ctx.flags, "certificate-key");
    if (key !== undefined && key !== "" && !CERTIFICATE_KEY_PATTERN.test(key)) {
      throw new UsageError("--certificate-key must be 64 hex characters (a 32-byte key)");
    }
    const controlPlane = flagBool(ctx.flags, "control-plane");
    const format = optionalOutput(ctx.flags, ["text", "json", "yaml"] as const) ?? "text";
    const ca = readInput(caFile);
    const hashes = (await loadClusterCa(ca.bytes, ca.name)).map((c) => caCertHash(c.der));
    const line = joinCommand({
      hostPort: server.hostPort,
      token,
      caCertHashes: hashes,
      controlPlane,
      ...(key !== undefined ? { certificateKey: key } : {}),
    });
    if (format === "text") {
      ctx.stdout(line);
      return;
    }
    ctx.stdout(
      await renderData({
        caCertHashes: hashes,
        ...(key ? { certificateKey: key } : {}),
        command: line.replace(/\n$/, ""),
        controlPlane: controlPlane || !!key,
        server: server.hostPort,
        token,
      }, format),
    );
  },
};
