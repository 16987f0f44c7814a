/**
 * `joinkit ca hash`: kubeadm's `sha256:<hex>` public-key pin of each certificate.
 * Loads YAML only for kubeconfigs and ConfigMaps, the X.509 parser only once
 * input is read.
 *
 * @module
 */

import { extractCertificates } from "../lib/pki/certsource.ts";
import { caCertHash } from "../lib/pki/pin.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { flagSet, optionalOutput, renderData } from "./_flags.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("ca hash", [["output", "text (default: one pin per line), json or yaml"]]);

export const command: Command = {
  name: "ca hash",
  options: FLAGS.options,
  help: `Print the --discovery-token-ca-cert-hash pin of each CA certificate.

The pin is "sha256:" + the lowercase hex SHA-256 of the certificate's DER
SubjectPublicKeyInfo, exactly as kubeadm computes it (pubkeypin.Hash). One line
per certificate, in input order: every certificate of a bundle is hashed, as
'kubeadm token create --print-join-command' does. Same value as:
  openssl x509 -pubkey -noout -in ca.crt | openssl pkey -pubin -outform der |
    openssl dgst -sha256

Inputs: PEM certificates or bundles, read as client-go reads them
(certutil.ParseCertsPEM: only CERTIFICATE blocks without headers count, a
certificate Go cannot parse fails the whole file); DER certificates;
kubeconfigs, loaded as clientcmd.Load does, giving the CA of the cluster
kubeadm uses (the unnamed cluster, else the current context's), as
'kubeadm token create --print-join-command' reads admin.conf; cluster-info
ConfigMaps (the same, for data.kubeconfig). Any certificate can be hashed:
this is a hash tool, it does not require a CA. Default: stdin. Directories
are refused: name the certificate file.

Usage:
  joinkit ca hash [FILE|-]... [-o text|json|yaml]

${FLAGS.help}
Output (-o json): an array with one object per certificate, in input order:
caCertHash (sha256:<hex>), file (the input's name, "stdin" for -) and index
(the certificate's position in that file, from 0). Keys sorted; -o yaml is
the same array.

${EXIT_CODES}

Examples:
  joinkit ca hash /etc/kubernetes/pki/ca.crt
  joinkit ca hash /etc/kubernetes/admin.conf
  kubectl -n kube-public get cm cluster-info -o yaml | joinkit ca hash
`,
  async run(ctx) {
    const format = optionalOutput(ctx.flags, ["text", "json", "yaml"] as const) ?? "text";
    const rows: { caCertHash: string; file: string; index: number }[] = [];
    for (const file of ctx.args.length ? ctx.args : ["-"]) {
      const input = readInput(file);
      (await extractCertificates(input)).forEach((der, index) =>
        rows.push({ caCertHash: caCertHash(der), file: input.name, index })
      );
    }
    if (format === "text") ctx.stdout(rows.map((r) => r.caCertHash).join("\n") + "\n");
    else ctx.stdout(await renderData(rows, format));
  },
};
