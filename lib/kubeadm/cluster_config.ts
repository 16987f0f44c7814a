/**
 * kubeadm's `ClusterConfiguration` (v1beta4 and v1beta3): decoded field by
 * field (types checked, unknown fields reported), statically defaulted
 * (`SetDefaults_ClusterConfiguration`, `SetDefaults_Etcd`; v1beta3's
 * conversion adds RSA-2048 and the default validity periods), dynamically
 * defaulted where no host is needed (`SetClusterDynamicDefaults`: the
 * Kubernetes version normalised, `controlPlaneEndpoint` given the bind
 * port, `apiServer.certSANs` lower-cased), and judged with kubeadm v1.32's
 * `ValidateClusterConfiguration` and its texts.
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { formatDuration, parseDuration } from "../go/duration.ts";
import { goSplitHostPort } from "../go/net.ts";
import { goQuote } from "../go/quote.ts";
import { isDns1123Subdomain } from "../kubelet/csr_validation.ts";
import { type DocReader, fieldInvalid, type KubeadmVersion } from "./api.ts";
import {
  type Arg,
  argValue,
  hostPortError,
  validateAbsolutePath,
  validateCertSANs,
  validateEncryptionAlgorithm,
  validateExtraArgs,
  validateFeatureGates,
  validateHostPort,
  validateImageRepository,
  validateIPNetFromString,
  validatePodSubnetNodeMask,
  validateServiceSubnetSize,
  validateURLs,
} from "./validation.ts";

/** `DefaultCertificatesDir`. */
export const DEFAULT_CERTIFICATES_DIR = "/etc/kubernetes/pki";
/** `DefaultServicesSubnet`. */
export const DEFAULT_SERVICE_SUBNET = "10.96.0.0/12";
/** `DefaultServiceDNSDomain`. */
export const DEFAULT_DNS_DOMAIN = "cluster.local";
/** `DefaultClusterName`. */
export const DEFAULT_CLUSTER_NAME = "kubernetes";
/** `DefaultEtcdDataDir`. */
export const DEFAULT_ETCD_DATA_DIR = "/var/lib/etcd";
/** `DefaultImageRepository`. */
export const DEFAULT_IMAGE_REPOSITORY = "registry.k8s.io";
/** `DefaultKubernetesVersion`: a label kubeadm resolves at run time. */
export const DEFAULT_KUBERNETES_VERSION = "stable-1";
/** `DefaultEncryptionAlgorithm`. */
export const DEFAULT_ENCRYPTION_ALGORITHM = "RSA-2048";
/** `constants.CertificateValidityPeriod` (8760h), in ms. */
export const DEFAULT_CERT_VALIDITY_MS = 365 * 24 * 3_600_000;
/** `constants.CACertificateValidityPeriod` (87600h), in ms. */
export const DEFAULT_CA_CERT_VALIDITY_MS = 10 * DEFAULT_CERT_VALIDITY_MS;
/** `constants.MinimumControlPlaneVersion` of kubeadm v1.32. */
export const MINIMUM_CONTROL_PLANE_VERSION = "v1.31.0";

/** A control-plane component's settings that kubeadm validates. */
export interface ComponentConfig {
  /** v1beta4 list; v1beta3's map converted to a list sorted by name. */
  extraArgs: Arg[];
}

/** A parsed, defaulted ClusterConfiguration (the internal type's shape). */
export interface ClusterConfig {
  /** Default `kubernetes`. */
  clusterName: string;
  /** Absolute; default `/etc/kubernetes/pki`. */
  certificatesDir: string;
  /** `v1.32.5`-style after normalising a version; a label (`stable-1`, `latest`…) as written. */
  kubernetesVersion: string;
  /** With the bind port appended when the file gave none; `""` when unset. */
  controlPlaneEndpoint: string;
  networking: {
    /** Default `10.96.0.0/12`; a comma list for dual-stack (the first CIDR holds the API VIP). */
    serviceSubnet: string;
    /** `""` when unset. */
    podSubnet: string;
    /** Default `cluster.local`. */
    dnsDomain: string;
  };
  apiServer: ComponentConfig & {
    /** Lower-cased, as kubeadm does before validating. */
    certSANs: string[];
  };
  controllerManager: ComponentConfig;
  scheduler: ComponentConfig;
  /** Exactly one of `local` and `external` (local `{}` defaulted when neither is given). */
  etcd: {
    local?: {
      /** Default `/var/lib/etcd`. */
      dataDir: string;
      serverCertSANs: string[];
      peerCertSANs: string[];
      extraArgs: Arg[];
      imageRepository: string;
      imageTag: string;
    };
    external?: { endpoints: string[]; caFile: string; certFile: string; keyFile: string };
  };
  dns: { imageRepository: string; imageTag: string; disabled: boolean };
  proxy: { disabled: boolean };
  /** Default `registry.k8s.io`. */
  imageRepository: string;
  featureGates: Record<string, boolean>;
  /**
   * `RSA-2048` (default), `RSA-3072`, `RSA-4096` or `ECDSA-P256`. The
   * `PublicKeysECDSA` feature gate, when set, overrides it (true:
   * ECDSA-P256, false: RSA-2048), as kubeadm's `EncryptionAlgorithmType()` does.
   */
  encryptionAlgorithm: string;
  /** Leaf validity in ms (default 8760h). */
  certificateValidityPeriodMs: number;
  /** CA validity in ms (default 87600h). */
  caCertificateValidityPeriodMs: number;
}

const V4_FIELDS = [
  "apiVersion",
  "kind",
  "etcd",
  "networking",
  "kubernetesVersion",
  "controlPlaneEndpoint",
  "apiServer",
  "controllerManager",
  "scheduler",
  "dns",
  "proxy",
  "certificatesDir",
  "imageRepository",
  "featureGates",
  "clusterName",
  "encryptionAlgorithm",
  "certificateValidityPeriod",
  "caCertificateValidityPeriod",
];
const V3_FIELDS = V4_FIELDS.filter((f) =>
  !["proxy", "encryptionAlgorithm", "certificateValidityPeriod", "caCertificateValidityPeriod"]
    .includes(f)
);

/** Reads `extraArgs`: a v1beta4 list of `{name, value}` or a v1beta3 map (sorted as `convertToArgs`). */
export function readArgs(
  r: DocReader,
  v: unknown,
  path: string,
  version: KubeadmVersion,
): Arg[] {
  if (v === undefined || v === null) return [];
  if (version === "v1beta4") {
    const items = r.list(v, path) ?? [];
    return items.map((a, i) => {
      const o = r.object(a, `${path}[${i}]`, ["name", "value"]) ?? {};
      return {
        name: r.string(o.name, `${path}[${i}].name`) ?? "",
        value: r.string(o.value, `${path}[${i}].value`) ?? "",
      };
    });
  }
  const m = r.object(v, path, Object.keys(v as object)) ?? {};
  return Object.keys(m).map((k) => ({ name: k, value: r.string(m[k], `${path}.${k}`) ?? "" }))
    .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : a.value < b.value ? -1 : 1);
}

/** A `metav1.Duration` field in ms; malformed is bad input with Go's text. */
export function readDuration(r: DocReader, v: unknown, path: string): number | undefined {
  const s = r.string(v, path);
  if (s === undefined) return undefined;
  try {
    return parseDuration(s);
  } catch {
    throw new InputError(`${r.source}: ${path}: time: invalid duration ${goQuote(s)}`);
  }
}

const HOST_PATH_MOUNT = ["name", "hostPath", "mountPath", "readOnly", "pathType"];
const ENV_VAR = ["name", "value", "valueFrom"];

/** Decodes a control-plane component (`apiServer`, `controllerManager`, `scheduler`). */
function readComponent(
  r: DocReader,
  v: unknown,
  path: string,
  version: KubeadmVersion,
  extra: readonly string[],
): { o: Record<string, unknown>; extraArgs: Arg[] } {
  const known = [
    "extraArgs",
    "extraVolumes",
    ...(version === "v1beta4" ? ["extraEnvs"] : []),
    ...extra,
  ];
  const o = r.object(v, path, known) ?? {};
  const vols = r.list(o.extraVolumes, `${path}.extraVolumes`) ?? [];
  vols.forEach((m, i) => {
    const p = `${path}.extraVolumes[${i}]`;
    const mo = r.object(m, p, HOST_PATH_MOUNT) ?? {};
    for (const k of ["name", "hostPath", "mountPath", "pathType"]) r.string(mo[k], `${p}.${k}`);
    r.bool(mo.readOnly, `${p}.readOnly`);
  });
  if (version === "v1beta4") {
    const envs = r.list(o.extraEnvs, `${path}.extraEnvs`) ?? [];
    envs.forEach((e, i) => {
      const eo = r.object(e, `${path}.extraEnvs[${i}]`, ENV_VAR) ?? {};
      r.string(eo.name, `${path}.extraEnvs[${i}].name`);
      r.string(eo.value, `${path}.extraEnvs[${i}].value`);
    });
  }
  return { o, extraArgs: readArgs(r, o.extraArgs, `${path}.extraArgs`, version) };
}

/**
 * Decodes and statically defaults one ClusterConfiguration document (or
 * none: all defaults). Unknown fields go to `r.warnings`.
 */
export function decodeClusterConfiguration(
  r: DocReader,
  doc: Record<string, unknown> | undefined,
  version: KubeadmVersion,
): ClusterConfig {
  const v4 = version === "v1beta4";
  const top = doc ? r.object(doc, "", v4 ? V4_FIELDS : V3_FIELDS) ?? {} : {};
  const str = (v: unknown, p: string) => r.string(v, p) ?? "";
  const strs = (v: unknown, p: string) => r.strings(v, p) ?? [];

  const net = r.object(top.networking, "networking", ["serviceSubnet", "podSubnet", "dnsDomain"]) ??
    {};
  const api = readComponent(r, top.apiServer, "apiServer", version, [
    "certSANs",
    ...(v4 ? [] : ["timeoutForControlPlane"]),
  ]);
  if (!v4) readDuration(r, api.o.timeoutForControlPlane, "apiServer.timeoutForControlPlane");
  const cm = readComponent(r, top.controllerManager, "controllerManager", version, []);
  const sched = readComponent(r, top.scheduler, "scheduler", version, []);
  const dnsO =
    r.object(top.dns, "dns", ["imageRepository", "imageTag", ...(v4 ? ["disabled"] : [])]) ??
      {};
  const proxyO = v4 ? r.object(top.proxy, "proxy", ["disabled"]) ?? {} : {};

  const etcdO = r.object(top.etcd, "etcd", ["local", "external"]) ?? {};
  const etcd: ClusterConfig["etcd"] = {};
  const localO = r.object(etcdO.local, "etcd.local", [
    "imageRepository",
    "imageTag",
    "dataDir",
    "extraArgs",
    ...(v4 ? ["extraEnvs"] : []),
    "serverCertSANs",
    "peerCertSANs",
  ]);
  const extO = r.object(etcdO.external, "etcd.external", [
    "endpoints",
    "caFile",
    "certFile",
    "keyFile",
  ]);
  if (localO) {
    etcd.local = {
      dataDir: str(localO.dataDir, "etcd.local.dataDir") || DEFAULT_ETCD_DATA_DIR,
      serverCertSANs: strs(localO.serverCertSANs, "etcd.local.serverCertSANs"),
      peerCertSANs: strs(localO.peerCertSANs, "etcd.local.peerCertSANs"),
      extraArgs: readArgs(r, localO.extraArgs, "etcd.local.extraArgs", version),
      imageRepository: str(localO.imageRepository, "etcd.local.imageRepository"),
      imageTag: str(localO.imageTag, "etcd.local.imageTag"),
    };
  }
  if (extO) {
    etcd.external = {
      endpoints: strs(extO.endpoints, "etcd.external.endpoints"),
      caFile: str(extO.caFile, "etcd.external.caFile"),
      certFile: str(extO.certFile, "etcd.external.certFile"),
      keyFile: str(extO.keyFile, "etcd.external.keyFile"),
    };
  }
  if (!etcd.local && !etcd.external) {
    etcd.local = {
      dataDir: DEFAULT_ETCD_DATA_DIR,
      serverCertSANs: [],
      peerCertSANs: [],
      extraArgs: [],
      imageRepository: "",
      imageTag: "",
    };
  }

  const gatesO = r.object(top.featureGates, "featureGates", Object.keys(top.featureGates ?? {})) ??
    {};
  const featureGates: Record<string, boolean> = {};
  for (const k of Object.keys(gatesO)) {
    // encoding/json stores a null map value as the zero value: `Gate: ~` is the gate set false.
    featureGates[k] = r.bool(gatesO[k], `featureGates.${k}`) ?? false;
  }

  return {
    clusterName: str(top.clusterName, "clusterName") || DEFAULT_CLUSTER_NAME,
    certificatesDir: str(top.certificatesDir, "certificatesDir") || DEFAULT_CERTIFICATES_DIR,
    kubernetesVersion: str(top.kubernetesVersion, "kubernetesVersion") ||
      DEFAULT_KUBERNETES_VERSION,
    controlPlaneEndpoint: str(top.controlPlaneEndpoint, "controlPlaneEndpoint"),
    networking: {
      serviceSubnet: str(net.serviceSubnet, "networking.serviceSubnet") || DEFAULT_SERVICE_SUBNET,
      podSubnet: str(net.podSubnet, "networking.podSubnet"),
      dnsDomain: str(net.dnsDomain, "networking.dnsDomain") || DEFAULT_DNS_DOMAIN,
    },
    apiServer: { extraArgs: api.extraArgs, certSANs: strs(api.o.certSANs, "apiServer.certSANs") },
    controllerManager: { extraArgs: cm.extraArgs },
    scheduler: { extraArgs: sched.extraArgs },
    etcd,
    dns: {
      imageRepository: str(dnsO.imageRepository, "dns.imageRepository"),
      imageTag: str(dnsO.imageTag, "dns.imageTag"),
      disabled: r.bool(dnsO.disabled, "dns.disabled") ?? false,
    },
    proxy: { disabled: r.bool(proxyO.disabled, "proxy.disabled") ?? false },
    imageRepository: str(top.imageRepository, "imageRepository") || DEFAULT_IMAGE_REPOSITORY,
    featureGates,
    encryptionAlgorithm: (v4 ? str(top.encryptionAlgorithm, "encryptionAlgorithm") : "") ||
      DEFAULT_ENCRYPTION_ALGORITHM,
    certificateValidityPeriodMs:
      (v4
        ? readDuration(r, top.certificateValidityPeriod, "certificateValidityPeriod")
        : undefined) ??
        DEFAULT_CERT_VALIDITY_MS,
    caCertificateValidityPeriodMs:
      (v4
        ? readDuration(r, top.caCertificateValidityPeriod, "caCertificateValidityPeriod")
        : undefined) ?? DEFAULT_CA_CERT_VALIDITY_MS,
  };
}

const RELEASE_RE = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)([-\w.+]*)?$/;
const LABEL_RE = /^((latest|stable)+(-[1-9](\.[1-9](\d)?)?)?)$/;
const BUCKET_RE = /^((release|ci)\/)?([-\w.+]+)$/;

/** apimachinery's split of a semantic version's extra part into pre-release and build metadata. */
const SEMVER_EXTRA_RE =
  /^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$/;

/**
 * What apimachinery's `version.ParseSemantic` refuses in a version that
 * kubeadm's release pattern let through (its `[-\w.+]*` tail is looser):
 * a malformed pre-release/metadata part (`v1.32.5-`, `v1.32.5.1`), a
 * zero-prefixed numeric pre-release component, a number over 64 bits.
 * Returns Go's error text, or undefined.
 */
function parseSemanticError(ver: string): string | undefined {
  const m = /^v?([0-9]+(?:\.[0-9]+)*)(.*)$/s.exec(ver);
  if (!m) return `could not parse ${goQuote(ver)} as version`;
  const comps = m[1]!.split(".");
  if (comps.length !== 3) return `illegal version string ${goQuote(ver)}`;
  for (const comp of comps) {
    if (BigInt(comp) > 0xffffffffffffffffn) {
      return `illegal non-numeric version component ${goQuote(comp)} in ${
        goQuote(ver)
      }: strconv.ParseUint: parsing ${goQuote(comp)}: value out of range`;
    }
  }
  const extra = m[2]!;
  if (extra === "") return undefined;
  const e = SEMVER_EXTRA_RE.exec(extra);
  if (!e) return `could not parse pre-release/metadata (${extra}) in version ${goQuote(ver)}`;
  for (const comp of (e[1] ?? "").split(".")) {
    if (
      /^[0-9]+$/.test(comp) && BigInt(comp) <= 0xffffffffffffffffn && comp.startsWith("0") &&
      comp !== "0"
    ) {
      return `illegal zero-prefixed version component ${goQuote(comp)} in ${goQuote(ver)}`;
    }
  }
  return undefined;
}

/** Compares two `vX.Y.Z…` versions by their numbers (pre-release tags ignored, as upstream's skew check is). */
function versionLess(a: string, b: string): boolean {
  const pa = RELEASE_RE.exec(a)!, pb = RELEASE_RE.exec(b)!;
  for (let i = 1; i <= 3; i++) {
    const x = Number(pa[i]), y = Number(pb[i]);
    if (x !== y) return x < y;
  }
  // A pre-release of the same numbers sorts before the release (semver).
  return (pa[4] ?? "").startsWith("-") && !(pb[4] ?? "").startsWith("-");
}

/**
 * `NormalizeKubernetesVersion` offline: a version gets its `v`; a label
 * (`stable`, `latest-1.32`, `ci/latest`) is kept (kubeadm fetches it at
 * run time); anything else, or a version below v1.31.0, is kubeadm's error.
 */
export function normalizeKubernetesVersion(v: string): { version: string } | { error: string } {
  const norm = (s: string) => RELEASE_RE.test(s) ? (s.startsWith("v") ? s : `v${s}`) : "";
  let ver = norm(v);
  if (!ver) {
    const m = BUCKET_RE.exec(v);
    if (!m) return { error: `invalid version ${goQuote(v)}` };
    ver = norm(m[3]!);
    if (!ver) {
      if (LABEL_RE.test(m[3]!)) return { version: v };
      return {
        error: `version ${
          goQuote(v)
        } doesn't match patterns for neither semantic version nor labels (stable, latest, ...)`,
      };
    }
  }
  const semantic = parseSemanticError(ver);
  if (semantic) return { error: `couldn't parse Kubernetes version ${goQuote(ver)}: ${semantic}` };
  if (versionLess(ver, MINIMUM_CONTROL_PLANE_VERSION)) {
    return {
      error:
        `this version of kubeadm only supports deploying clusters with the control plane version >= ${
          MINIMUM_CONTROL_PLANE_VERSION.slice(1)
        }. Current version: ${ver}`,
    };
  }
  return { version: ver };
}

/**
 * `SetClusterDynamicDefaults` without a host: the version normalised, the
 * endpoint given `bindPort`, the API server SANs lower-cased. Returns the
 * error kubeadm stops at (before validation), or undefined.
 */
export function setClusterDynamicDefaults(c: ClusterConfig, bindPort: number): string | undefined {
  const v = normalizeKubernetesVersion(c.kubernetesVersion);
  if ("error" in v) return v.error;
  c.kubernetesVersion = v.version;
  if (c.controlPlaneEndpoint !== "") {
    const e = hostPortError(c.controlPlaneEndpoint);
    if (e) return e;
    const split = goSplitHostPort(c.controlPlaneEndpoint);
    if (!(split.ok && split.port !== "")) {
      const host = split.ok ? split.host : c.controlPlaneEndpoint;
      c.controlPlaneEndpoint = host.includes(":") ? `[${host}]:${bindPort}` : `${host}:${bindPort}`;
    }
  }
  c.apiServer.certSANs = c.apiServer.certSANs.map((s) => s.toLowerCase());
  return undefined;
}

/** `ValidateEtcd`. */
function validateEtcd(e: ClusterConfig["etcd"]): string[] {
  if (!e.local && !e.external) {
    return [fieldInvalid("etcd", "", "either .Etcd.Local or .Etcd.External is required")];
  }
  if (e.local && e.external) {
    return [fieldInvalid("etcd", "", ".Etcd.Local and .Etcd.External are mutually exclusive")];
  }
  const errs: string[] = [];
  if (e.local) {
    const l = e.local;
    errs.push(...validateAbsolutePath(l.dataDir, "etcd.local.dataDir"));
    errs.push(...validateCertSANs(l.serverCertSANs, "etcd.local.serverCertSANs"));
    errs.push(...validateCertSANs(l.peerCertSANs, "etcd.local.peerCertSANs"));
    if (l.imageRepository) {
      errs.push(...validateImageRepository(l.imageRepository, "etcd.local.imageRepository"));
    }
    errs.push(...validateExtraArgs(l.extraArgs, "etcd.local.extraArgs"));
  }
  if (e.external) {
    const x = e.external;
    const requireHttps = !(x.caFile === "" && x.certFile === "" && x.keyFile === "");
    if ((x.certFile === "") !== (x.keyFile === "")) {
      errs.push(
        fieldInvalid(
          "etcd.external",
          "",
          "either both or none of .Etcd.External.CertFile and .Etcd.External.KeyFile must be set",
        ),
      );
    }
    if (x.certFile !== "" && x.keyFile !== "" && x.caFile === "") {
      errs.push(
        fieldInvalid(
          "etcd.external",
          "",
          "setting .Etcd.External.CertFile and .Etcd.External.KeyFile requires .Etcd.External.CAFile",
        ),
      );
    }
    errs.push(...validateURLs(x.endpoints, requireHttps, "etcd.external.endpoints"));
    if (x.caFile) errs.push(...validateAbsolutePath(x.caFile, "etcd.external.caFile"));
    if (x.certFile) errs.push(...validateAbsolutePath(x.certFile, "etcd.external.certFile"));
    if (x.keyFile) errs.push(...validateAbsolutePath(x.keyFile, "etcd.external.keyFile"));
  }
  return errs;
}

/**
 * kubeadm v1.32's `ValidateClusterConfiguration` (without the component
 * configs: a KubeletConfiguration/KubeProxyConfiguration document is not
 * judged), in kubeadm's order. The validity-period checks only warn in
 * kubeadm: they come back in `warnings`.
 */
export function validateClusterConfiguration(
  c: ClusterConfig,
): { errors: string[]; warnings: string[] } {
  const errs: string[] = [];
  if (c.dns.imageRepository) {
    errs.push(...validateImageRepository(c.dns.imageRepository, "dns.imageRepository"));
  }
  // ValidateNetworking
  for (const e of isDns1123Subdomain(c.networking.dnsDomain)) {
    errs.push(fieldInvalid("networking.dnsDomain", c.networking.dnsDomain, e));
  }
  if (c.networking.serviceSubnet) {
    errs.push(
      ...validateIPNetFromString(c.networking.serviceSubnet, 10, "networking.serviceSubnet"),
    );
    errs.push(...validateServiceSubnetSize(c.networking.serviceSubnet, "networking.serviceSubnet"));
  }
  if (c.networking.podSubnet) {
    errs.push(...validateIPNetFromString(c.networking.podSubnet, 14, "networking.podSubnet"));
    if (argValue(c.controllerManager.extraArgs, "allocate-node-cidrs") !== "false") {
      errs.push(
        ...validatePodSubnetNodeMask(
          c.networking.podSubnet,
          c.controllerManager.extraArgs,
          "networking.podSubnet",
        ),
      );
    }
  }
  errs.push(...validateCertSANs(c.apiServer.certSANs, "apiServer.certSANs"));
  errs.push(...validateExtraArgs(c.apiServer.extraArgs, "apiServer.extraArgs"));
  errs.push(...validateExtraArgs(c.controllerManager.extraArgs, "controllerManager.extraArgs"));
  errs.push(...validateExtraArgs(c.scheduler.extraArgs, "scheduler.extraArgs"));
  errs.push(...validateAbsolutePath(c.certificatesDir, "certificatesDir"));
  errs.push(...validateFeatureGates(c.featureGates, "featureGates"));
  errs.push(...validateHostPort(c.controlPlaneEndpoint, "controlPlaneEndpoint"));
  errs.push(...validateImageRepository(c.imageRepository, "imageRepository"));
  errs.push(...validateEtcd(c.etcd));
  errs.push(...validateEncryptionAlgorithm(c.encryptionAlgorithm, "encryptionAlgorithm"));

  const warnings: string[] = [];
  const cert = c.certificateValidityPeriodMs, ca = c.caCertificateValidityPeriodMs;
  if (cert > DEFAULT_CERT_VALIDITY_MS) {
    warnings.push(
      `WARNING: certificateValidityPeriod: the value ${
        formatDuration(cert)
      } is more than the recommended default for certificate expiration: ${
        formatDuration(DEFAULT_CERT_VALIDITY_MS)
      }`,
    );
  }
  if (ca > DEFAULT_CA_CERT_VALIDITY_MS) {
    warnings.push(
      `WARNING: caCertificateValidityPeriod: the value ${
        formatDuration(ca)
      } is more than the recommended default for CA certificate expiration: ${
        formatDuration(DEFAULT_CA_CERT_VALIDITY_MS)
      }`,
    );
  }
  if (cert > ca) {
    warnings.push(
      `WARNING: certificateValidityPeriod: the value ${
        formatDuration(cert)
      } is more than the caCertificateValidityPeriod: ${formatDuration(ca)}`,
    );
  }
  return { errors: errs, warnings };
}

/**
 * The algorithm kubeadm generates keys with: `encryptionAlgorithm`, unless
 * the deprecated `PublicKeysECDSA` gate is set (`EncryptionAlgorithmType()`).
 */
export function effectiveEncryptionAlgorithm(c: ClusterConfig): string {
  const g = c.featureGates["PublicKeysECDSA"];
  if (g === undefined) return c.encryptionAlgorithm;
  return g ? "ECDSA-P256" : "RSA-2048";
}
