/**
 * `joinkit kubeconfig node`: a pre-signed kubelet.conf, and the kubelet's
 * client certificate store, for one or many nodes.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { InputError, UsageError } from "../lib/base/errors.ts";
import { DEFAULT_CLUSTER_NAME } from "../lib/discovery/bootstrap_kubeconfig.ts";
import { renderKubeconfig } from "../lib/k8s/kubeconfig_yaml.ts";
import {
  issueNodeCredentials,
  KUBELET_CERT_DIR,
  KUBELET_CLIENT_CURRENT,
  nodeKubeconfig,
  nodeUser,
  pairFileName,
} from "../lib/kubelet/node_kubeconfig.ts";
import { mapOrdered } from "../lib/kubelet/sign_batch.ts";
import { DEFAULT_SIGNING_DURATION_MS, loadSigningCa } from "../lib/kubelet/signer.ts";
import { readClusterCa } from "../lib/pki/certsource.ts";
import type { KeyType } from "../lib/pki/keys.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagChoice,
  flagDuration,
  flagSet,
  flagString,
  outputFormat,
  requireOutDir,
  requireServer,
  requireString,
} from "./_flags.ts";
import { ensureDir, type OutputFile, symlinkAtomic, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";
import { flagNodeNames, readNodeList } from "./_nodes.ts";

const KEY_TYPES = ["ecdsa-p256", "ecdsa-p384", "rsa-2048", "ed25519"] as const;
const FORMS = ["embedded", "file"] as const;

/** Most nodes one run signs for. */
const MAX_NODES = 10_000;

/** Key generation and signing in flight at once. */
const BATCH = 16;

const FLAGS = flagSet("kubeconfig node", [
  ["node", "node name, repeatable (or give a NODES file)"],
  ["ca", "the cluster CA certificate (PEM), embedded and signing (required)"],
  ["ca-key", "its private key (PEM: PKCS#1, SEC 1 or PKCS#8; not encrypted) (required)"],
  ["server", "API server, https://HOST:PORT (or HOST:PORT) (required)"],
  ["cluster-name", `cluster name (default ${DEFAULT_CLUSTER_NAME})`],
  ["out-dir", "write DIR/<node>/ for each node (required; created 0700)"],
  [
    "credentials",
    "embedded (default): client-certificate-data/client-key-data;\nfile: both name <cert-dir>/kubelet-client-current.pem",
  ],
  ["cert-dir", `the kubelet's --cert-dir on the node (default ${KUBELET_CERT_DIR})`],
  ["key-type", `${KEY_TYPES.join("|")} (default ecdsa-p256, the kubelet's)`],
  ["ttl", "the signer's --cluster-signing-duration, Go duration (default 8760h)"],
  ["force", "overwrite existing files"],
  ["output", "yaml (default) or json: the kubeconfig's serialisation"],
]);

export const command: Command = {
  name: "kubeconfig node",
  options: FLAGS.options,
  help: `Write a pre-signed kubelet.conf for each node, for joining without the TLS
bootstrap or recovering a node whose client certificate expired.

For each node NAME: a fresh private key; a CSR with CN=system:node:NAME,
O=system:nodes and the kubelet bootstrap CSR's usages (digital signature, key
encipherment, client auth), judged and signed exactly as 'csr sign' does for
kubernetes.io/kube-apiserver-client-kubelet (the signer's validator; lifetime
--ttl, NotBefore now-5m, NotAfter now+ttl-5m, cut at the CA's expiry). Into
--out-dir DIR/NAME/ (0700) it writes, 0600 each (the files of all nodes in one
atomic step, then the links; a failure takes back what this run wrote):
  kubelet.conf                 the kubeconfig kubeadm writes for a kubelet:
                               cluster --cluster-name, user system:node:NAME,
                               context system:node:NAME@<cluster>, current;
                               embedded credentials (byte-identical to kubectl
                               config set-cluster --embed-certs, set-credentials
                               --client-certificate --client-key --embed-certs,
                               set-context, use-context), or with
                               --credentials file both client-certificate and
                               client-key naming <cert-dir>/kubelet-client-current.pem,
                               as kubeadm's kubelet.conf once rotation is on
  kubelet-client-<ts>.pem      certificate then key, as the kubelet's
                               certificate store writes a pair; <ts> is --now
                               in UTC as 2006-01-02-15-04-05
  kubelet-client-current.pem   symlink to <cert-dir>/kubelet-client-<ts>.pem
                               (absolute, as the store links it; it resolves
                               once the files are on the node)
On the node: kubelet.conf goes to /etc/kubernetes/, the two PEM files to the
cert dir ('cp -P' keeps the link). A kubelet that finds a valid client
certificate skips the TLS bootstrap.

Nodes come from --node (repeatable) and the NODES file: one name per line,
blank lines and '#' comments skipped. A name that cannot be a Node's name
(DNS-1123 subdomain) is refused: exit 2 for --node, 1 in NODES. A CA key
that does not match --ca is bad input (1), a CSR the signer refuses or an
expired CA is 3; nothing is written then. Existing files are not replaced
without --force. Private keys never appear on stdout or stderr.

Usage:
  joinkit kubeconfig node --node NAME... [NODES] --ca CA.crt --ca-key CA.key
                          --server https://HOST:PORT --out-dir DIR [flags]

${FLAGS.help}
Prints one line per node to stderr; nothing on stdout.

${EXIT_CODES}

Examples:
  joinkit kubeconfig node --node worker-1 --ca pki/ca.crt --ca-key pki/ca.key \\
    --server https://10.0.0.1:6443 --out-dir nodes
  joinkit kubeconfig node nodes.txt --credentials file --ca pki/ca.crt \\
    --ca-key pki/ca.key --server cp.example:6443 --out-dir nodes
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "NODES");
    const flagNodes = flagNodeNames(ctx.flags);
    const caPath = requireString(ctx.flags, "ca");
    const keyPath = requireString(ctx.flags, "ca-key");
    const server = requireServer(ctx.flags).url;
    const outDir = requireOutDir(ctx.flags);
    const clusterName = flagString(ctx.flags, "cluster-name") ?? DEFAULT_CLUSTER_NAME;
    if (clusterName === "") throw new UsageError("--cluster-name must not be empty");
    const form = flagChoice(ctx.flags, "credentials", FORMS, "embedded");
    const certDir = flagString(ctx.flags, "cert-dir") ?? KUBELET_CERT_DIR;
    if (!path.posix.isAbsolute(certDir) || certDir.includes("\n")) {
      throw new UsageError(`--cert-dir must be an absolute path, got ${JSON.stringify(certDir)}`);
    }
    const keyType = flagChoice(ctx.flags, "key-type", KEY_TYPES, "ecdsa-p256") as KeyType;
    const ttlMs = flagDuration(ctx.flags, "ttl", 1000) ?? DEFAULT_SIGNING_DURATION_MS;
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const force = flagBool(ctx.flags, "force");

    const nodes = [...flagNodes];
    if (ctx.args[0] !== undefined) nodes.push(...readNodeList(ctx.args[0]));
    if (nodes.length === 0) {
      throw new UsageError("missing required flag --node (or a NODES file)");
    }
    if (nodes.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
    const seen = new Set<string>();
    for (const n of nodes) {
      if (seen.has(n)) throw new UsageError(`node ${JSON.stringify(n)} given twice`);
      seen.add(n);
    }

    const caIn = readInput(caPath);
    const keyIn = readInput(keyPath);
    await readClusterCa(caIn.bytes, caIn.name); // embedded as is: Go must load it, a CA first
    const ca = await loadSigningCa(caIn.text, caIn.name, keyIn.text, keyIn.name);

    // Nothing may be in the way before any key is made: checked again when writing.
    const pairName = pairFileName(ctx.now);
    const targets = nodes.map((n) => {
      const dir = path.join(outDir, n);
      return {
        node: n,
        dir,
        conf: path.join(dir, "kubelet.conf"),
        pair: path.join(dir, pairName),
        current: path.join(dir, KUBELET_CLIENT_CURRENT),
      };
    });
    if (!force) {
      for (const t of targets) {
        for (const p of [t.conf, t.pair, t.current]) {
          if (exists(p)) throw new InputError(`${p}: already exists (use --force to overwrite)`);
        }
      }
    }

    const issued = await mapOrdered(
      nodes,
      BATCH,
      (n) => issueNodeCredentials(n, { ca, ttlMs, now: ctx.now, keyType }),
    );
    const files: OutputFile[] = [];
    for (const [i, r] of issued.entries()) {
      if (r.status === "rejected") throw r.reason;
      const t = targets[i]!;
      const { certPem, keyPem } = r.value;
      const config = nodeKubeconfig({
        server,
        caData: caIn.bytes,
        node: t.node,
        clusterName,
        ...(form === "embedded"
          ? { embedded: { certPem, keyPem } }
          : { pairFile: path.posix.join(certDir, KUBELET_CLIENT_CURRENT) }),
      });
      files.push(
        { path: t.conf, data: renderKubeconfig(config, format), mode: 0o600, root: outDir },
        { path: t.pair, data: certPem + keyPem, mode: 0o600, root: outDir },
      );
    }

    ensureDir(outDir, 0o700);
    // No link below --out-dir is followed: a node's directory linked elsewhere is refused.
    for (const t of targets) ensureDir(t.dir, 0o700, outDir);
    writeFilesAtomic(files, force);
    try {
      for (const t of targets) {
        symlinkAtomic(path.posix.join(certDir, pairName), t.current, force, outDir);
      }
    } catch (e) {
      if (!force) {
        // All or nothing: take back what this run wrote.
        for (const t of targets) {
          for (const p of [t.conf, t.pair]) {
            try {
              fs.unlinkSync(p);
            } catch { /* gone already */ }
          }
        }
        for (const t of targets) {
          try {
            if (fs.readlinkSync(t.current) === path.posix.join(certDir, pairName)) {
              fs.unlinkSync(t.current);
            }
          } catch { /* not ours */ }
        }
      }
      throw e;
    }
    for (const t of targets) {
      ctx.stderr(
        `wrote ${t.dir}/: kubelet.conf (user ${
          nodeUser(t.node)
        }, ${form} credentials), ${pairName}, ${KUBELET_CLIENT_CURRENT} (mode 0600)`,
      );
    }
  },
};

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
