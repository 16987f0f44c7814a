/**
 * `joinkit certs certificate-key`: a new certificate key, as `kubeadm certs
 * certificate-key` prints it (32 random bytes, 64 lower-case hex characters).
 *
 * @module
 */

import { createCertificateKey } from "../../lib/pki/aes_gcm.ts";
import { type Command, EXIT_CODES } from "../_command.ts";
import { expectArgs, flagSet } from "../_flags.ts";

const FLAGS = flagSet("certs certificate-key", []);

export const command: Command = {
  name: "certs certificate-key",
  options: FLAGS.options,
  help: `Print a new certificate key, as 'kubeadm certs certificate-key' does.

The key is 32 bytes from the system CSPRNG, printed as 64 lower-case hex
characters and a newline: the AES-256 key 'upload-certs' encrypts the
kubeadm-certs Secret with, and that 'kubeadm join --control-plane
--certificate-key' (or JoinConfiguration controlPlane.certificateKey) and
'download-certs' decrypt it with. It goes to stdout only; keep it as secret
as the CA key it protects.

Usage:
  joinkit certs certificate-key

${EXIT_CODES}

Examples:
  KEY=$(joinkit certs certificate-key)
  joinkit upload-certs --pki-dir /etc/kubernetes/pki --certificate-key "$KEY"
`,
  run(ctx) {
    expectArgs(ctx, 0, 0, "");
    ctx.stdout(createCertificateKey() + "\n");
  },
};
