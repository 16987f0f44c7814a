/**
 * The kubeadm configuration the external-CA and renewal verbs read
 * (`--config`, `--node-name`): the PKI fields of a validated
 * InitConfiguration + ClusterConfiguration, and the tree's files.
 *
 * @module
 */

import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import { effectiveEncryptionAlgorithm } from "../../lib/kubeadm/cluster_config.ts";
import {
  advertiseAddressError,
  CERT_LIST,
  type ControlPlanePkiSpec,
  controlPlanePkiSpec,
  dynamicDefaultsError,
  SA_KEY,
  SA_PUB,
  validateControlPlanePkiSpec,
  validityWarnings,
} from "../../lib/phases/certlist.ts";
import { KUBECONFIG_LIST } from "../../lib/phases/kubeconfigs.ts";
import type { ControlPlaneNode } from "../../lib/phases/certs.ts";
import { nodeNameProblem } from "../../lib/kubelet/node_kubeconfig.ts";
import type { Context } from "../_command.ts";
import { flagList, flagString } from "../_flags.ts";
import { readInput } from "../_io.ts";
import { nodeFs } from "../_read.ts";
import { bindPortFlag, checkFlagValues, csvFlag, durationFlag } from "./_flag_values.ts";

/**
 * The spec `--config` gives (kubeadm's loader, defaulting and validation;
 * `--node-name` overrides the file's), or undefined without `--config`.
 * `needAddress`: refuse a file without `localAPIEndpoint.advertiseAddress`
 * (kubeadm would detect it; joinkit cannot).
 */
export async function readPkiConfig(
  ctx: Context,
  needAddress: boolean,
): Promise<ControlPlanePkiSpec | undefined> {
  const file = flagString(ctx.flags, "config");
  if (file === undefined) return undefined;
  // A malformed --node-name is a usage error, reported before the file is read.
  const nameFlag = flagString(ctx.flags, "node-name");
  if (nameFlag !== undefined) {
    checkFlagValues(controlPlanePkiSpec({ nodeName: nameFlag }), ["node-name"]);
  }
  const input = readInput(file);
  const { readInitConfiguration, readKubeadmDocuments } = await import(
    "../../lib/kubeadm/init_config.ts"
  );
  const nodeName = flagString(ctx.flags, "node-name");
  const read = readInitConfiguration(
    readKubeadmDocuments(input.text, input.name),
    input.name,
    nodeName !== undefined ? { nodeName } : {},
  );
  for (const w of read.warnings) ctx.stderr(w);
  const config = read.config;
  const c = config.cluster;
  if (needAddress && !config.localAPIEndpoint.advertiseAddress) {
    throw new InputError(
      `${input.name}: localAPIEndpoint.advertiseAddress: Required value: joinkit cannot detect the node's address as kubeadm does; set it in the file`,
    );
  }
  if (needAddress) {
    // As certs generate: an address kubeadm would replace with the host's own, or refuse.
    const why = advertiseAddressError(config.localAPIEndpoint.advertiseAddress ?? "");
    if (why) throw new InputError(`${input.name}: ${why}`);
  }
  return controlPlanePkiSpec({
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
  });
}

/** The files of `paths` (relative to `dir`) that exist, read. */
export function readTree(dir: string, paths: readonly string[]): Map<string, Uint8Array> {
  const fs = nodeFs();
  const out = new Map<string, Uint8Array>();
  for (const rel of paths) {
    const full = path.join(dir, rel);
    if (fs.existsSync(full) && fs.statSync(full).isFile()) out.set(rel, readInput(full).bytes);
  }
  return out;
}

/** Every file a kubeadm tree under DIR may hold (pki/, pki/etcd/, the kubeconfigs and their CSRs). */
export function treePaths(): string[] {
  const out = CERT_LIST.flatMap((c) =>
    [".crt", ".key", ".csr"].map((ext) => `pki/${c.baseName}${ext}`)
  );
  out.push(`pki/${SA_KEY}`, `pki/${SA_PUB}`);
  for (const k of KUBECONFIG_LIST) out.push(k.file, `${k.file}.csr`);
  return out;
}

/**
 * The configuration flags of the verbs that read their configuration with
 * {@link readPkiSpec} (`certs generate`, `certs generate-csr`), as `flagSet`
 * picks: `--config`, kubeadm's value flags, `--node`. `validity`: the two
 * validity periods (only a verb that signs has a use for them).
 */
export function pkiConfigFlags(validity: boolean): (string | readonly [string, string])[] {
  return [
    ["config", "a kubeadm InitConfiguration + ClusterConfiguration (v1beta4 or v1beta3)"],
    "node-name",
    "control-plane-endpoint",
    [
      "apiserver-advertise-address",
      "the node's API server address (localAPIEndpoint.advertiseAddress)",
    ],
    ["apiserver-bind-port", "the node's API server port (6443)"],
    "service-cidr",
    "service-dns-domain",
    ["cluster-name", "the cluster name in the kubeconfigs (kubernetes)"],
    "apiserver-cert-extra-sans",
    "etcd-server-cert-extra-sans",
    "etcd-peer-cert-extra-sans",
    ["encryption-algorithm", "RSA-2048 (default), RSA-3072, RSA-4096 or ECDSA-P256"],
    ...(validity ? ["certificate-validity-period", "ca-certificate-validity-period"] : []),
    [
      "node",
      "a control-plane node NAME=ADDRESS, repeatable (or a NODES file):\none directory per node",
    ],
  ];
}

/** The flags that give configuration values (kubeadm's names; refused next to --config, as kubeadm does). */
export const CONFIG_VALUE_FLAGS = [
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
] as const;

/**
 * The one adapter of the certs verbs from kubeadm's configuration to a
 * {@link ControlPlanePkiSpec}: `--config` (see {@link readPkiConfig}) or,
 * without it, kubeadm's value flags read as its cobra flags read them
 * (`_flag_values.ts`). Mixing `--config` with value flags is kubeadm's usage
 * error. `severalNodes`: a node list (`--node`, NODES) names the nodes, so the
 * spec's own name and address are neither needed nor allowed as flags.
 *
 * The order of refusals: a lone node's flag beside a list, `--config` mixed
 * with values, no configuration at all (2); then every malformed flag value
 * (2, naming the flag: dynamic defaulting's refusals as kubeadm runs them,
 * then validation's); then what joinkit cannot detect as kubeadm does (the
 * node's address, then its name: 1).
 */
export async function readPkiSpec(
  ctx: Context,
  severalNodes: boolean,
): Promise<ControlPlanePkiSpec> {
  if (severalNodes) {
    const lone = ["node-name", "apiserver-advertise-address"].filter((n) =>
      ctx.flags[n] !== undefined
    );
    if (lone.length) {
      throw new UsageError(
        `--${
          lone[0]
        } cannot be used with --node or a NODES file (the list gives every node's name and address)`,
      );
    }
  }
  const given = [...CONFIG_VALUE_FLAGS, "node-name"].filter((n) => ctx.flags[n] !== undefined);
  if (flagString(ctx.flags, "config") !== undefined) {
    const mixed = given.filter((n) => n !== "node-name");
    if (mixed.length) {
      throw new UsageError(`can not mix '--config' with arguments [${mixed.join(" ")}]`);
    }
    return (await readPkiConfig(ctx, !severalNodes))!;
  }
  if (given.length === 0 && !severalNodes) {
    throw new UsageError(
      "give --config FILE, or --node-name and --apiserver-advertise-address (and the other values as flags)",
    );
  }
  const spec = controlPlanePkiSpec(specFromFlags(ctx));
  const why = dynamicDefaultsError(spec);
  if (why) {
    const flag = why.startsWith("couldn't use")
      ? "apiserver-advertise-address"
      : "control-plane-endpoint";
    throw new UsageError(`--${flag}: ${why}`);
  }
  // An empty address is a missing one (below), not a malformed one.
  checkFlagValues(
    spec,
    given.filter((n) => n !== "apiserver-advertise-address" || spec.advertiseAddress !== ""),
  );
  if (!severalNodes && spec.advertiseAddress === "") {
    throw new InputError(
      "--apiserver-advertise-address: Required value: joinkit cannot detect the node's address as kubeadm does; give it",
    );
  }
  if (!severalNodes && spec.nodeName === "") {
    // kubeadm would take the host's name; its text for a name it could not detect.
    const e = validateControlPlanePkiSpec(spec).find((x) => x.startsWith("nodeRegistration"));
    if (e !== undefined) throw new InputError(e);
  }
  // kubeadm validates flag values as it validates a file, and warns the same (a file's reader did).
  for (const w of validityWarnings(spec)) ctx.stderr(w);
  return spec;
}

/** The spec's values from kubeadm's flags, each parsed as kubeadm's cobra flag parses it. */
function specFromFlags(ctx: Context): Partial<ControlPlanePkiSpec> {
  const v: Partial<ControlPlanePkiSpec> = {
    apiServerCertSANs: csvFlag(ctx, "apiserver-cert-extra-sans"),
    etcdServerCertSANs: csvFlag(ctx, "etcd-server-cert-extra-sans"),
    etcdPeerCertSANs: csvFlag(ctx, "etcd-peer-cert-extra-sans"),
  };
  const set = <K extends keyof ControlPlanePkiSpec>(
    k: K,
    x: ControlPlanePkiSpec[K] | undefined,
  ) => {
    if (x !== undefined) v[k] = x;
  };
  const str = (n: string) => flagString(ctx.flags, n);
  set("nodeName", str("node-name"));
  set("advertiseAddress", str("apiserver-advertise-address"));
  set("bindPort", bindPortFlag(ctx));
  set("controlPlaneEndpoint", str("control-plane-endpoint"));
  set("serviceSubnet", str("service-cidr"));
  set("dnsDomain", str("service-dns-domain"));
  set("clusterName", str("cluster-name"));
  set("encryptionAlgorithm", str("encryption-algorithm"));
  set("certificateValidityMs", durationFlag(ctx, "certificate-validity-period"));
  set("caCertificateValidityMs", durationFlag(ctx, "ca-certificate-validity-period"));
  return v;
}

/** Most control-plane nodes one run renders (as certs generate). */
export const MAX_NODES = 100;

/**
 * The `--node NAME=ADDRESS` flags (certs generate's form), parsed and
 * checked before any file is read: a malformed one is a usage error.
 */
export function nodeFlags(ctx: Context): ControlPlaneNode[] {
  const out: ControlPlaneNode[] = [];
  for (const v of flagList(ctx.flags, "node")) {
    const m = /^([^=\s]+)=(\S+)$/.exec(v);
    if (!m) throw new UsageError(`--node ${JSON.stringify(v)}: expected NAME=ADDRESS`);
    const name = m[1]!.toLowerCase();
    const why = nodeNameProblem(name);
    if (why) throw new UsageError(`--node ${JSON.stringify(m[1])} cannot be a Node name: ${why}`);
    const bad = dynamicDefaultsError(controlPlanePkiSpec({ advertiseAddress: m[2]! })) ??
      advertiseAddressError(m[2]!);
    if (bad) throw new UsageError(`--node ${JSON.stringify(v)}: ${bad}`);
    out.push({ name, advertiseAddress: m[2]! });
  }
  if (out.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
  return out;
}

/** A NODES file: one `NAME ADDRESS` or `NAME=ADDRESS` per line, `#` comments (certs generate's). */
export function readNodesFile(file: string): ControlPlaneNode[] {
  const input = readInput(file);
  const out: ControlPlaneNode[] = [];
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
  if (out.length > MAX_NODES) throw new InputError(`${input.name}: more than ${MAX_NODES} nodes`);
  return out;
}
