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
import { parseDuration } from "../../lib/go/duration.ts";
import type { InitConfig } from "../../lib/kubeadm/init_config.ts";
import { effectiveEncryptionAlgorithm } from "../../lib/kubeadm/cluster_config.ts";
import type { ControlPlanePkiSpec } from "../../lib/phases/certlist.ts";
import type { CaName, ControlPlaneNode, SuppliedCa } from "../../lib/phases/certs.ts";
import { nodeNameProblem } from "../../lib/kubelet/node_kubeconfig.ts";
import { goQuote } from "../../lib/go/quote.ts";
import { advertiseAddressError, parseIpSloppy } from "../../lib/phases/certlist.ts";
import { type Command, type Context, EXIT_CODES } from "../_command.ts";
import {
  expectArgs,
  flagBool,
  flagList,
  flagSet,
  flagString,
  optionalOutput,
  renderData,
  requireOutDir,
} from "../_flags.ts";
import { ensureDir, readInput, writeFilesAtomic } from "../_io.ts";
import { nodeFs } from "../_read.ts";
import { bindPortFlag, checkFlagValues, csvFlag } from "./_flag_values.ts";

/** Most control-plane nodes one run renders. */
const MAX_NODES = 100;

/** The flags that give configuration values (refused next to --config, as kubeadm does). */
const CONFIG_FLAGS = [
  "apiserver-advertise-address",
  "apiserver-bind-port",
  "apiserver-cert-extra-sans",
  "ca-certificate-validity-period",
  "certificate-validity-period",
  "cluster-name",
  "control-plane-endpoint",
  "encryption-algorithm",
  "etcd-peer-cert-extra-sans",
  "etcd-server-cert-extra-sans",
  "service-cidr",
  "service-dns-domain",
];

const FLAGS = flagSet("certs generate", [
  ["config", "a kubeadm InitConfiguration + ClusterConfiguration (v1beta4 or v1beta3)"],
  ["out-dir", "where to write pki/ and the kubeconfigs (created 0700 with parents)"],
  "control-plane-endpoint",
  [
    "apiserver-advertise-address",
    "the node's API server address (localAPIEndpoint.advertiseAddress)",
  ],
  ["apiserver-bind-port", "the node's API server port (6443)"],
  "node-name",
  "service-cidr",
  "service-dns-domain",
  ["cluster-name", "the cluster name in the kubeconfigs (kubernetes)"],
  "apiserver-cert-extra-sans",
  "etcd-server-cert-extra-sans",
  "etcd-peer-cert-extra-sans",
  ["encryption-algorithm", "RSA-2048 (default), RSA-3072, RSA-4096 or ECDSA-P256"],
  "certificate-validity-period",
  "ca-certificate-validity-period",
  [
    "node",
    "a control-plane node NAME=ADDRESS, repeatable (or a NODES file):\none directory per node",
  ],
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
    const nodes = readNodes(ctx);
    if (nodes) {
      // The list names every node: a lone node's name or address would be silently unused.
      const lone = ["node-name", "apiserver-advertise-address"].filter((f) =>
        ctx.flags[f] !== undefined
      );
      if (lone.length) {
        throw new UsageError(
          `--${
            lone[0]
          } cannot be used with --node or a NODES file (the list gives every node's name and address)`,
        );
      }
    }
    const supplied = readSuppliedCas(ctx);
    const { controlPlanePkiSpec, dynamicDefaultsError } = await import(
      "../../lib/phases/certlist.ts"
    );
    const { buildControlPlanePki, controlPlanePkiPaths } = await import(
      "../../lib/phases/certs.ts"
    );
    const configFile = flagString(ctx.flags, "config");
    let values: Partial<ControlPlanePkiSpec>;
    if (configFile !== undefined) {
      const mixed = CONFIG_FLAGS.filter((n) => ctx.flags[n] !== undefined);
      if (mixed.length) {
        throw new UsageError(`can not mix '--config' with arguments [${mixed.join(" ")}]`);
      }
      const input = readInput(configFile);
      const { parseManifests } = await import("../../lib/k8s/manifest.ts");
      const docs = parseManifests(input.text, input.name);
      const { readInitConfiguration } = await import("../../lib/kubeadm/init_config.ts");
      const nodeNameFlag = flagString(ctx.flags, "node-name");
      const read = readInitConfiguration(
        docs,
        input.name,
        nodeNameFlag !== undefined ? { nodeName: nodeNameFlag } : {},
      );
      for (const w of read.warnings) ctx.stderr(w);
      values = specFromInitConfig(read.config);
      if (!nodes && !values.advertiseAddress) {
        throw new InputError(
          `${input.name}: localAPIEndpoint.advertiseAddress: Required value: joinkit cannot detect the node's address as kubeadm does; set it in the file`,
        );
      }
    } else {
      values = specFromFlags(ctx);
      if (!nodes && !values.advertiseAddress) {
        throw new InputError(
          "--apiserver-advertise-address: Required value: joinkit cannot detect the node's address as kubeadm does; give it",
        );
      }
    }
    const nodeName = flagString(ctx.flags, "node-name");
    if (nodeName !== undefined && configFile === undefined) values.nodeName = nodeName;
    if (nodes && nodes.length) {
      // The node list names the nodes; the file's own node (if any) is not one of them unless listed.
      values.nodeName ||= nodes[0]!.name;
      values.advertiseAddress ||= nodes[0]!.advertiseAddress;
    }
    const spec = controlPlanePkiSpec(values);
    if (spec.externalEtcd && supplied["etcd-ca"]) {
      // Nothing would use it: kubeadm makes no etcd certificates for an external etcd.
      throw new UsageError(
        "--etcd-ca cannot be used with etcd.external (no etcd certificates are made; the external etcd's CA is etcd.external.caFile)",
      );
    }
    if (configFile === undefined) {
      // A malformed value on the command line is a usage error naming its flag (kubeadm's
      // text after it): dynamic defaulting's refusals first, as kubeadm runs them, then
      // validation's. The addresses of --node were judged as they were read.
      const why = dynamicDefaultsError(nodes ? { ...spec, advertiseAddress: "" } : spec);
      if (why) {
        const flag = why.startsWith("couldn't use")
          ? "apiserver-advertise-address"
          : "control-plane-endpoint";
        throw new UsageError(`--${flag}: ${why}`);
      }
      checkFlagValues(
        spec,
        [...CONFIG_FLAGS, "node-name"].filter((n) => ctx.flags[n] !== undefined),
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

/** The --node flags and the NODES file: `NAME=ADDRESS` / `NAME ADDRESS`. */
function readNodes(ctx: Context): ControlPlaneNode[] | undefined {
  const out: ControlPlaneNode[] = [];
  for (const v of flagList(ctx.flags, "node")) {
    const m = /^([^=\s]+)=(\S+)$/.exec(v);
    if (!m) throw new UsageError(`--node ${JSON.stringify(v)}: expected NAME=ADDRESS`);
    const why = nodeNameProblem(m[1]!.toLowerCase());
    if (why) throw new UsageError(`--node ${JSON.stringify(m[1])} cannot be a Node name: ${why}`);
    const bad = parseIpSloppy(m[2]!)
      ? advertiseAddressError(m[2]!)
      : `couldn't use ${
        goQuote(m[2]!)
      } as "apiserver-advertise-address", must be ipv4 or ipv6 address`;
    if (bad) throw new UsageError(`--node ${JSON.stringify(v)}: ${bad}`);
    out.push({ name: m[1]!.toLowerCase(), advertiseAddress: m[2]! });
  }
  const file = ctx.args[0];
  if (file !== undefined) {
    const input = readInput(file);
    for (const [i, raw] of input.text.replace(/^\uFEFF/, "").split(/\r?\n/).entries()) {
      const line = raw.replace(/#.*$/, "").trim();
      if (line === "") continue;
      const m = /^([^=\s]+)(?:\s+|=)(\S+)$/.exec(line);
      if (!m) throw new InputError(`${input.name}:${i + 1}: expected NAME ADDRESS`);
      const why = nodeNameProblem(m[1]!.toLowerCase());
      if (why) throw new InputError(`${input.name}:${i + 1}: not a Node name: ${why}`);
      out.push({ name: m[1]!.toLowerCase(), advertiseAddress: m[2]! });
    }
    if (out.length === 0) throw new InputError(`${input.name}: no nodes`);
  }
  if (out.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
  return out.length ? out : undefined;
}

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

function durationFlag(ctx: Context, name: string): number | undefined {
  const v = flagString(ctx.flags, name);
  if (v === undefined) return undefined;
  try {
    return parseDuration(v);
  } catch {
    throw new UsageError(`--${name}: time: invalid duration ${JSON.stringify(v)}`);
  }
}

/** The spec's values from the flags (kubeadm's flag names). */
function specFromFlags(ctx: Context): Partial<ControlPlanePkiSpec> {
  const v: Partial<ControlPlanePkiSpec> = {};
  const str = (n: string) => flagString(ctx.flags, n);
  const set = <K extends keyof ControlPlanePkiSpec>(
    k: K,
    x: ControlPlanePkiSpec[K] | undefined,
  ) => {
    if (x !== undefined) v[k] = x;
  };
  set("advertiseAddress", str("apiserver-advertise-address"));
  set("bindPort", bindPortFlag(ctx));
  set("controlPlaneEndpoint", str("control-plane-endpoint"));
  set("serviceSubnet", str("service-cidr"));
  set("dnsDomain", str("service-dns-domain"));
  set("clusterName", str("cluster-name"));
  set("encryptionAlgorithm", str("encryption-algorithm"));
  v.apiServerCertSANs = csvFlag(ctx, "apiserver-cert-extra-sans");
  v.etcdServerCertSANs = csvFlag(ctx, "etcd-server-cert-extra-sans");
  v.etcdPeerCertSANs = csvFlag(ctx, "etcd-peer-cert-extra-sans");
  set("certificateValidityMs", durationFlag(ctx, "certificate-validity-period"));
  set("caCertificateValidityMs", durationFlag(ctx, "ca-certificate-validity-period"));
  return v;
}

/** The PKI fields of a configuration `readInitConfiguration` parsed, defaulted and validated. */
function specFromInitConfig(config: InitConfig): Partial<ControlPlanePkiSpec> {
  const c = config.cluster;
  return {
    nodeName: config.nodeRegistration.name ?? "",
    advertiseAddress: config.localAPIEndpoint.advertiseAddress ?? "",
    bindPort: config.localAPIEndpoint.bindPort,
    controlPlaneEndpoint: c.controlPlaneEndpoint,
    serviceSubnet: c.networking.serviceSubnet,
    dnsDomain: c.networking.dnsDomain,
    clusterName: c.clusterName,
    apiServerCertSANs: c.apiServer.certSANs,
    etcdServerCertSANs: c.etcd.local?.serverCertSANs ?? [],
    etcdPeerCertSANs: c.etcd.local?.peerCertSANs ?? [],
    externalEtcd: c.etcd.external !== undefined,
    // The deprecated PublicKeysECDSA gate overrides encryptionAlgorithm (EncryptionAlgorithmType()).
    encryptionAlgorithm: effectiveEncryptionAlgorithm(c),
    certificateValidityMs: c.certificateValidityPeriodMs,
    caCertificateValidityMs: c.caCertificateValidityPeriodMs,
    kubeletLocalMode: c.featureGates.ControlPlaneKubeletLocalMode === true,
  };
}
