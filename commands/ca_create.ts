/**
 * `joinkit ca create`: a cluster CA (`ca.crt`, `ca.key`) as kubeadm makes it.
 *
 * @module
 */

import * as path from "node:path";
import { UsageError } from "../lib/base/errors.ts";
import { DEFAULT_KEY_TYPE, KEY_TYPES } from "../lib/pki/keys.ts";
import { parseDuration } from "../lib/go/duration.ts";
import { formatRfc3339 } from "../lib/go/time.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagChoice, flagString, requireString } from "./_flags.ts";
import { ensureDir, writeFilesAtomic } from "./_io.ts";

export const command: Command = {
  name: "ca create",
  options: {
    "out-dir": { type: "string" },
    cn: { type: "string" },
    "key-type": { type: "string" },
    validity: { type: "string" },
    force: { type: "boolean" },
  },
  help: `Create a cluster CA: ca.crt and ca.key, as 'kubeadm init phase certs ca' does.

The certificate is self-signed with subject CN=<cn> only, SAN DNS:<cn>,
BasicConstraints CA:TRUE (critical), KeyUsage digitalSignature,
keyEncipherment, keyCertSign (critical), a SubjectKeyIdentifier and a random
positive 63-bit serial. Like kubeadm, NotBefore is backdated 5 minutes (clock
skew) and NotAfter is now + --validity. ca.crt is written 0644, ca.key 0600
(PKCS#1 for RSA, SEC 1 for ECDSA, PKCS#8 for Ed25519, as kubeadm writes them),
both in one atomic step; the directory is created 0700 if missing.

Nothing is printed on stdout. stderr says what was written and the CA's
--discovery-token-ca-cert-hash (never key material).

Usage:
  joinkit ca create --out-dir DIR [--cn NAME] [--key-type TYPE] [--validity DURATION] [--force]

Flags:
  --out-dir DIR        directory for ca.crt and ca.key (required)
  --cn NAME            subject common name (default kubernetes)
  --key-type TYPE      ${KEY_TYPES.join("|")} (default ${DEFAULT_KEY_TYPE}, as kubeadm)
  --validity DURATION  Go duration counted from now (default 87600h, 10 years, as kubeadm)
  --force              overwrite existing ca.crt / ca.key
  --now RFC3339        the time the CA is made at

${EXIT_CODES}

Examples:
  joinkit ca create --out-dir pki
  joinkit ca create --out-dir pki --key-type ecdsa-p256 --validity 43800h
  joinkit ca create --out-dir pki && joinkit ca hash pki/ca.crt
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const outDir = requireString(ctx.flags, "out-dir");
    if (outDir === "") throw new UsageError("--out-dir must not be empty");
    const commonName = flagString(ctx.flags, "cn") ?? "kubernetes";
    if (commonName === "") throw new UsageError("--cn must not be empty");
    const keyType = flagChoice(ctx.flags, "key-type", KEY_TYPES, DEFAULT_KEY_TYPE);
    const validityText = flagString(ctx.flags, "validity") ?? "87600h";
    let validityMs: number;
    try {
      validityMs = parseDuration(validityText);
    } catch (e) {
      throw new UsageError(`--validity: ${(e as Error).message}`);
    }
    if (!(validityMs >= 1000)) {
      throw new UsageError(`--validity must be at least 1s, got ${JSON.stringify(validityText)}`);
    }
    const force = flagBool(ctx.flags, "force");
    const certPath = path.join(outDir, "ca.crt");
    const keyPath = path.join(outDir, "ca.key");
    const { createCa } = await import("../lib/pki/ca.ts");
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
  },
};
