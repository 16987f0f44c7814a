/**
 * `joinkit cert verify`: check issued certificates against their CA, the
 * signer's rules, the node name and the private key; print the kubelet's
 * rotation window.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type Cert, parseCertificateFrom } from "../lib/pki/cert_info.ts";
import { verifyCertificate, type VerifyReport } from "../lib/kubelet/cert_verify.ts";
import { InputError, UsageError } from "../lib/base/errors.ts";
import { decodePem } from "../lib/pki/pem.ts";
import { signerValidator } from "../lib/kubelet/signer.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  clockFlag,
  expectArgs,
  flagSet,
  flagString,
  outputFormat,
  requireString,
} from "./_flags.ts";
import { eachInput } from "./_io.ts";
import { type Input, readInput } from "./_read.ts";
import { dataListWriter, HeldOutput } from "./_list_output.ts";
import { progress } from "./_progress.ts";
import { fleetCompilerFlags } from "./_fleet.ts";

const FLAGS = flagSet("cert verify", [
  ["ca", "trusted CA certificate(s): PEM bundle, DER or kubeconfig (required)"],
  "signer-name",
  ["node", "expected node name"],
  "key",
  ["now", ""],
  ["output", "text (default), json or yaml"],
]);

export const command: Command = {
  name: "cert verify",
  options: FLAGS.options,
  help: `Check issued certificates as their users would.

For each CERT (PEM, DER, the kubelet's combined cert+key file such as
kubelet-client-current.pem, or a kubeconfig with embedded client certificates;
directories are read recursively):
  chain     Go's x509.Verify at --now: a chain to a CA in --ca through the
            intermediates in the same file (every candidate tried; validity,
            path length, name constraints, key usage, EKU nesting; SHA-1 and
            MD5 refused); a failure is reported with Go's error text
  validity  NotBefore <= --now <= NotAfter
  ca-flag   the certificate is not a CA
  eku       ClientAuth (client signers) or ServerAuth (kubelet-serving), checked
            over the chain as Go's x509.Verify does
  signer    the signer's subject, SAN and usage rules (--signer-name, or guessed:
            kubelet client or serving)
  node      CN is system:node:NAME (with --node)
  key       the private key matches (--key, or the key in a combined file or
            kubeconfig)
and the kubelet's rotation window: uniformly between 70% and 90% of the
lifetime after NotBefore (client-go's certificate manager).

Usage:
  joinkit cert verify CERT... --ca CA.crt [--signer-name NAME] [--node NAME] [--key KEY]
                      [--now RFC3339] [-o text|json|yaml]

${FLAGS.help}
Certificates are judged at the global --now (default: the system time);
--at RFC3339, its old name here, still works (given with --now, --at wins,
as it did).

Output (-o json): one report object per certificate (an array when there are
several): source, subject, checks [{check, ok, detail}], rotation {start,
end, due} and ok. Keys sorted; -o yaml is the same data. The report is
printed when a check fails too (exit 3).

Exit code 3 when any check fails for any certificate.

${EXIT_CODES}

Examples:
  joinkit cert verify /var/lib/kubelet/pki/kubelet-client-current.pem \\
    --ca /etc/kubernetes/pki/ca.crt --node worker-1
  joinkit cert verify certs/ --ca ca.crt -o json
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "CERT");
    const caPath = requireString(ctx.flags, "ca");
    const signerName = flagString(ctx.flags, "signer-name");
    if (signerName !== undefined) {
      try {
        signerValidator(signerName);
      } catch (e) {
        throw new UsageError(`--signer-name: ${(e as Error).message}`);
      }
    }
    const node = flagString(ctx.flags, "node");
    const keyPath = flagString(ctx.flags, "key");
    const at = clockFlag(ctx);
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");

    const caIn = readInput(caPath);
    const { extractCertificates } = await import("../lib/pki/certsource.ts");
    const cas = (await extractCertificates(caIn)).map((der, i, all) => ({
      cert: parseCertificateFrom(der, all.length > 1 ? `${caIn.name}[${i}]` : caIn.name),
      source: caIn.name,
    }));
    let flagKey: { spki: Uint8Array; source: string } | undefined;
    if (keyPath !== undefined) flagKey = await loadKeySpki(readInput(keyPath));

    // Each certificate is verified and printed as it is read (output held up to 16 MiB, so a
    // refusal midway still prints nothing); the failure lines follow on stderr at the end.
    const out = new HeldOutput(ctx.stdout);
    const data = format === "text" ? undefined : await dataListWriter(format, out, true);
    const failures: string[] = [];
    let count = 0;
    let ok = true;
    // Synchronous (node:crypto signatures): a fleet's certificates go one after another.
    const shown = progress(ctx, "cert verify");
    // Last, once what the run loads is loaded (node:crypto for the signatures, node:tty, which
    // progress() asked): see fleetCompilerFlags.
    process.getBuiltinModule("node:crypto");
    fleetCompilerFlags();
    for (const input of eachInput(ctx.args)) {
      for (const item of await certsOf(input)) {
        shown.tick();
        const r = verifyCertificate(item.leaf, item.intermediates, item.source, {
          cas,
          signerName,
          node,
          key: flagKey ?? item.key,
          at,
        });
        count++;
        ok &&= r.ok;
        if (data) data.add(r);
        else out.write(renderText(r));
        const failed = r.checks.filter((c) => !c.ok);
        if (failed.length) {
          failures.push(
            `error: ${r.source}: ${failed.map((c) => `${c.check}: ${c.detail}`).join("; ")}`,
          );
        }
      }
    }
    shown.done();
    if (data) data.end();
    else {
      if (count === 0) out.write("\n");
      out.end();
    }
    for (const line of failures) ctx.stderr(line);
    return ok ? 0 : 3;
  },
};

/** One report as text: its lines, each ending in a newline. */
function renderText(r: VerifyReport): string {
  let text = `${r.source}: ${r.subject}\n`;
  for (const c of r.checks) {
    text += `  ${c.ok ? "ok  " : "FAIL"}  ${c.check.padEnd(9)} ${c.detail}\n`;
  }
  text +=
    `  info  rotation  the kubelet rotates it between ${r.rotation.start} and ${r.rotation.end}` +
    (r.rotation.due ? " (window reached)" : "") + "\n";
  return text + `  verdict: ${r.ok ? "ok" : "FAILED"}\n`;
}

interface Item {
  leaf: Cert;
  intermediates: Cert[];
  source: string;
  key?: { spki: Uint8Array; source: string } | undefined;
}

async function loadKeySpki(input: Input): Promise<{ spki: Uint8Array; source: string }> {
  const { importPrivateKeyPem } = await import("../lib/pki/keys.ts");
  const k = await importPrivateKeyPem(input.text, input.name);
  return { spki: k.spki, source: input.name };
}

const KEY_TYPES = ["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY"];

async function certsOf(input: Input): Promise<Item[]> {
  const { name, text, bytes } = input;
  if (text.includes("-----BEGIN")) {
    const blocks = decodePem(text, name);
    const certs = blocks.filter((b) => b.type === "CERTIFICATE");
    if (certs.length === 0) throw new InputError(`${name}: no certificate found`);
    const parsed = certs.map((b, i) => parseCertificateFrom(b.der, i ? `${name}[${i}]` : name));
    const hasKey = blocks.some((b) => KEY_TYPES.includes(b.type));
    return [{
      leaf: parsed[0]!,
      intermediates: parsed.slice(1),
      source: name,
      key: hasKey ? await loadKeySpki(input) : undefined,
    }];
  }
  if (bytes[0] === 0x30) {
    return [{ leaf: parseCertificateFrom(bytes, name), intermediates: [], source: name }];
  }
  const { parseManifests } = await import("../lib/k8s/manifest.ts");
  const { isObject } = await import("../lib/base/object.ts");
  let docs;
  try {
    docs = parseManifests(text, name);
  } catch {
    throw new InputError(`${name}: not a certificate, combined cert+key file or kubeconfig`);
  }
  const items: Item[] = [];
  for (const doc of docs) {
    const users = Array.isArray(doc.users) ? doc.users : [];
    for (const u of users) {
      if (!isObject(u) || !isObject(u.user)) continue;
      const data = u.user["client-certificate-data"];
      if (typeof data !== "string") continue;
      const where = `${name}: user ${JSON.stringify(u.name)}`;
      const pem = Buffer.from(data, "base64").toString("utf8");
      const certs = decodePem(pem, where).filter((b) => b.type === "CERTIFICATE");
      if (certs.length === 0) throw new InputError(`${where}: no certificate found`);
      const parsed = certs.map((b) => parseCertificateFrom(b.der, where));
      const keyData = u.user["client-key-data"];
      const key = typeof keyData === "string"
        ? await loadKeySpki({
          name: `${where} client-key-data`,
          text: Buffer.from(keyData, "base64").toString("utf8"),
          bytes: new Uint8Array(),
        })
        : undefined;
      items.push({ leaf: parsed[0]!, intermediates: parsed.slice(1), source: where, key });
    }
  }
  if (items.length === 0) {
    throw new InputError(
      `${name}: no certificate found (no PEM, DER or embedded client-certificate-data)`,
    );
  }
  return items;
}
