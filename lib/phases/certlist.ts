/**
 * kubeadm's certificate list and the facts a control plane's PKI is made
 * from, as plain data: the input spec ({@link ControlPlanePkiSpec}, what an
 * `InitConfiguration` + `ClusterConfiguration` fix for the `certs` and
 * `kubeconfig` phases), kubeadm's cert list (`phases/certs/certlist.go`
 * `GetDefaultCertList`: name, base name, CA, subject, usages, which SAN set),
 * the SAN computation (`pkiutil.GetAPIServerAltNames`, `GetEtcdAltNames`,
 * `GetEtcdPeerAltNames`, `RemoveDuplicateAltNames`), the endpoints
 * (`util/endpoint.go`) and the validation kubeadm applies to those fields,
 * with its texts. Signing lives in `certs.ts`, kubeconfigs in
 * `kubeconfigs.ts`; this module only computes (no keys, no I/O).
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { aggregateErrors } from "../go/aggregate.ts";
import { DocReader, fieldInvalid, fieldRequired } from "../kubeadm/api.ts";
import {
  decodeClusterConfiguration,
  DEFAULT_CA_CERT_VALIDITY_MS,
  DEFAULT_CERT_VALIDITY_MS,
  validateClusterConfiguration,
} from "../kubeadm/cluster_config.ts";
import { parseHostPortError } from "../kubeadm/init_config.ts";
import {
  type Cidr,
  type ENCRYPTION_ALGORITHMS,
  isWildcardDns1123Subdomain,
  parseCidrSloppy,
  parseIpSloppy,
  validateAPIEndpoint,
  validateCertSANs,
  validateEncryptionAlgorithm,
  validateHostPort,
  validateIPNetFromString,
  validateServiceSubnetSize,
} from "../kubeadm/validation.ts";
import { isDns1123Subdomain } from "../kubelet/csr_validation.ts";
import { goSplitHostPort } from "../go/net.ts";
import { goQuote } from "../go/quote.ts";
import { formatIp, parseIp } from "../pki/pkix.ts";
import type { KeyType } from "../pki/keys.ts";

/** One of kubeadm's `EncryptionAlgorithmType` values (`ENCRYPTION_ALGORITHMS` of `kubeadm/validation`). */
export type EncryptionAlgorithm = typeof ENCRYPTION_ALGORITHMS[number];

/** The joinkit key type of a kubeadm encryption algorithm. */
export function keyTypeOf(alg: EncryptionAlgorithm): KeyType {
  return alg === "ECDSA-P256" ? "ecdsa-p256" : alg.toLowerCase() as KeyType;
}

/** `CertificateBackdate`: 5 minutes. */
export const CERT_BACKDATE_MS = 5 * 60_000;

/** What the certs and kubeconfig phases read from kubeadm's configuration, defaulted. */
export interface ControlPlanePkiSpec {
  /** `nodeRegistration.name`, trimmed and lower-cased as kubeadm does. */
  nodeName: string;
  /** `localAPIEndpoint.advertiseAddress`. */
  advertiseAddress: string;
  /** `localAPIEndpoint.bindPort` (6443). */
  bindPort: number;
  /** `controlPlaneEndpoint` as written ("" when unset). */
  controlPlaneEndpoint: string;
  /** `networking.serviceSubnet` (10.96.0.0/12; a comma list, the first CIDR counts). */
  serviceSubnet: string;
  /** `networking.dnsDomain` (cluster.local). */
  dnsDomain: string;
  /** `clusterName` (kubernetes). */
  clusterName: string;
  /** `apiServer.certSANs`, lower-cased as kubeadm does. */
  apiServerCertSANs: string[];
  /** `etcd.local.serverCertSANs`. */
  etcdServerCertSANs: string[];
  /** `etcd.local.peerCertSANs`. */
  etcdPeerCertSANs: string[];
  /** `etcd.external` is set: no etcd certificates. */
  externalEtcd: boolean;
  /** `encryptionAlgorithm` (RSA-2048). */
  encryptionAlgorithm: string;
  /** `certificateValidityPeriod` in ms (8760h). */
  certificateValidityMs: number;
  /** `caCertificateValidityPeriod` in ms (87600h). */
  caCertificateValidityMs: number;
  /**
   * The `ControlPlaneKubeletLocalMode` feature gate (alpha in v1.32, off by
   * default): kubelet.conf points at the node's own API server.
   */
  kubeletLocalMode: boolean;
}

/**
 * A spec with kubeadm's static defaults for every field `values` leaves out,
 * and kubeadm's normalisation applied (node name trimmed and lower-cased,
 * `apiServer.certSANs` lower-cased: `nodeutil.GetHostname`, `LowercaseSANs`).
 *
 * @example
 * ```ts
 * controlPlanePkiSpec({ nodeName: "CP-1", advertiseAddress: "10.0.0.10" }).nodeName; // "cp-1"
 * ```
 */
export function controlPlanePkiSpec(values: Partial<ControlPlanePkiSpec>): ControlPlanePkiSpec {
  return {
    nodeName: (values.nodeName ?? "").trim().toLowerCase(),
    advertiseAddress: values.advertiseAddress ?? "",
    bindPort: values.bindPort ?? 6443,
    controlPlaneEndpoint: values.controlPlaneEndpoint ?? "",
    serviceSubnet: values.serviceSubnet || "10.96.0.0/12",
    dnsDomain: values.dnsDomain || "cluster.local",
    clusterName: values.clusterName || "kubernetes",
    apiServerCertSANs: (values.apiServerCertSANs ?? []).map((s) => s.toLowerCase()),
    etcdServerCertSANs: [...values.etcdServerCertSANs ?? []],
    etcdPeerCertSANs: [...values.etcdPeerCertSANs ?? []],
    externalEtcd: values.externalEtcd ?? false,
    encryptionAlgorithm: values.encryptionAlgorithm || "RSA-2048",
    certificateValidityMs: values.certificateValidityMs ?? DEFAULT_CERT_VALIDITY_MS,
    caCertificateValidityMs: values.caCertificateValidityMs ?? DEFAULT_CA_CERT_VALIDITY_MS,
    kubeletLocalMode: values.kubeletLocalMode ?? false,
  };
}

/** The same spec for another control-plane node (its name and advertise address). */
export function specForNode(
  spec: ControlPlanePkiSpec,
  nodeName: string,
  advertiseAddress: string,
): ControlPlanePkiSpec {
  return { ...spec, nodeName: nodeName.trim().toLowerCase(), advertiseAddress };
}

// ---------------------------------------------------------------------------
// Addresses.

/** The address `index` places after the network address (`GetIndexedIP`); undefined when outside. */
function indexedIp(cidr: Cidr, index: number): Uint8Array | undefined {
  const out = cidr.ip.slice();
  let carry = index;
  for (let i = out.length - 1; i >= 0 && carry > 0; i--) {
    const v = out[i]! + carry;
    out[i] = v & 0xff;
    carry = Math.floor(v / 256);
  }
  const size = cidr.bits - cidr.ones;
  if (size < 53 && index >= 2 ** size) return undefined;
  return out.length === 16 && out.subarray(0, 10).every((x) => x === 0) && out[10] === 0xff &&
      out[11] === 0xff
    ? out.slice(12)
    : out;
}

/**
 * The API server's service VIP: the first CIDR of `serviceSubnet` + 1
 * (`GetAPIServerVirtualIP`).
 *
 * @example
 * ```ts
 * apiServerVirtualIp("10.96.0.0/12"); // "10.96.0.1"
 * ```
 */
export function apiServerVirtualIp(serviceSubnet: string): string {
  const first = parseCidrSloppy(serviceSubnet.split(",")[0]!);
  const ip = first && indexedIp(first, 1);
  if (!ip) {
    throw new Error(`unable to get first IP address from the given CIDR: ${serviceSubnet}`);
  }
  return formatIp(ip);
}

/** `net.JoinHostPort`. */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** `GetLocalAPIEndpoint`: `https://<advertiseAddress>:<bindPort>`. */
export function localEndpointUrl(spec: ControlPlanePkiSpec): string {
  const ip = parseIpSloppy(spec.advertiseAddress);
  return `https://${joinHostPort(ip ? formatIp(ip) : spec.advertiseAddress, spec.bindPort)}`;
}

/**
 * `GetControlPlaneEndpoint`: `https://<controlPlaneEndpoint host>:<its port,
 * else bindPort>`, or the local endpoint when there is none.
 */
export function controlPlaneEndpointUrl(spec: ControlPlanePkiSpec): string {
  if (!spec.controlPlaneEndpoint) return localEndpointUrl(spec);
  const split = goSplitHostPort(spec.controlPlaneEndpoint);
  const host = split.ok ? split.host : spec.controlPlaneEndpoint;
  const port = split.ok && split.port !== "" ? split.port : String(spec.bindPort);
  return `https://${joinHostPort(host, port)}`;
}

// ---------------------------------------------------------------------------
// SANs.

/** A certificate's subject alternative names, DNS then IP, in DER order. */
export interface AltNames {
  dns: string[];
  ips: string[];
}

/**
 * `appendSANsToAltNames`: each extra SAN goes to the IPs (when it parses as
 * one) or the DNS names (a subdomain or wildcard); anything else is left out
 * with kubeadm's warning.
 */
function appendSans(
  alt: { dns: string[]; ips: Uint8Array[] },
  sans: readonly string[],
  cert: string,
) {
  const warnings: string[] = [];
  for (const s of sans) {
    const ip = parseIpSloppy(s);
    if (ip) alt.ips.push(ip);
    else if (isDns1123Subdomain(s).length === 0 || isWildcardDns1123Subdomain(s).length === 0) {
      alt.dns.push(s);
    } else {
      warnings.push(
        `[certificates] WARNING: '${s}' was not added to the '${cert}' SAN, because it is not a valid IP or RFC-1123 compliant DNS entry`,
      );
    }
  }
  return warnings;
}

/**
 * `RemoveDuplicateAltNames`: DNS names as a sorted set (bytewise), IPs
 * deduplicated by their text and kept in first-seen order.
 *
 * @example
 * ```ts
 * removeDuplicateAltNames({ dns: ["b", "a", "b"], ips: ["10.0.0.2", "10.0.0.1", "10.0.0.2"] });
 * // { dns: ["a", "b"], ips: ["10.0.0.2", "10.0.0.1"] }
 * ```
 */
export function removeDuplicateAltNames(alt: AltNames): AltNames {
  const dns = [...new Set(alt.dns)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { dns, ips: [...new Set(alt.ips)] };
}

function finish(alt: { dns: string[]; ips: Uint8Array[] }): AltNames {
  return removeDuplicateAltNames({ dns: alt.dns, ips: alt.ips.map(formatIp) });
}

function advertiseIp(spec: ControlPlanePkiSpec): Uint8Array {
  const ip = parseIpSloppy(spec.advertiseAddress);
  if (!ip) {
    throw new Error(
      `error parsing LocalAPIEndpoint AdvertiseAddress ${spec.advertiseAddress}: is not a valid textual representation of an IP address`,
    );
  }
  return ip;
}

/** The SAN sets of a node's certificates, and kubeadm's warnings for extra SANs left out. */
export interface NodeAltNames {
  apiserver: AltNames;
  etcdServer: AltNames;
  etcdPeer: AltNames;
  warnings: string[];
}

/**
 * The API server and etcd SANs kubeadm computes for `spec` (its node):
 * `GetAPIServerAltNames` (node name, the four `kubernetes…` names, the
 * service VIP, the advertise address, the control-plane endpoint's host,
 * `apiServer.certSANs`) and `getAltNames` for etcd (node name, localhost,
 * the advertise address, 127.0.0.1, ::1, the etcd extra SANs), each after
 * {@link removeDuplicateAltNames}. Throws kubeadm's error for an address
 * that does not parse (validation normally refuses it first).
 *
 * @example
 * ```ts ignore
 * nodeAltNames(spec).apiserver.ips; // ["10.96.0.1", "10.0.0.10", "192.0.2.7"]
 * ```
 */
export function nodeAltNames(spec: ControlPlanePkiSpec): NodeAltNames {
  const adv = advertiseIp(spec);
  const vip = parseIp(apiServerVirtualIp(spec.serviceSubnet))!;
  const api = {
    dns: [
      spec.nodeName,
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      `kubernetes.default.svc.${spec.dnsDomain}`,
    ],
    ips: [vip, adv],
  };
  if (spec.controlPlaneEndpoint) {
    const split = goSplitHostPort(spec.controlPlaneEndpoint);
    const host = split.ok ? split.host : spec.controlPlaneEndpoint;
    const ip = parseIpSloppy(host);
    if (ip) api.ips.push(ip);
    else api.dns.push(host);
  }
  const warnings = appendSans(api, spec.apiServerCertSANs, "apiserver");
  const etcd = (extra: readonly string[], cert: string) => {
    const alt = {
      dns: [spec.nodeName, "localhost"],
      ips: [adv, new Uint8Array([127, 0, 0, 1]), parseIp("::1")!],
    };
    if (!spec.externalEtcd) warnings.push(...appendSans(alt, extra, cert));
    return finish(alt);
  };
  return {
    apiserver: finish(api),
    etcdServer: etcd(spec.etcdServerCertSANs, "etcd/server"),
    etcdPeer: etcd(spec.etcdPeerCertSANs, "etcd/peer"),
    warnings,
  };
}

// ---------------------------------------------------------------------------
// The cert list.

/** An extended key usage kubeadm puts in its certificates. */
export type ExtKeyUsage = "serverAuth" | "clientAuth";

/** Which SAN set a certificate carries. */
export type AltNameSet = "ca" | "apiserver" | "etcd-server" | "etcd-peer" | "none";

/** One entry of kubeadm's cert list (`KubeadmCert`). */
export interface CertSpec {
  /** kubeadm's `Name`: the sub-phase and `certs renew` name (`etcd-server`). */
  name: string;
  /** `BaseName`: the file stem under the certificates directory (`etcd/server`). */
  baseName: string;
  /** `LongName`, for help and messages. */
  longName: string;
  /** The signer's {@link CertSpec.name}; absent for a (self-signed) CA. */
  caName?: string;
  /** Subject CN; `undefined`: the node name (`setCommonNameToNodeName`). */
  commonName?: string;
  /** Subject O values. */
  organization: readonly string[];
  /** Extended key usages, in kubeadm's order (none for CAs). */
  usages: readonly ExtKeyUsage[];
  /** The SAN set. */
  altNames: AltNameSet;
  /** Part of local etcd's PKI (absent with `etcd.external`). */
  etcd: boolean;
  /** Depends on the node (its name or address): differs between control-plane nodes. */
  perNode: boolean;
}

/** `ClusterAdminsGroupAndClusterRoleBinding`. */
export const CLUSTER_ADMINS_GROUP = "kubeadm:cluster-admins";
/** `SystemPrivilegedGroup`. */
export const SYSTEM_MASTERS_GROUP = "system:masters";

function cert(
  name: string,
  baseName: string,
  longName: string,
  more: Partial<CertSpec>,
): CertSpec {
  return {
    name,
    baseName,
    longName,
    organization: [],
    usages: [],
    altNames: "none",
    etcd: false,
    perNode: false,
    ...more,
  };
}

/**
 * kubeadm's `GetDefaultCertList`, in its order (the order of the `certs`
 * sub-phases); `sa` is not a certificate and comes after these.
 */
export const CERT_LIST: readonly CertSpec[] = [
  cert(
    "ca",
    "ca",
    "self-signed Kubernetes CA to provision identities for other Kubernetes components",
    {
      commonName: "kubernetes",
      altNames: "ca",
    },
  ),
  cert("apiserver", "apiserver", "certificate for serving the Kubernetes API", {
    caName: "ca",
    commonName: "kube-apiserver",
    usages: ["serverAuth"],
    altNames: "apiserver",
    perNode: true,
  }),
  cert(
    "apiserver-kubelet-client",
    "apiserver-kubelet-client",
    "certificate for the API server to connect to kubelet",
    {
      caName: "ca",
      commonName: "kube-apiserver-kubelet-client",
      organization: [CLUSTER_ADMINS_GROUP],
      usages: ["clientAuth"],
    },
  ),
  cert(
    "front-proxy-ca",
    "front-proxy-ca",
    "self-signed CA to provision identities for front proxy",
    {
      commonName: "front-proxy-ca",
      altNames: "ca",
    },
  ),
  cert("front-proxy-client", "front-proxy-client", "certificate for the front proxy client", {
    caName: "front-proxy-ca",
    commonName: "front-proxy-client",
    usages: ["clientAuth"],
  }),
  cert("etcd-ca", "etcd/ca", "self-signed CA to provision identities for etcd", {
    commonName: "etcd-ca",
    altNames: "ca",
    etcd: true,
  }),
  cert("etcd-server", "etcd/server", "certificate for serving etcd", {
    caName: "etcd-ca",
    usages: ["serverAuth", "clientAuth"],
    altNames: "etcd-server",
    etcd: true,
    perNode: true,
  }),
  cert("etcd-peer", "etcd/peer", "certificate for etcd nodes to communicate with each other", {
    caName: "etcd-ca",
    usages: ["serverAuth", "clientAuth"],
    altNames: "etcd-peer",
    etcd: true,
    perNode: true,
  }),
  cert(
    "etcd-healthcheck-client",
    "etcd/healthcheck-client",
    "certificate for liveness probes to healthcheck etcd",
    {
      caName: "etcd-ca",
      commonName: "kube-etcd-healthcheck-client",
      usages: ["clientAuth"],
      etcd: true,
    },
  ),
  cert(
    "apiserver-etcd-client",
    "apiserver-etcd-client",
    "certificate the apiserver uses to access etcd",
    {
      caName: "etcd-ca",
      commonName: "kube-apiserver-etcd-client",
      usages: ["clientAuth"],
      etcd: true,
    },
  ),
];

/** The cert list for a spec: without the etcd entries under `etcd.external` (`GetCertsWithoutEtcd`). */
export function certList(spec: Pick<ControlPlanePkiSpec, "externalEtcd">): CertSpec[] {
  return CERT_LIST.filter((c) => !(spec.externalEtcd && c.etcd));
}

/** The cert-list entry named `name` (`ca`, `etcd-server`, …). */
export function certSpec(name: string): CertSpec {
  const c = CERT_LIST.find((x) => x.name === name);
  if (!c) throw new Error(`unknown certificate ${name}`);
  return c;
}

/** The subject a cert-list entry gets for `spec`'s node: O values and CN. */
export function certSubject(
  c: CertSpec,
  spec: Pick<ControlPlanePkiSpec, "nodeName">,
): { commonName: string; organization: string[] } {
  return { commonName: c.commonName ?? spec.nodeName, organization: [...c.organization] };
}

/** The SANs a cert-list entry gets for `spec`'s node (CAs: DNS:<CN>; client certificates: none). */
export function certAltNames(c: CertSpec, alt: NodeAltNames): AltNames {
  switch (c.altNames) {
    case "ca":
      return { dns: [c.commonName!], ips: [] };
    case "apiserver":
      return alt.apiserver;
    case "etcd-server":
      return alt.etcdServer;
    case "etcd-peer":
      return alt.etcdPeer;
    case "none":
      return { dns: [], ips: [] };
  }
}

/** The files of the service-account key pair (`ServiceAccountKeyBaseName`). */
export const SA_KEY = "sa.key";
/** The public half, PEM `PUBLIC KEY`. */
export const SA_PUB = "sa.pub";

// ---------------------------------------------------------------------------
// Validation.

/** `constants.MinimumAddressesInServiceSubnet`. */
const MIN_SERVICE_ADDRESSES = 10;

/**
 * The error kubeadm's dynamic defaulting (`SetInitDynamicDefaults`, before
 * validation) gives for values from its flags, or `undefined`: an advertise
 * address that is no IP, then a control-plane endpoint `ParseHostPort`
 * refuses. (A configuration file read by `readInitConfiguration` has passed
 * these already.)
 *
 * @example
 * ```ts
 * dynamicDefaultsError(controlPlanePkiSpec({ nodeName: "a", advertiseAddress: "10.0.0.999" }));
 * // 'couldn\'t use "10.0.0.999" as "apiserver-advertise-address", must be ipv4 or ipv6 address'
 * ```
 */
export function dynamicDefaultsError(spec: ControlPlanePkiSpec): string | undefined {
  if (spec.advertiseAddress !== "" && !parseIpSloppy(spec.advertiseAddress)) {
    return `couldn't use ${
      goQuote(spec.advertiseAddress)
    } as "apiserver-advertise-address", must be ipv4 or ipv6 address`;
  }
  if (spec.controlPlaneEndpoint) return parseHostPortError(spec.controlPlaneEndpoint);
  return undefined;
}

/** Go's `net.IP` classes of a 4- or 16-byte address (v4-mapped addresses count as IPv4). */
function ipClass(ip: Uint8Array): "unspecified" | "loopback" | "other" | "global" {
  const v4 = ip.length === 4
    ? ip
    : ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff
    ? ip.subarray(12)
    : undefined;
  if (v4) {
    if (v4.every((b) => b === 0)) return "unspecified";
    if (v4[0] === 127) return "loopback";
    if (
      v4.every((b) => b === 255) || (v4[0]! & 0xf0) === 0xe0 ||
      (v4[0] === 169 && v4[1] === 254)
    ) return "other"; // broadcast, multicast, link-local
    return "global";
  }
  if (ip.every((b) => b === 0)) return "unspecified";
  if (ip.subarray(0, 15).every((b) => b === 0) && ip[15] === 1) return "loopback";
  if (ip[0] === 0xff || (ip[0] === 0xfe && (ip[1]! & 0xc0) === 0x80)) return "other";
  return "global";
}

/**
 * Why kubeadm would not use `advertiseAddress` as written for the node's
 * API server, or `undefined`. An unspecified address (`0.0.0.0`, `::`) or a
 * loopback one is replaced by kubeadm with an address of the host it runs on
 * (`SetAPIEndpointDynamicDefaults`: the default route's interface, or a global
 * address on `lo`), which joinkit, rendering elsewhere, cannot know: refused.
 * Any other address that is not global unicast (multicast, broadcast,
 * link-local) kubeadm refuses (`VerifyAPIServerBindAddress`), with this text.
 *
 * @example
 * ```ts
 * advertiseAddressError("169.254.1.1"); // 'cannot use "169.254.1.1" as the bind address for the API Server'
 * ```
 */
export function advertiseAddressError(advertiseAddress: string): string | undefined {
  const ip = parseIpSloppy(advertiseAddress);
  if (!ip) return undefined; // validation names it
  const cls = ipClass(ip);
  if (cls === "global") return undefined;
  if (cls === "other") {
    return `cannot use ${goQuote(formatIp(ip))} as the bind address for the API Server`;
  }
  return `localAPIEndpoint.advertiseAddress: ${goQuote(advertiseAddress)} is ${
    cls === "loopback" ? "a loopback" : "an unspecified"
  } address, which kubeadm replaces with an address of the host it runs on (${
    cls === "loopback" ? "a global address of its lo interface" : "its default route's"
  }); joinkit cannot detect it: give the node's own address`;
}

/**
 * kubeadm's validation of the fields the PKI is made from
 * (`ValidateInitConfiguration`'s node name, networking, control-plane
 * endpoint, certSANs, etcd SANs, encryption algorithm and local API
 * endpoint parts), with its field-error texts; `[]` when valid. Join them
 * with `aggregateErrors` for kubeadm's one-line form.
 *
 * @example
 * ```ts
 * validateControlPlanePkiSpec(controlPlanePkiSpec({ nodeName: "cp-1", advertiseAddress: "10.0.0.10" })); // []
 * ```
 */
export function validateControlPlanePkiSpec(spec: ControlPlanePkiSpec): string[] {
  const errs: string[] = [];
  if (spec.nodeName === "") {
    errs.push(
      fieldRequired(
        "nodeRegistration",
        "--node-name or .nodeRegistration.name in the config file is a required value. It seems like this value couldn't be automatically detected in your environment, please specify the desired value using the CLI or config file.",
      ),
    );
  } else {
    for (const e of isDns1123Subdomain(spec.nodeName)) {
      errs.push(fieldInvalid("nodeRegistration.name", spec.nodeName, e));
    }
  }
  for (const e of isDns1123Subdomain(spec.dnsDomain)) {
    errs.push(fieldInvalid("networking.dnsDomain", spec.dnsDomain, e));
  }
  errs.push(
    ...validateIPNetFromString(
      spec.serviceSubnet,
      MIN_SERVICE_ADDRESSES,
      "networking.serviceSubnet",
    ),
  );
  errs.push(...validateServiceSubnetSize(spec.serviceSubnet, "networking.serviceSubnet"));
  errs.push(...validateCertSANs(spec.apiServerCertSANs, "apiServer.certSANs"));
  errs.push(...validateHostPort(spec.controlPlaneEndpoint, "controlPlaneEndpoint"));
  if (!spec.externalEtcd) {
    errs.push(...validateCertSANs(spec.etcdServerCertSANs, "etcd.local.serverCertSANs"));
    errs.push(...validateCertSANs(spec.etcdPeerCertSANs, "etcd.local.peerCertSANs"));
  }
  errs.push(...validateEncryptionAlgorithm(spec.encryptionAlgorithm, "encryptionAlgorithm"));
  errs.push(...validateAPIEndpoint(spec, "localAPIEndpoint"));
  return errs;
}

/**
 * Refuses (InputError) control-plane nodes that cannot make one cluster: for
 * a node list (`listed`), none, a name listed twice or two nodes on one
 * advertise address; then each spec kubeadm init would refuse (its
 * validation, in one line) or not serve on (see {@link advertiseAddressError}),
 * named by its node when listed.
 */
export function checkControlPlaneNodes(
  specs: readonly ControlPlanePkiSpec[],
  listed: boolean,
): void {
  if (listed) {
    if (specs.length === 0) throw new InputError("no control-plane nodes");
    const names = new Set<string>();
    const addresses = new Map<string, string>();
    for (const spec of specs) {
      const name = spec.nodeName;
      if (names.has(name)) throw new InputError(`node ${JSON.stringify(name)} is listed twice`);
      names.add(name);
      const ip = parseIpSloppy(spec.advertiseAddress);
      const addr = ip ? formatIp(ip) : spec.advertiseAddress;
      const other = addresses.get(addr);
      if (other !== undefined) {
        throw new InputError(
          `nodes ${JSON.stringify(other)} and ${
            JSON.stringify(name)
          } have the same advertise address ${addr}`,
        );
      }
      addresses.set(addr, name);
    }
  }
  for (const spec of specs) {
    const where = listed ? `node ${JSON.stringify(spec.nodeName)}: ` : "";
    const errs = validateControlPlanePkiSpec(spec);
    if (errs.length) throw new InputError(`${where}${aggregateErrors(errs)}`);
    // kubeadm init would not serve on this address (it replaces or refuses it).
    const why = advertiseAddressError(spec.advertiseAddress);
    if (why) throw new InputError(`${where}${why}`);
  }
}

/**
 * kubeadm's warnings for validity periods above its defaults or a leaf
 * period above the CA period (`ValidateCertValidity`: logged as
 * `WARNING: …`, not refused), for values that did not come from a
 * configuration file (whose reader has warned already): kubeadm's
 * ClusterConfiguration validation of its defaults with these two periods.
 */
export function validityWarnings(
  spec: Pick<ControlPlanePkiSpec, "certificateValidityMs" | "caCertificateValidityMs">,
): string[] {
  const c = decodeClusterConfiguration(new DocReader("flags"), undefined, "v1beta4");
  c.certificateValidityPeriodMs = spec.certificateValidityMs;
  c.caCertificateValidityPeriodMs = spec.caCertificateValidityMs;
  return validateClusterConfiguration(c).warnings;
}
