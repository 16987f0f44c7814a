/**
 * `joinkit ca pin-check`: kubeadm join's CA pin check (`pubkeypin.Set.CheckAny`).
 *
 * @module
 */

import { extractCertificates } from "../lib/pki/certsource.ts";
import { CheckError } from "../lib/base/errors.ts";
import { caCertHash, PinSet } from "../lib/pki/pin.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagPins,
  flagSet,
  missingFlag,
  optionalOutput,
  renderData,
} from "./_flags.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("ca pin-check", [
  [
    "discovery-token-ca-cert-hash",
    "a pin (sha256:<hex>); repeatable or comma-separated, at least one",
  ],
  ["output", "text (default), json or yaml"],
]);

export const command: Command = {
  name: "ca pin-check",
  options: FLAGS.options,
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

A malformed pin is a usage error (exit 2) with kubeadm's text.

Usage:
  joinkit ca pin-check --discovery-token-ca-cert-hash sha256:HEX [...]... FILE [-o text|json|yaml]

${FLAGS.help}
Output (-o json), on success: one object: caCertHash (the matching
certificate's pin), certificates (how many FILE holds), file, index (the
matching certificate's position, from 0) and ok (true). Keys sorted; -o yaml
is the same object. A failed check prints nothing on stdout.

${EXIT_CODES}
  (3: no certificate's public key is pinned)

Examples:
  joinkit ca pin-check --discovery-token-ca-cert-hash "$(joinkit ca hash pki/ca.crt)" pki/ca.crt
  joinkit ca pin-check --discovery-token-ca-cert-hash sha256:OLD,sha256:NEW cluster-info.yaml
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "FILE");
    const hashes = flagPins(ctx.flags);
    if (hashes.length === 0) missingFlag(ctx.flags, "--discovery-token-ca-cert-hash");
    const format = optionalOutput(ctx.flags, ["text", "json", "yaml"] as const) ?? "text";
    const pins = new PinSet();
    pins.allow(...hashes);
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
    const pin = caCertHash(certs[i]!);
    if (format === "text") {
      ctx.stdout(`ok: ${which} matches pin ${pin}\n`);
      return;
    }
    ctx.stdout(
      await renderData(
        { caCertHash: pin, certificates: certs.length, file: input.name, index: i, ok: true },
        format,
      ),
    );
  },
};
