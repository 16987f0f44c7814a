/**
 * `joinkit ca pin-check`: kubeadm join's CA pin check (`pubkeypin.Set.CheckAny`).
 *
 * @module
 */

import { extractCertificates } from "../lib/pki/certsource.ts";
import { CheckError, InputError, UsageError } from "../lib/base/errors.ts";
import { caCertHash, PinSet } from "../lib/pki/pin.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagList } from "./_flags.ts";
import { readInput } from "./_io.ts";

export const command: Command = {
  name: "ca pin-check",
  options: { "ca-cert-hash": { type: "string", multiple: true } },
  help: `Check CA certificates against --discovery-token-ca-cert-hash pins, as kubeadm join does.

Pins are parsed with kubeadm's rules (format "sha256:<64 hex>", format name
case-insensitive, several pins allowed) and its error texts. The check passes
when ANY certificate in FILE has a pinned public key (every certificate is
hashed, as pubkeypin.Set.CheckAny does; a pin on one certificate of a bundle
is how kubeadm comes to trust all of them); it prints which one matched.
FILE is read as 'ca hash' reads it: a PEM certificate or bundle (as
certutil.ParseCertsPEM), a DER certificate, a kubeconfig or a cluster-info
ConfigMap (the CA of the cluster kubeadm chooses) ('-' for stdin). The
certificates need not be CAs. For the whole discovery check of a
cluster-info (every cluster's CA), use 'cluster-info verify'.

Usage:
  joinkit ca pin-check --ca-cert-hash sha256:HEX [--ca-cert-hash sha256:HEX]... FILE

Flags:
  --ca-cert-hash HASH  a pin; repeat for several (at least one)

${EXIT_CODES}
  (3: no certificate's public key is pinned)

Examples:
  joinkit ca pin-check --ca-cert-hash "$(joinkit ca hash pki/ca.crt)" pki/ca.crt
  joinkit ca pin-check --ca-cert-hash sha256:OLD --ca-cert-hash sha256:NEW cluster-info.yaml
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "FILE");
    const hashes = flagList(ctx.flags, "ca-cert-hash");
    if (hashes.length === 0) throw new UsageError("missing required flag --ca-cert-hash");
    const pins = new PinSet();
    try {
      pins.allow(...hashes);
    } catch (e) {
      throw new InputError(`invalid discovery token CA certificate hash: ${(e as Error).message}`);
    }
    const input = readInput(ctx.args[0]!);
    const certs = await extractCertificates(input);
    let i: number;
    try {
      i = pins.checkAny(certs);
    } catch (e) {
      if (e instanceof CheckError) throw new CheckError(`${input.name}: ${e.message}`);
      throw e;
    }
    const which = certs.length > 1
      ? `${input.name} certificate ${i + 1} of ${certs.length}`
      : input.name;
    ctx.stdout(`ok: ${which} matches pin ${caCertHash(certs[i]!)}\n`);
  },
};
