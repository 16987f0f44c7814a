/**
 * `joinkit ca create`: a cluster CA (`ca.crt`, `ca.key`) as kubeadm makes it.
 *
 * @module
 */

import * as path from "node:path";
import { DEFAULT_KEY_TYPE, KEY_TYPES } from "../lib/pki/keys.ts";
import { formatRfc3339 } from "../lib/go/time.ts";
import { UsageError } from "../lib/base/errors.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagChoice,
  flagDuration,
  flagNonEmpty,
  flagSet,
  optionalOutput,
  renderData,
  requireOutDir,
} from "./_flags.ts";
import { ensureDir, writeFilesAtomic } from "./_io.ts";

/** kubeadm's CA lifetime: 10 years. */
const DEFAULT_TTL = "87600h";

const FLAGS = flagSet("ca create", [
  ["out-dir", "directory for ca.crt and ca.key (required; created 0700 with missing parents)"],
  ["cn", "subject common name (default kubernetes)"],
  ["key-type", `${KEY_TYPES.join("|")}\n(default ${DEFAULT_KEY_TYPE}, as kubeadm)`],
  [
    "ttl",
    `CA lifetime from now, Go duration\n(default ${DEFAULT_TTL}, 10 years, as kubeadm)`,
  ],
  ["force", "overwrite existing ca.crt / ca.key"],
  ["output", "json or yaml: print what was made (default: print nothing)"],
]);

export const command: Command = {
  name: "ca create",
  options: FLAGS.options,
  help: `Create a cluster CA: ca.crt and ca.key, as 'kubeadm init phase certs ca' does.

The certificate is self-signed with subject CN=<cn> only (a PrintableString
when Go would write one, else UTF8String), SAN DNS:<cn> (so <cn> must be ASCII,
as Go requires), BasicConstraints CA:TRUE (critical), KeyUsage digitalSignature,
keyEncipherment, keyCertSign (critical), a SubjectKeyIdentifier and a random
positive 63-bit serial. Like kubeadm, NotBefore is backdated 5 minutes (clock
skew) and NotAfter is now + --ttl. ca.crt is written 0644, ca.key 0600
(PKCS#1 for RSA, SEC 1 for ECDSA, PKCS#8 for Ed25519, as kubeadm writes them),
both in one atomic step; the directory is created 0700 if missing.

stderr says what was written and the CA's --discovery-token-ca-cert-hash
(never key material). Nothing is printed on stdout unless -o is given.

Usage:
  joinkit ca create --out-dir DIR [--cn NAME] [--key-type TYPE] [--ttl DURATION] [--force]
                    [-o json|yaml]

${FLAGS.help}
The CA is made at the global --now (default: the system time).

Output (-o json): one object: caCertHash (sha256:<hex>), certFile, keyFile,
key (type and size), notAfter and notBefore (RFC 3339), serial (hex) and
subject. Keys sorted; -o yaml is the same object.

${EXIT_CODES}

Examples:
  joinkit ca create --out-dir pki
  joinkit ca create --out-dir pki --key-type ecdsa-p256 --ttl 43800h
  joinkit ca create --out-dir pki -o json | jq -r .caCertHash
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const outDir = requireOutDir(ctx.flags);
    const commonName = flagNonEmpty(ctx.flags, "cn") ?? "kubernetes";
    const keyType = flagChoice(ctx.flags, "key-type", KEY_TYPES, DEFAULT_KEY_TYPE);
    const format = optionalOutput(ctx.flags, ["json", "yaml"] as const);
    const force = flagBool(ctx.flags, "force");
    const certPath = path.join(outDir, "ca.crt");
    const keyPath = path.join(outDir, "ca.key");
    const { caNameError, createCa, DEFAULT_CA_VALIDITY_MS } = await import("../lib/pki/ca.ts");
    const badName = caNameError(commonName);
    if (badName) throw new UsageError(`--cn: ${badName}`);
    const validityMs = flagDuration(ctx.flags, "ttl", 1000) ?? DEFAULT_CA_VALIDITY_MS;
    const ca = await createCa({ commonName, keyType, now: ctx.now, validityMs });
    ensureDir(outDir, 0o700);
    writeFilesAtomic([
      { path: certPath, data: ca.certPem, mode: 0o644 },
      { path: keyPath, data: ca.keyPem, mode: 0o600 },
    ], force);
    ctx.stderr(
      `wrote ${certPath}: CN=${commonName}, ${ca.keyDescription}, serial ${ca.serialHex}, valid ${
        formatRfc3339(ca.notBefore)
      } to ${formatRfc3339(ca.notAfter)}`,
    );
    ctx.stderr(`wrote ${keyPath} (mode 0600)`);
    ctx.stderr(`CA cert hash: ${ca.hash}`);
    if (format !== undefined) {
      ctx.stdout(
        await renderData({
          caCertHash: ca.hash,
          certFile: certPath,
          key: ca.keyDescription,
          keyFile: keyPath,
          notAfter: formatRfc3339(ca.notAfter),
          notBefore: formatRfc3339(ca.notBefore),
          serial: ca.serialHex,
          subject: `CN=${commonName}`,
        }, format),
      );
    }
  },
};
