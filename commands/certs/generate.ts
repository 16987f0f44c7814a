/**
 * `joinkit certs generate`: a control plane's whole PKI (`pki/`, 22 files)
 * and its five kubeconfigs, as `kubeadm init phase certs all` and
 * `kubeadm init phase kubeconfig all` write them, for one node or for
 * several control-plane nodes sharing their CAs.
 *
 * @module
 */

import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import { controlPlanePkiSpec } from "../../lib/phases/certlist.ts";
import type { CaName, ControlPlaneNode, SuppliedCa } from "../../lib/phases/certs.ts";
import { type Command, type Context, EXIT_CODES } from "../_command.ts";
import {
  expectArgs,
  flagBool,
  flagSet,
  flagString,
  optionalOutput,
  renderData,
  requireOutDir,
} from "../_flags.ts";
import { ensureDir, readInput, writeFilesAtomic } from "../_io.ts";
import { nodeFs } from "../_read.ts";
import { MAX_NODES, nodeFlags, pkiConfigFlags, readNodesFile, readPkiSpec } from "./_pki_config.ts";

const FLAGS = flagSet("certs generate", [
  ["out-dir", "where to write pki/ and the kubeconfigs (created 0700 with parents)"],
  ...pkiConfigFlags(true),
  ["ca", "use this cluster CA certificate (ca.crt)"],
  ["ca-key", "its private key (ca.key)"],
  "front-proxy-ca",
  "front-proxy-ca-key",
  "etcd-ca",
  "etcd-ca-key",
  [
    "force",
    "replace leaf files kubeadm would refuse (a certificate that does not\nchain, a key without its certificate, a kubeconfig without the CA, a\nserving certificate without the configuration's SANs, which kubeadm\njoin --control-plane refuses); CA files and sa.key are never replaced",
  ],
  ["output", "json or yaml: print the tree and what happened to each file"],
]);

export const command: Command = {
  name: "certs generate",
  options: FLAGS.options,
  help: `Write a control plane's PKI and kubeconfigs, as kubeadm init writes them.

DIR/pki/ gets what 'kubeadm init phase certs all' writes to /etc/kubernetes/pki
(ca, apiserver, apiserver-kubelet-client, front-proxy-ca, front-proxy-client,
etcd/ca, etcd/server, etcd/peer, etcd/healthcheck-client, apiserver-etcd-client:
.crt 0644 and .key 0600 each; sa.key and sa.pub 0600) and DIR/ the five files
of 'kubeadm init phase kubeconfig all' (admin.conf, super-admin.conf,
kubelet.conf, controller-manager.conf, scheduler.conf; 0600, credentials
embedded). Subjects, issuers, SANs (kubeadm's computation and order), key
usages, key identifiers, key algorithm, lifetimes (NotBefore 5 minutes back,
NotAfter from --now; a kubeconfig's client certificate starts at its CA's
NotBefore, as in kubeadm), server URLs and names are kubeadm v1.32's. kubeadm
itself reads the result as its own ('Using existing ...' for every file).

What is already in DIR is used as kubeadm uses it: a CA pair (or the one given
with --ca/--ca-key, --front-proxy-ca/..., --etcd-ca/...; copied into DIR/pki)
signs what is missing; a leaf certificate that chains to the CA beside it, and
whose key is there and matches, is kept; a kubeconfig that embeds the CA is
kept (another server URL only warns). A CA key that is not its certificate's,
a leaf that does not chain, a key without its certificate: exit 1, nothing
written (--force replaces the leaf files; never a CA file or sa.key).

Configuration: --config (kubeadm's file: nodeRegistration.name,
localAPIEndpoint, controlPlaneEndpoint, networking.serviceSubnet/dnsDomain,
clusterName, apiServer.certSANs, etcd.local.serverCertSANs/peerCertSANs,
etcd.external, encryptionAlgorithm, certificateValidityPeriod,
caCertificateValidityPeriod; certificatesDir is ignored: files go to DIR), or
the flags with kubeadm's names. As kubeadm, --config cannot be mixed with the
value flags (--node-name may override the name). kubeadm's validation applies,
with its texts. The advertise address must be the node's own: kubeadm replaces
0.0.0.0, :: and loopback addresses with one of the host it runs on, which
joinkit cannot know (refused), and refuses multicast, broadcast and link-local
ones.

Several control-plane nodes: --node NAME=ADDRESS (repeatable) and/or a NODES
file (one 'NAME ADDRESS' or 'NAME=ADDRESS' per line; '#' comments) give one
directory per node, DIR/NAME/pki and DIR/NAME/*.conf, each a complete tree
under the same CAs and service-account key. Each node has its own apiserver,
etcd/server and etcd/peer certificates (its name and address in the SANs),
kubelet.conf, and controller-manager.conf and scheduler.conf pointing at its
own API server; the client certificates that name no node are made once and
shared. Keys are made in parallel.

stderr shows kubeadm's progress lines. Nothing is printed on stdout unless -o
is given.

Usage:
  joinkit certs generate --config FILE --out-dir DIR [--node NAME=ADDR...] [NODES]
  joinkit certs generate --node-name NAME --apiserver-advertise-address IP
                         [--control-plane-endpoint HOST[:PORT]] ... --out-dir DIR

${FLAGS.help}
The run's start time is the global --now (default: the system time).

Output (-o json): {"files": [{"path", "status"}]} in kubeadm's order, status
generated, existing (kept) or copied (a shared CA, sa or client file written
to one more node directory). -o yaml is the same object.

${EXIT_CODES}
  (1: a configuration file or NODES file kubeadm would refuse, duplicate
  nodes, a CA key that is not its certificate's, an existing file kubeadm
  would refuse; 2: a bad flag, a value kubeadm refuses given as a flag or
  --node (the flag, then kubeadm's text), --config mixed with value flags)

Examples:
  joinkit certs generate --config kubeadm.yaml --out-dir /srv/cp-1
  joinkit certs generate --config kubeadm.yaml --out-dir ha \\
    --node cp-1=10.0.0.11 --node cp-2=10.0.0.12 --node cp-3=10.0.0.13
  joinkit certs generate --node-name cp-1 --apiserver-advertise-address 10.0.0.10 \\
    --control-plane-endpoint cp.example.com:6443 --encryption-algorithm ECDSA-P256 --out-dir out
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "NODES");
    const outDir = requireOutDir(ctx.flags);
    const format = optionalOutput(ctx.flags, ["json", "yaml"] as const);
    const force = flagBool(ctx.flags, "force");
    // Flag values first (--node included), then the files: the configuration, the NODES file.
    const listed = nodeFlags(ctx);
    const several = listed.length > 0 || ctx.args.length > 0;
    const values = await readPkiSpec(ctx, several);
    let nodes: ControlPlaneNode[] | undefined;
    if (several) {
      nodes = [...listed, ...(ctx.args[0] !== undefined ? readNodesFile(ctx.args[0]) : [])];
      if (nodes.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
    }
    const supplied = readSuppliedCas(ctx);
    const { buildControlPlanePki, controlPlanePkiPaths } = await import(
      "../../lib/phases/certs.ts"
    );
    // The node list names the nodes; the file's own node (if any) is not one of them unless listed.
    const spec = nodes
      ? controlPlanePkiSpec({
        ...values,
        nodeName: values.nodeName || nodes[0]!.name,
        advertiseAddress: values.advertiseAddress || nodes[0]!.advertiseAddress,
      })
      : values;
    if (spec.externalEtcd && supplied["etcd-ca"]) {
      // Nothing would use it: kubeadm makes no etcd certificates for an external etcd.
      throw new UsageError(
        "--etcd-ca cannot be used with etcd.external (no etcd certificates are made; the external etcd's CA is etcd.external.caFile)",
      );
    }
    const root = outDir.endsWith(path.sep) ? outDir : outDir + path.sep;
    const existing = new Map<string, Uint8Array>();
    const fs = nodeFs();
    for (const file of controlPlanePkiPaths(spec, nodes, root)) {
      if (!fs.existsSync(file)) continue;
      // A FIFO or device where a file belongs would block the read or never end: refuse it.
      const st = fs.statSync(file);
      if (!st.isFile() && !st.isDirectory()) {
        throw new InputError(`${file}: not a regular file`);
      }
      existing.set(file, readInput(file).bytes);
      // A kept secret that others can read (copied without -p, a loose umask): kubeadm writes
      // these 0600 and never looks again; say so.
      if (st.isFile() && /\.(key|conf)$/.test(file) && (st.mode & 0o077) !== 0) {
        ctx.stderr(
          `WARNING: ${file} is readable or writable by group or others (mode ${
            (st.mode & 0o777).toString(8).padStart(4, "0")
          }); kubeadm writes it 0600`,
        );
      }
    }
    const pki = await buildControlPlanePki({
      spec,
      ...(nodes ? { nodes } : {}),
      now: ctx.now,
      existing,
      supplied,
      force,
      root,
      // An existing kubeconfig may name its CA by file; kubeadm reads it as given ("-" is a file).
      readFile: (f) => {
        const name = f === "-" ? "./-" : f;
        const st = fs.statSync(name, { throwIfNoEntry: false });
        // A FIFO would block the read (kubeadm's would); readInput says why a file cannot be read.
        if (st && !st.isFile() && !st.isDirectory()) {
          throw new InputError(`${f}: not a regular file`);
        }
        return readInput(name).bytes;
      },
    });
    for (const w of pki.warnings) ctx.stderr(w);
    // Directories: DIR 0700 (it holds keys); pki/ and pki/etcd/ 0755 as kubeadm makes them.
    ensureDir(outDir, 0o700);
    const dirs = new Set(pki.files.map((f) => path.dirname(f.path)));
    for (const d of [...dirs].sort()) {
      const rel = path.relative(outDir, d);
      // No link below --out-dir is followed (a linked pki/etcd would put keys elsewhere).
      ensureDir(d, /(^|\/)pki(\/etcd)?$/.test(rel) ? 0o755 : 0o700, outDir);
    }
    writeFilesAtomic(
      pki.files.map((f) => ({
        path: f.path,
        data: f.data,
        mode: f.mode,
        root: outDir,
      })),
      force,
    );
    for (const l of pki.lines) ctx.stderr(l);
    ctx.stderr(
      `wrote ${pki.files.length} file(s) under ${outDir}; kept ${
        pki.tree.filter((t) => t.status === "existing").length
      } existing`,
    );
    if (format !== undefined) {
      const files = pki.tree.map((t) => ({
        path: path.relative(outDir, t.path),
        status: t.status,
      }));
      ctx.stdout(await renderData({ files }, format));
    }
  },
};

/** --ca/--ca-key and the front-proxy and etcd pairs. */
function readSuppliedCas(ctx: Context): Partial<Record<CaName, SuppliedCa>> {
  const out: Partial<Record<CaName, SuppliedCa>> = {};
  const pairs: [CaName, string, string][] = [
    ["ca", "ca", "ca-key"],
    ["front-proxy-ca", "front-proxy-ca", "front-proxy-ca-key"],
    ["etcd-ca", "etcd-ca", "etcd-ca-key"],
  ];
  for (const [name, certFlag, keyFlag] of pairs) {
    const cert = flagString(ctx.flags, certFlag);
    const key = flagString(ctx.flags, keyFlag);
    if (cert === undefined && key !== undefined) {
      throw new UsageError(`--${keyFlag} needs --${certFlag}`);
    }
    if (cert === undefined) continue;
    const c = readInput(cert);
    const s: SuppliedCa = { certPem: c.text, certSource: c.name, keySource: key ?? `--${keyFlag}` };
    if (key !== undefined) s.keyPem = readInput(key).text;
    out[name] = s;
  }
  return out;
}
