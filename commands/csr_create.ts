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
import { buildCsrObject, recordRequester } from "../lib/kubelet/csr_object.ts";
import { isDns1123Subdomain } from "../lib/kubelet/csr_validation.ts";
import { UsageError } from "../lib/base/errors.ts";
import { exportPrivateKeyPem, exportSpki, generateKeyPair, type KeyType } from "../lib/pki/keys.ts";
import { renderObjects } from "../lib/k8s/manifest.ts";
import { parseIp } from "../lib/pki/pkix.ts";
import { kubeletUsages } from "../lib/pki/usages.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagChoice,
  flagDuration,
  flagInt,
  flagList,
  flagSet,
  flagString,
  outputFormat,
  requireOutDir,
  requireParsed,
  requireString,
} from "./_flags.ts";
import { ensureDir, writeFilesAtomic } from "./_io.ts";

const KEY_TYPES = ["ecdsa-p256", "ecdsa-p384", "rsa-2048", "ed25519"] as const;

/** The most spec.expirationSeconds can hold (an int32). */
const MAX_EXPIRATION_SECONDS = 2147483647;

const FLAGS = flagSet("csr create", [
  ["node", "node name; the CN becomes system:node:NAME (required)"],
  ["out-dir", "where the key and CSR PEM files go (required; created 0700)"],
  "serving",
  ["dns", "DNS SAN (serving only; repeatable)"],
  ["ip", "IP SAN (serving only; repeatable)"],
  ["key-type", `${KEY_TYPES.join("|")} (default ecdsa-p256, the kubelet's)`],
  [
    "ttl",
    "requested lifetime: spec.expirationSeconds, whole seconds, at least 10m\n(default unset: the signer's)",
  ],
  [
    "requester",
    "record the user who posts it, as kube-apiserver does (spec.username,\nspec.groups): system:bootstrap:<token-id> for a bootstrap kubelet,\nsystem:node:NAME for a rotating one (default: none recorded)",
  ],
  [
    "groups",
    "with --requester: its groups (repeatable or comma-separated); kube-apiserver\nadds system:authenticated, and system:bootstrappers for a bootstrap user",
  ],
  ["uid", "with --requester: spec.uid (bootstrap token users have none)"],
  ["force", "overwrite existing files"],
  ["output", "yaml (default) or json"],
]);

export const command: Command = {
  name: "csr create",
  options: FLAGS.options,
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

With --requester, the object records who posts it as kube-apiserver does
(whatever a client sends, the API server writes the authenticated user):
spec.username, spec.groups (with system:authenticated; for a bootstrap
token's user system:bootstrap:<id>, its extra groups plus
system:bootstrappers, sorted) and spec.uid, so 'csr approve' can judge it
as the cluster's approvers would.

Usages are the ones the kubelet requests for the key type: "key encipherment"
only for RSA keys. The private key is written with mode 0600 (directory 0700),
never printed, and never overwritten without --force.

Usage:
  joinkit csr create --node NAME --out-dir DIR [--serving] [--dns NAME]... [--ip ADDR]...
                     [--key-type TYPE] [--ttl DURATION] [--requester USER [--groups G,...]]
                     [--force] [-o yaml|json]

${FLAGS.help}
--expiration-seconds N, the old name of --ttl here, still takes a number of
seconds.

Output (-o json): the CertificateSigningRequest object, keys sorted, as
kubectl prints it.

${EXIT_CODES}

Examples:
  joinkit csr create --node worker-1 --out-dir pki > csr.yaml
  joinkit csr create --node worker-1 --serving --ip 10.0.0.11 --dns worker-1 --out-dir pki
  joinkit csr create --node worker-1 --out-dir pki --requester system:bootstrap:abcdef \
    --groups system:bootstrappers:kubeadm:default-node-token | joinkit csr approve -
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const nodeText = requireString(ctx.flags, "node");
    const outDir = requireOutDir(ctx.flags);
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
    const expirationSeconds = expirationFlag(ctx.flags);
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const force = flagBool(ctx.flags, "force");
    const requesterName = flagString(ctx.flags, "requester");
    const groups = flagList(ctx.flags, "groups", true).map((g) => g.trim());
    const uid = flagString(ctx.flags, "uid");
    if (requesterName === undefined && (groups.length || uid !== undefined)) {
      throw new UsageError("--groups and --uid need --requester");
    }
    const requester = requesterName === undefined
      ? undefined
      : recordRequester(requesterName, groups, uid);
    // Last: a probe run (cli.ts) stops at a missing --node's placeholder.
    const node = requireParsed(ctx.flags, "node", () => {
      if (
        nodeText.trim() === "" || /\s/.test(nodeText) || isDns1123Subdomain(nodeText).length > 0
      ) {
        // Node names are DNS-1123 subdomains (ValidateNodeName); anything else never joins.
        throw new UsageError(
          `--node must be a node name (lower-case DNS-1123 subdomain), got ${
            JSON.stringify(nodeText)
          }`,
        );
      }
      return nodeText;
    });

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
      requester,
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

/** `--ttl` as spec.expirationSeconds, or the old `--expiration-seconds N`. */
function expirationFlag(flags: Parameters<typeof flagInt>[0]): number | undefined {
  if (flags["expiration-seconds"] !== undefined) {
    if (flags.ttl !== undefined) {
      throw new UsageError("--ttl and --expiration-seconds are the same flag: give one");
    }
    return flagInt(flags, "expiration-seconds", 0, 600, MAX_EXPIRATION_SECONDS);
  }
  const ms = flagDuration(flags, "ttl", 600_000);
  if (ms === undefined) return undefined;
  if (ms % 1000 !== 0 || ms / 1000 > MAX_EXPIRATION_SECONDS) {
    throw new UsageError(
      `invalid argument ${JSON.stringify(String(flags.ttl))} for "--ttl" flag: ` +
        `must be whole seconds, at most ${MAX_EXPIRATION_SECONDS}s`,
    );
  }
  return ms / 1000;
}
