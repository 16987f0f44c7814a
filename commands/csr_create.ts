/**
 * `joinkit csr create`: what the kubelet makes when it asks for a
 * certificate: a private key, a PKCS#10 CSR and the CertificateSigningRequest
 * object it posts.
 *
 * @module
 */

import * as path from "node:path";
import { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from "../lib/kubelet/approver.ts";
import { createCsr, csrPem, digestedName } from "../lib/kubelet/csr.ts";
import { buildCsrObject } from "../lib/kubelet/csr_object.ts";
import { isDns1123Subdomain } from "../lib/kubelet/csr_validation.ts";
import { UsageError } from "../lib/base/errors.ts";
import { exportPrivateKeyPem, exportSpki, generateKeyPair, type KeyType } from "../lib/pki/keys.ts";
import { renderObjects } from "../lib/k8s/manifest.ts";
import { parseIp } from "../lib/pki/pkix.ts";
import { kubeletUsages } from "../lib/pki/usages.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagChoice, flagInt, flagList, requireString } from "./_flags.ts";
import { ensureDir, writeFilesAtomic } from "./_io.ts";

const KEY_TYPES = ["ecdsa-p256", "ecdsa-p384", "rsa-2048", "ed25519"] as const;

export const command: Command = {
  name: "csr create",
  options: {
    node: { type: "string" },
    serving: { type: "boolean" },
    dns: { type: "string", multiple: true },
    ip: { type: "string", multiple: true },
    "key-type": { type: "string" },
    "expiration-seconds": { type: "string" },
    "out-dir": { type: "string" },
    force: { type: "boolean" },
    output: { type: "string", short: "o" },
  },
  help: `Make what the kubelet makes when it asks for a certificate.

Generates a private key and a PKCS#10 CSR with O=system:nodes and
CN=system:node:NAME, writes both to --out-dir, and prints the
certificates.k8s.io/v1 CertificateSigningRequest object the kubelet posts.

  client (default)  signerName kubernetes.io/kube-apiserver-client-kubelet, no SANs,
                    named node-csr-<SHA-512/256 digest> as the bootstrap kubelet names it
                    (digest of the public key, CN, O and usages).
                    Files: kubelet-client.key, kubelet-client.csr
  --serving         signerName kubernetes.io/kubelet-serving, SANs from --dns/--ip,
                    generateName csr- as the certificate manager posts it.
                    Files: kubelet-server.key, kubelet-server.csr

Usages are the ones the kubelet requests for the key type: "key encipherment"
only for RSA keys. The private key is written with mode 0600 (directory 0700),
never printed, and never overwritten without --force.

Usage:
  joinkit csr create --node NAME --out-dir DIR [--serving] [--dns NAME]... [--ip ADDR]...
                     [--key-type TYPE] [--expiration-seconds N] [--force] [-o yaml|json]

Flags:
  --node NAME               node name; the CN becomes system:node:NAME (required)
  --out-dir DIR             where the key and CSR PEM files go (required)
  --serving                 a kubelet serving CSR instead of a client CSR
  --dns NAME                DNS SAN (serving only; repeatable)
  --ip ADDR                 IP SAN (serving only; repeatable)
  --key-type TYPE           ${KEY_TYPES.join("|")} (default ecdsa-p256, the kubelet's)
  --expiration-seconds N    spec.expirationSeconds (at least 600; default unset)
  --force                   overwrite existing files
  -o, --output FORMAT       yaml (default) or json

${EXIT_CODES}

Examples:
  joinkit csr create --node worker-1 --out-dir pki > csr.yaml
  joinkit csr create --node worker-1 --serving --ip 10.0.0.11 --dns worker-1 --out-dir pki
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const node = requireString(ctx.flags, "node");
    if (node.trim() === "" || /\s/.test(node) || isDns1123Subdomain(node).length > 0) {
      // Node names are DNS-1123 subdomains (ValidateNodeName); anything else never joins.
      throw new UsageError(
        `--node must be a node name (lower-case DNS-1123 subdomain), got ${JSON.stringify(node)}`,
      );
    }
    const outDir = requireString(ctx.flags, "out-dir");
    const serving = flagBool(ctx.flags, "serving");
    const dns = flagList(ctx.flags, "dns");
    const ips = flagList(ctx.flags, "ip");
    if (!serving && (dns.length || ips.length)) {
      throw new UsageError("--dns and --ip need --serving (kubelet client CSRs carry no SANs)");
    }
    if (serving && dns.length === 0 && ips.length === 0) {
      throw new UsageError("--serving needs at least one --dns or --ip");
    }
    for (const ip of ips) {
      if (!parseIp(ip)) throw new UsageError(`--ip ${JSON.stringify(ip)} is not an IP address`);
    }
    for (const d of dns) {
      if (d === "" || /\s/.test(d)) {
        throw new UsageError(`--dns ${JSON.stringify(d)} is not a name`);
      }
    }
    const keyType = flagChoice(ctx.flags, "key-type", KEY_TYPES, "ecdsa-p256") as KeyType;
    const expRaw = ctx.flags["expiration-seconds"];
    const expirationSeconds = expRaw === undefined
      ? undefined
      : flagInt(ctx.flags, "expiration-seconds", 0, 600, 2147483647);
    const format = flagChoice(ctx.flags, "output", ["yaml", "json"] as const, "yaml");
    const force = flagBool(ctx.flags, "force");

    const pair = await generateKeyPair(keyType);
    const spki = await exportSpki(pair.publicKey);
    const commonName = `system:node:${node}`;
    const organization = ["system:nodes"];
    const der = await createCsr(pair.privateKey, spki, {
      commonName,
      organization,
      dns,
      ips,
    });
    const pem = csrPem(der);
    const usages = kubeletUsages(serving ? "serving" : "client", keyType);
    const obj = buildCsrObject({
      name: serving ? undefined : digestedName(spki, commonName, organization, usages),
      requestPem: pem,
      signerName: serving ? KUBELET_SERVING_SIGNER : KUBELET_CLIENT_SIGNER,
      usages,
      expirationSeconds,
    });
    const prefix = serving ? "kubelet-server" : "kubelet-client";
    const keyPem = await exportPrivateKeyPem(pair.privateKey);
    ensureDir(outDir, 0o700);
    const keyPath = path.join(outDir, `${prefix}.key`);
    const csrPath = path.join(outDir, `${prefix}.csr`);
    writeFilesAtomic([
      { path: keyPath, data: keyPem, mode: 0o600 },
      { path: csrPath, data: pem, mode: 0o644 },
    ], force);
    ctx.stdout(renderObjects([obj], format));
    ctx.stderr(`wrote ${keyPath} (0600) and ${csrPath}`);
  },
};
