/**
 * kubeadm's `JoinConfiguration` (`kubeadm.k8s.io/v1beta4`, and v1beta3 on
 * request): rendering it minimal (fields kubeadm would default are left out
 * unless given), decoding one, converting between the two versions, and
 * judging one with kubeadm's defaulting and `ValidateJoinConfiguration`
 * (k/k `cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go`, `defaults.go`,
 * `v1beta3/conversion.go`, `validation/validation.go`,
 * `util/config/joinconfiguration.go`), with their error texts.
 *
 * Stable entry points (other commands build on them; keep the signatures):
 *   renderJoinConfiguration(opts: JoinConfigOptions): KubeObject
 *   validateJoinConfiguration(obj: unknown, source?: string): string[]   // [] when valid
 * Serialise the object with `toYaml` from `lib/k8s/manifest.ts`.
 *
 * @module
 */

import { isIP } from "node:net";
import { constantTimeEqual } from "../base/constant_time.ts";
import { InputError } from "../base/errors.ts";
import { formatDuration, parseDuration } from "../go/duration.ts";
import { goSplitHostPort } from "../go/net.ts";
import { goQuote } from "../go/quote.ts";
import { goUrlParse } from "../go/url.ts";
import { validateCertificateKey as certificateKeyProblem } from "../pki/aes_gcm.ts";
import { PinSet } from "../pki/pin.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { isValidBootstrapToken } from "../tokens/token.ts";
import { isDns1123Subdomain } from "../kubelet/csr_validation.ts";
import {
  DEFAULT_KUBEADM_VERSION,
  DocReader,
  fieldInvalid,
  fieldRequired,
  KUBEADM_GROUP,
  type KubeadmVersion,
  kubeadmVersionOf,
  WITHHELD,
} from "./api.ts";

/** The kind. */
export const JOIN_KIND = "JoinConfiguration";
/** `DefaultCACertPath` (Linux). */
export const DEFAULT_CA_CERT_PATH = "/etc/kubernetes/pki/ca.crt";
/** `DefaultAPIBindPort`. */
export const DEFAULT_BIND_PORT = 6443;
/** `constants.ControlPlaneTaint`: what a control-plane join gets when `taints` is nil. */
export const CONTROL_PLANE_TAINT: Taint = {
  key: "node-role.kubernetes.io/control-plane",
  effect: "NoSchedule",
};
/** kubeadm's text when a node name is neither given nor detectable. */
export const NODE_NAME_REQUIRED =
  "--node-name or .nodeRegistration.name in the config file is a required value. It seems like this value couldn't be automatically detected in your environment, please specify the desired value using the CLI or config file.";

/** A `corev1.Taint`. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/** A v1beta4 `Arg` (v1beta3 holds these as a map). */
export interface Arg {
  name: string;
  value: string;
}

/** The version-neutral JoinConfiguration (v1beta4's shape). Absent = not given. */
export interface JoinConfig {
  dryRun?: boolean;
  nodeRegistration: {
    name?: string;
    criSocket?: string;
    /** Absent or null: nil (a control-plane join gets the control-plane taint); `[]`: none. */
    taints?: Taint[] | null;
    kubeletExtraArgs?: Arg[];
    ignorePreflightErrors?: string[];
    imagePullPolicy?: string;
    imagePullSerial?: boolean;
  };
  caCertPath?: string;
  discovery: {
    bootstrapToken?: {
      token: string;
      apiServerEndpoint?: string;
      caCertHashes?: string[];
      unsafeSkipCAVerification?: boolean;
    };
    file?: { kubeConfigPath: string };
    tlsBootstrapToken?: string;
  };
  controlPlane?: {
    localAPIEndpoint: { advertiseAddress?: string; bindPort?: number };
    certificateKey?: string;
  };
  skipPhases?: string[];
  patches?: { directory?: string };
  /** v1beta4 `timeouts` as Go duration strings; v1beta3 has only `discovery.timeout`. */
  timeouts?: Record<string, string>;
}

/** The v1beta4 `Timeouts` fields. */
export const TIMEOUT_FIELDS = [
  "controlPlaneComponentHealthCheck",
  "discovery",
  "etcdAPICall",
  "kubeletHealthCheck",
  "kubernetesAPICall",
  "tlsBootstrap",
  "upgradeManifests",
] as const;

/** What {@link renderJoinConfiguration} takes. Every field is optional; absent means "not given". */
export interface JoinConfigOptions {
  /** API version (default v1beta4). */
  version?: KubeadmVersion;
  /** Node name; absent: the node's hostname (kubeadm's dynamic default). Trimmed and lower-cased as kubeadm does. */
  nodeName?: string;
  /** CRI socket URL; absent: detected on the node. A bare `/path` gets `unix://`. */
  criSocket?: string;
  /** Taints; absent: nil (control-plane joins get the control-plane taint); `[]`: none. */
  taints?: readonly Taint[];
  /** Kubelet extra args, in order (v1beta3: a map, the later duplicate wins). */
  kubeletExtraArgs?: readonly Arg[];
  /** Token discovery: the bootstrap token. */
  token?: string;
  /** Token discovery: the API server `HOST:PORT`. */
  apiServerEndpoint?: string;
  /** Token discovery: `sha256:<hex>` pins, one per CA certificate. */
  caCertHashes?: readonly string[];
  /** Token discovery without pins. */
  unsafeSkipCAVerification?: boolean;
  /** File discovery: the kubeconfig's path (or https URL) on the node. */
  discoveryFile?: string;
  /** The TLS bootstrap token (file discovery; with token discovery only when it differs). */
  tlsBootstrapToken?: string;
  /** A control-plane join. */
  controlPlane?: { advertiseAddress?: string; bindPort?: number; certificateKey?: string };
}

/** The version-neutral config for `opts`. */
export function joinConfigFromOptions(opts: JoinConfigOptions): JoinConfig {
  const nr: JoinConfig["nodeRegistration"] = {};
  if (opts.nodeName !== undefined) nr.name = opts.nodeName.trim().toLowerCase();
  if (opts.criSocket !== undefined) {
    // A bare path gets the scheme kubeadm would prepend (with a deprecation warning).
    nr.criSocket = opts.criSocket.startsWith("/") ? `unix://${opts.criSocket}` : opts.criSocket;
  }
  if (opts.taints !== undefined) nr.taints = opts.taints.map((t) => ({ ...t }));
  if (opts.kubeletExtraArgs?.length) {
    nr.kubeletExtraArgs = opts.kubeletExtraArgs.map((a) => ({ ...a }));
  }
  const cfg: JoinConfig = { nodeRegistration: nr, discovery: {} };
  if (opts.token !== undefined || opts.apiServerEndpoint !== undefined) {
    cfg.discovery.bootstrapToken = { token: opts.token ?? "" };
    const bt = cfg.discovery.bootstrapToken;
    if (opts.apiServerEndpoint !== undefined) bt.apiServerEndpoint = opts.apiServerEndpoint;
    if (opts.caCertHashes?.length) bt.caCertHashes = [...opts.caCertHashes];
    if (opts.unsafeSkipCAVerification) bt.unsafeSkipCAVerification = true;
  }
  if (opts.discoveryFile !== undefined) cfg.discovery.file = { kubeConfigPath: opts.discoveryFile };
  if (
    opts.tlsBootstrapToken !== undefined &&
    !constantTimeEqual(opts.tlsBootstrapToken, opts.token ?? "")
  ) {
    cfg.discovery.tlsBootstrapToken = opts.tlsBootstrapToken;
  }
  if (opts.controlPlane) {
    const ep: { advertiseAddress?: string; bindPort?: number } = {};
    if (opts.controlPlane.advertiseAddress !== undefined) {
      ep.advertiseAddress = opts.controlPlane.advertiseAddress;
    }
    if (opts.controlPlane.bindPort !== undefined) ep.bindPort = opts.controlPlane.bindPort;
    cfg.controlPlane = { localAPIEndpoint: ep };
    if (opts.controlPlane.certificateKey !== undefined) {
      cfg.controlPlane.certificateKey = opts.controlPlane.certificateKey;
    }
  }
  return cfg;
}

/**
 * The JoinConfiguration object for `opts`, minimal, as kubeadm's serializer
 * writes it (`discovery` and `nodeRegistration.taints` always present, as
 * their Go fields have no `omitempty`). Pure; not validated: judge it with
 * {@link validateJoinConfiguration}.
 *
 * @example
 * ```ts ignore
 * toYaml(renderJoinConfiguration({ token, apiServerEndpoint: "10.0.0.1:6443", caCertHashes: [pin], nodeName: "worker-1" }));
 * ```
 */
export function renderJoinConfiguration(opts: JoinConfigOptions): KubeObject {
  return joinConfigObject(joinConfigFromOptions(opts), opts.version ?? DEFAULT_KUBEADM_VERSION);
}

/**
 * Serialises a config as `version` (the v1beta3 conversion: the args list
 * becomes a map, the later duplicate winning; `timeouts.discovery` becomes
 * `discovery.timeout`). Fields `version` cannot hold are appended to `dropped`.
 */
export function joinConfigObject(
  cfg: JoinConfig,
  version: KubeadmVersion,
  dropped: string[] = [],
): KubeObject {
  const v4 = version === "v1beta4";
  const out: KubeObject = { apiVersion: `${KUBEADM_GROUP}/${version}`, kind: JOIN_KIND };
  if (cfg.dryRun) {
    if (v4) out.dryRun = true;
    else dropped.push("dryRun");
  }
  const n = cfg.nodeRegistration;
  const nr: Record<string, unknown> = {};
  if (n.name) nr.name = n.name;
  if (n.criSocket) nr.criSocket = n.criSocket;
  nr.taints = n.taints === undefined || n.taints === null ? null : n.taints.map(taintObject);
  if (n.kubeletExtraArgs?.length) {
    if (v4) nr.kubeletExtraArgs = n.kubeletExtraArgs.map((a) => ({ name: a.name, value: a.value }));
    else {
      // convertFromArgs: a repeated name keeps its last value. The earlier ones are lost (a
      // kubelet list flag such as --cluster-dns given twice holds both), so they are reported.
      const m: Record<string, string> = {};
      n.kubeletExtraArgs.forEach((a, i) => {
        if (n.kubeletExtraArgs!.some((b, j) => j > i && b.name === a.name)) {
          dropped.push(`nodeRegistration.kubeletExtraArgs[${i}] (${a.name} repeated)`);
        }
        m[a.name] = a.value;
      });
      nr.kubeletExtraArgs = m;
    }
  }
  if (n.ignorePreflightErrors?.length) nr.ignorePreflightErrors = [...n.ignorePreflightErrors];
  if (n.imagePullPolicy) nr.imagePullPolicy = n.imagePullPolicy;
  if (n.imagePullSerial !== undefined) {
    if (v4) nr.imagePullSerial = n.imagePullSerial;
    else if (!n.imagePullSerial) dropped.push("nodeRegistration.imagePullSerial");
  }
  out.nodeRegistration = nr;
  if (cfg.caCertPath) out.caCertPath = cfg.caCertPath;
  const d: Record<string, unknown> = {};
  const bt = cfg.discovery.bootstrapToken;
  if (bt) {
    const b: Record<string, unknown> = { token: bt.token };
    if (bt.apiServerEndpoint) b.apiServerEndpoint = bt.apiServerEndpoint;
    if (bt.caCertHashes?.length) b.caCertHashes = [...bt.caCertHashes];
    if (bt.unsafeSkipCAVerification) b.unsafeSkipCAVerification = true;
    d.bootstrapToken = b;
  }
  if (cfg.discovery.file) d.file = { kubeConfigPath: cfg.discovery.file.kubeConfigPath };
  if (cfg.discovery.tlsBootstrapToken) d.tlsBootstrapToken = cfg.discovery.tlsBootstrapToken;
  if (!v4 && cfg.timeouts?.discovery) d.timeout = cfg.timeouts.discovery;
  out.discovery = d;
  if (cfg.controlPlane) {
    const ep: Record<string, unknown> = {};
    const l = cfg.controlPlane.localAPIEndpoint;
    if (l.advertiseAddress) ep.advertiseAddress = l.advertiseAddress;
    if (l.bindPort) ep.bindPort = l.bindPort;
    const cp: Record<string, unknown> = { localAPIEndpoint: ep };
    if (cfg.controlPlane.certificateKey) cp.certificateKey = cfg.controlPlane.certificateKey;
    out.controlPlane = cp;
  }
  if (cfg.skipPhases?.length) out.skipPhases = [...cfg.skipPhases];
  if (cfg.patches) out.patches = cfg.patches.directory ? { directory: cfg.patches.directory } : {};
  if (cfg.timeouts) {
    if (v4) {
      if (Object.keys(cfg.timeouts).length) out.timeouts = { ...cfg.timeouts };
    } else {
      for (const k of Object.keys(cfg.timeouts)) {
        if (k !== "discovery") dropped.push(`timeouts.${k}`);
      }
    }
  }
  return out;
}

function taintObject(t: Taint): Record<string, unknown> {
  const o: Record<string, unknown> = { key: t.key, effect: t.effect };
  if (t.value) o.value = t.value;
  if (t.timeAdded) o.timeAdded = t.timeAdded;
  return o;
}

// ---------------------------------------------------------------------------
// Decoding.

/** A decoded JoinConfiguration. */
export interface DecodedJoinConfig {
  config: JoinConfig;
  /** The version it was written in. */
  version: KubeadmVersion;
  /** kubeadm's strict-decoding warnings (unknown fields). */
  warnings: string[];
}

/** A Go duration field (`metav1.Duration`), canonicalised; malformed is bad input. */
function durationField(r: DocReader, v: unknown, path: string): string | undefined {
  const s = r.string(v, path);
  if (s === undefined) return undefined;
  try {
    return formatDuration(parseDuration(s));
  } catch {
    throw new InputError(`${r.source}: ${path}: time: invalid duration ${goQuote(s)}`);
  }
}

/**
 * Decodes one JoinConfiguration document as kubeadm's codec does: kind and
 * apiVersion checked, field types checked, unknown fields reported as
 * warnings, the v1beta3 form converted to the neutral one (the args map
 * sorted by name, `discovery.timeout` → `timeouts.discovery`).
 */
export function decodeJoinConfiguration(obj: unknown, source = "input"): DecodedJoinConfig {
  const r = new DocReader(source);
  const top = r.object(obj, "", [
    "apiVersion",
    "kind",
    "dryRun",
    "nodeRegistration",
    "caCertPath",
    "discovery",
    "controlPlane",
    "skipPhases",
    "patches",
    "timeouts",
  ]) ?? {};
  if (top.kind !== JOIN_KIND) {
    throw new InputError(
      `${source}: kind ${goQuote(String(top.kind ?? ""))} is not a ${JOIN_KIND}`,
    );
  }
  const version = kubeadmVersionOf(top.apiVersion, JOIN_KIND, source);
  const v4 = version === "v1beta4";
  if (!v4 && "dryRun" in top) r.warnings.push(`strict decoding error: unknown field "dryRun"`);
  if (!v4 && "timeouts" in top) r.warnings.push(`strict decoding error: unknown field "timeouts"`);
  const cfg: JoinConfig = { nodeRegistration: {}, discovery: {} };
  const dry = v4 ? r.bool(top.dryRun, "dryRun") : undefined;
  if (dry !== undefined) cfg.dryRun = dry;

  const nrKnown = [
    "name",
    "criSocket",
    "taints",
    "kubeletExtraArgs",
    "ignorePreflightErrors",
    "imagePullPolicy",
    ...(v4 ? ["imagePullSerial"] : []),
  ];
  const nr = r.object(top.nodeRegistration, "nodeRegistration", nrKnown) ?? {};
  const n = cfg.nodeRegistration;
  const setStr = <K extends string>(o: Record<K, unknown>, k: K, v: string | undefined) => {
    if (v !== undefined) o[k] = v;
  };
  setStr(n as Record<string, unknown>, "name", r.string(nr.name, "nodeRegistration.name"));
  setStr(
    n as Record<string, unknown>,
    "criSocket",
    r.string(nr.criSocket, "nodeRegistration.criSocket"),
  );
  const taints = r.list(nr.taints, "nodeRegistration.taints");
  if (taints === null) n.taints = null;
  else if (taints !== undefined) {
    n.taints = taints.map((t, i) => {
      const p = `nodeRegistration.taints[${i}]`;
      const o = r.object(t, p, ["key", "value", "effect", "timeAdded"]) ?? {};
      const taint: Taint = {
        key: r.string(o.key, `${p}.key`) ?? "",
        effect: r.string(o.effect, `${p}.effect`) ?? "",
      };
      const value = r.string(o.value, `${p}.value`);
      if (value) taint.value = value;
      const added = r.time(o.timeAdded, `${p}.timeAdded`);
      if (added) taint.timeAdded = added;
      return taint;
    });
  }
  if (nr.kubeletExtraArgs !== undefined && nr.kubeletExtraArgs !== null) {
    const p = "nodeRegistration.kubeletExtraArgs";
    if (v4) {
      const items = r.list(nr.kubeletExtraArgs, p) ?? [];
      n.kubeletExtraArgs = items.map((a, i) => {
        const o = r.object(a, `${p}[${i}]`, ["name", "value"]) ?? {};
        return {
          name: r.string(o.name, `${p}[${i}].name`) ?? "",
          value: r.string(o.value, `${p}[${i}].value`) ?? "",
        };
      });
    } else {
      const m = r.object(nr.kubeletExtraArgs, p, Object.keys(nr.kubeletExtraArgs as object)) ?? {};
      // convertToArgs: sorted by name, then value.
      n.kubeletExtraArgs = Object.keys(m).map((k) => ({
        name: k,
        value: r.string(m[k], `${p}.${k}`) ?? "",
      })).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : a.value < b.value ? -1 : 1);
    }
  }
  const ipe = r.strings(nr.ignorePreflightErrors, "nodeRegistration.ignorePreflightErrors");
  if (ipe !== undefined) n.ignorePreflightErrors = ipe;
  setStr(
    n as Record<string, unknown>,
    "imagePullPolicy",
    r.string(nr.imagePullPolicy, "nodeRegistration.imagePullPolicy"),
  );
  if (v4) {
    const serial = r.bool(nr.imagePullSerial, "nodeRegistration.imagePullSerial");
    if (serial !== undefined) n.imagePullSerial = serial;
  }

  const ca = r.string(top.caCertPath, "caCertPath");
  if (ca !== undefined) cfg.caCertPath = ca;

  const d = r.object(top.discovery, "discovery", [
    "bootstrapToken",
    "file",
    "tlsBootstrapToken",
    ...(v4 ? [] : ["timeout"]),
  ]) ?? {};
  const bto = r.object(d.bootstrapToken, "discovery.bootstrapToken", [
    "token",
    "apiServerEndpoint",
    "caCertHashes",
    "unsafeSkipCAVerification",
  ]);
  if (bto) {
    const p = "discovery.bootstrapToken";
    const bt: NonNullable<JoinConfig["discovery"]["bootstrapToken"]> = {
      token: r.string(bto.token, `${p}.token`) ?? "",
    };
    const ep = r.string(bto.apiServerEndpoint, `${p}.apiServerEndpoint`);
    if (ep !== undefined) bt.apiServerEndpoint = ep;
    const hashes = r.strings(bto.caCertHashes, `${p}.caCertHashes`);
    if (hashes !== undefined) bt.caCertHashes = hashes;
    const unsafe = r.bool(bto.unsafeSkipCAVerification, `${p}.unsafeSkipCAVerification`);
    if (unsafe !== undefined) bt.unsafeSkipCAVerification = unsafe;
    cfg.discovery.bootstrapToken = bt;
  }
  const fo = r.object(d.file, "discovery.file", ["kubeConfigPath"]);
  if (fo) {
    cfg.discovery.file = {
      kubeConfigPath: r.string(fo.kubeConfigPath, "discovery.file.kubeConfigPath") ?? "",
    };
  }
  const tls = r.string(d.tlsBootstrapToken, "discovery.tlsBootstrapToken");
  if (tls !== undefined) cfg.discovery.tlsBootstrapToken = tls;
  if (!v4) {
    const t = durationField(r, d.timeout, "discovery.timeout");
    if (t !== undefined) cfg.timeouts = { discovery: t };
  }

  const cpo = r.object(top.controlPlane, "controlPlane", ["localAPIEndpoint", "certificateKey"]);
  if (cpo) {
    const lo = r.object(cpo.localAPIEndpoint, "controlPlane.localAPIEndpoint", [
      "advertiseAddress",
      "bindPort",
    ]) ?? {};
    const ep: { advertiseAddress?: string; bindPort?: number } = {};
    const addr = r.string(lo.advertiseAddress, "controlPlane.localAPIEndpoint.advertiseAddress");
    if (addr !== undefined) ep.advertiseAddress = addr;
    const port = r.int32(lo.bindPort, "controlPlane.localAPIEndpoint.bindPort");
    if (port !== undefined) ep.bindPort = port;
    cfg.controlPlane = { localAPIEndpoint: ep };
    const key = r.string(cpo.certificateKey, "controlPlane.certificateKey");
    if (key !== undefined) cfg.controlPlane.certificateKey = key;
  }
  const skip = r.strings(top.skipPhases, "skipPhases");
  if (skip !== undefined) cfg.skipPhases = skip;
  const po = r.object(top.patches, "patches", ["directory"]);
  if (po) {
    const dir = r.string(po.directory, "patches.directory");
    cfg.patches = dir !== undefined ? { directory: dir } : {};
  }
  if (v4) {
    const to = r.object(top.timeouts, "timeouts", TIMEOUT_FIELDS);
    if (to) {
      const t: Record<string, string> = {};
      for (const k of TIMEOUT_FIELDS) {
        const v = durationField(r, to[k], `timeouts.${k}`);
        if (v !== undefined) t[k] = v;
      }
      cfg.timeouts = t;
    }
  }
  return { config: cfg, version, warnings: r.warnings };
}

// ---------------------------------------------------------------------------
// Validation.

/** `ValidateToken`; the value is withheld (it is a secret). */
function validateToken(token: string, path: string): string[] {
  return isValidBootstrapToken(token)
    ? []
    : [fieldInvalid(path, WITHHELD, "the bootstrap token is invalid")];
}

/**
 * `ValidateSocketPath`.
 *
 * @example
 * ```ts
 * validateSocketPath("unix:///some/path", "criSocket"); // []
 * ```
 */
export function validateSocketPath(socket: string, path: string): string[] {
  if (socket === "") return [fieldInvalid(path, socket, "empty CRI socket")];
  const u = goUrlParse(socket);
  if (!u.ok) return [fieldInvalid(path, socket, `URL parsing error: ${u.error}`)];
  if (u.scheme !== "unix") {
    return [
      fieldInvalid(path, socket, `only URL scheme "unix" is supported, got ${goQuote(u.scheme)}`),
    ];
  }
  return [];
}

/**
 * `ValidateDiscoveryKubeConfigPath`. A path without a scheme is a file on the
 * node: kubeadm checks that it exists there (`os.Stat`); pass `fileExists`
 * to do the same, else the file is taken to be there.
 */
export function validateDiscoveryKubeConfigPath(
  file: string,
  path: string,
  fileExists?: (p: string) => boolean,
): string[] {
  const u = goUrlParse(file);
  if (!u.ok) return [fieldInvalid(path, file, "not a valid HTTPS URL or a file on disk")];
  if (u.scheme === "") {
    if (fileExists && !fileExists(file)) {
      return [fieldInvalid(path, file, "not a valid HTTPS URL or a file on disk")];
    }
    return [];
  }
  if (u.scheme !== "https") {
    return [fieldInvalid(path, file, "if a URL is used, the scheme must be https")];
  }
  return [];
}

/** `ValidateDiscoveryTokenAPIServer`. */
export function validateDiscoveryTokenAPIServer(endpoint: string, path: string): string[] {
  const r = goSplitHostPort(endpoint);
  return r.ok ? [] : [fieldInvalid(path, endpoint, r.error)];
}

/**
 * `ValidateCertificateKey` (empty is allowed). The key is a secret: the
 * value is withheld from the message (kubeadm prints it).
 *
 * @example
 * ```ts
 * validateCertificateKey("e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204", "k"); // []
 * ```
 */
export function validateCertificateKey(key: string, path: string): string[] {
  if (key === "") return [];
  const detail = certificateKeyProblem(key);
  return detail === undefined ? [] : [fieldInvalid(path, WITHHELD, detail)];
}

/** `ValidateExtraArgs`. */
export function validateExtraArgs(args: readonly Arg[], path: string): string[] {
  return args.flatMap((a, i) =>
    a.name === "" ? [fieldInvalid(path, `index ${i}`, "argument has no name")] : []
  );
}

/** Go's `net.ParseIP` succeeds (no zones; IPv4 without leading zeros, as Go 1.17+). */
function goIsIP(s: string): boolean {
  return !s.includes("%") && isIP(s) !== 0;
}

/**
 * `ValidateIgnorePreflightErrors(cli, config)`: the names lower-cased and
 * deduplicated (sorted), and kubeadm's error when `all` comes with others.
 *
 * @example
 * ```ts
 * validateIgnorePreflightErrors([], ["a", "b", "a"]).names; // ["a", "b"]
 * ```
 */
export function validateIgnorePreflightErrors(
  fromCli: readonly string[],
  fromConfig: readonly string[],
): { names: string[]; errors: string[] } {
  const names = [...new Set([...fromConfig, ...fromCli].map((n) => n.toLowerCase()))].sort();
  const errors = names.includes("all") && names.length > 1
    ? [
      fieldInvalid(
        "ignore-preflight-errors",
        names.join(","),
        "don't specify individual checks if 'all' is used",
      ),
    ]
    : [];
  return { names, errors };
}

/** `ValidateAPIEndpoint`: `ParseIPSloppy` (leading zeros allowed in IPv4) and the port range. */
export function validateAPIEndpoint(
  ep: { advertiseAddress?: string; bindPort?: number },
  path: string,
): string[] {
  const errs: string[] = [];
  const addr = ep.advertiseAddress ?? "";
  const sloppy = /^\d+(\.\d+){3}$/.test(addr)
    ? addr.split(".").map((o) => String(Number(o))).join(".")
    : addr;
  if (!goIsIP(sloppy)) {
    errs.push(fieldInvalid(`${path}.advertiseAddress`, addr, "ip address is not valid"));
  }
  const port = ep.bindPort ?? 0;
  if (port < 1 || port > 65535) {
    errs.push(fieldInvalid(`${path}.bindPort`, port, "port number is not valid"));
  }
  return errs;
}

/** Options of {@link validateJoinConfig}. */
export interface JoinValidationOptions {
  /** Checks that a discovery file exists (kubeadm's `os.Stat` on the node); absent: assumed. */
  fileExists?: (path: string) => boolean;
  /** Also `ValidateIgnorePreflightErrors`, as `kubeadm join` does next (default true). */
  preflightList?: boolean;
  /**
   * Also what `kubeadm join` refuses after validation, before it dials
   * anything (default true): malformed `caCertHashes` (`pubkeypin.Set.Allow`,
   * "invalid discovery token CA certificate hash: …"), and file discovery
   * without a TLS bootstrap token when the discovery file has no
   * credentials (known only with `discoveryFileHasCredentials`).
   */
  joinTime?: boolean;
  /**
   * Whether the discovery file's current user carries credentials
   * (`HasAuthenticationCredentials`); absent: the file is not at hand.
   */
  discoveryFileHasCredentials?: boolean;
}

/** kubeadm join's text when file discovery has neither credentials nor a TLS bootstrap token. */
export const NO_DISCOVERY_CREDENTIALS =
  "could not find authentication credentials for the TLS bootstrap process. Please use Token discovery, a discovery file with embedded authentication credentials or a discovery file without authentication credentials but with the TLSBootstrapToken flag";

/**
 * What `kubeadm join` refuses after `ValidateJoinConfiguration` and before
 * it reaches the cluster (see {@link JoinValidationOptions.joinTime}).
 */
export function joinTimeProblems(cfg: JoinConfig, opts: JoinValidationOptions = {}): string[] {
  const bt = cfg.discovery.bootstrapToken;
  if (bt?.caCertHashes?.length) {
    try {
      new PinSet().allow(...bt.caCertHashes);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      return [`invalid discovery token CA certificate hash: ${e.message}`];
    }
  }
  if (
    cfg.discovery.file && !bt && (cfg.discovery.tlsBootstrapToken ?? "") === "" &&
    opts.discoveryFileHasCredentials === false
  ) {
    return [NO_DISCOVERY_CREDENTIALS];
  }
  return [];
}

/**
 * The fields kubeadm fills on the node when they are absent (dynamic
 * defaults joinkit cannot know): validation takes them as filled.
 */
export function nodeDefaultedFields(cfg: JoinConfig): string[] {
  const out: string[] = [];
  if (!cfg.nodeRegistration.name) out.push("nodeRegistration.name (the node's hostname)");
  if (!cfg.nodeRegistration.criSocket) out.push("nodeRegistration.criSocket (detected)");
  if (cfg.controlPlane && !cfg.controlPlane.localAPIEndpoint.advertiseAddress) {
    out.push("controlPlane.localAPIEndpoint.advertiseAddress (the default route's address)");
  }
  return out;
}

/**
 * kubeadm's judgement of a JoinConfiguration: static defaults
 * (`SetDefaults_JoinConfiguration`), the dynamic defaults that need no host
 * (`SetJoinDynamicDefaults`: the name trimmed and lower-cased, `unix://`
 * before a bare socket path, the advertise address parsed), then
 * `ValidateJoinConfiguration`. Returns the error texts, `[]` when valid;
 * join them with `aggregateErrors` for kubeadm's one-line form. Fields the
 * node fills in ({@link nodeDefaultedFields}) are taken as filled. Secret
 * values are withheld from the texts.
 */
export function validateJoinConfig(cfg: JoinConfig, opts: JoinValidationOptions = {}): string[] {
  // Static defaults.
  const caCertPath = cfg.caCertPath || DEFAULT_CA_CERT_PATH;
  const bt = cfg.discovery.bootstrapToken;
  let tls = cfg.discovery.tlsBootstrapToken ?? "";
  if (bt && tls === "") tls = bt.token;
  let kubeConfigPath = cfg.discovery.file?.kubeConfigPath;
  if (kubeConfigPath) {
    const u = goUrlParse(kubeConfigPath);
    if (u.ok && u.scheme === "file") kubeConfigPath = u.path;
  }
  const cp = cfg.controlPlane;
  const bindPort = cp ? cp.localAPIEndpoint.bindPort || DEFAULT_BIND_PORT : undefined;

  // Dynamic defaults (the ones that can fail without the host).
  const n = cfg.nodeRegistration;
  let name: string | undefined;
  if (n.name !== undefined && n.name !== "") {
    name = n.name.trim().toLowerCase();
    if (name === "") return ["empty hostname is invalid"];
  }
  let socket = n.criSocket || undefined;
  if (socket !== undefined && !socket.startsWith("unix")) socket = `unix://${socket}`;
  let advertise: string | undefined;
  if (cp?.localAPIEndpoint.advertiseAddress) {
    const a = cp.localAPIEndpoint.advertiseAddress;
    if (!goIsIP(a)) {
      return [
        `couldn't use ${goQuote(a)} as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
      ];
    }
    advertise = a;
  }

  // ValidateDiscovery.
  const errs: string[] = [];
  const file = cfg.discovery.file;
  if (!bt && !file) errs.push(fieldInvalid("discovery", "", "bootstrapToken or file must be set"));
  if (bt && file) {
    errs.push(fieldInvalid("discovery", "", "bootstrapToken and file cannot both be set"));
  }
  if (bt) {
    const p = "discovery.bootstrapToken";
    if (!bt.apiServerEndpoint) errs.push(fieldRequired(p, "APIServerEndpoint is not set"));
    if (!bt.caCertHashes?.length && !bt.unsafeSkipCAVerification) {
      errs.push(
        fieldInvalid(
          `${p}.caCertHashes`,
          "",
          "using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue",
        ),
      );
    }
    errs.push(...validateToken(bt.token, `${p}.token`));
    errs.push(
      ...validateDiscoveryTokenAPIServer(bt.apiServerEndpoint ?? "", `${p}.apiServerEndpoint`),
    );
    errs.push(...validateToken(tls, "discovery.tlsBootstrapToken"));
  }
  if (file) {
    errs.push(
      ...validateDiscoveryKubeConfigPath(
        kubeConfigPath ?? "",
        "discovery.file.kubeConfigPath",
        opts.fileExists,
      ),
    );
    if (tls !== "") errs.push(...validateToken(tls, "discovery.tlsBootstrapToken"));
  }

  // ValidateNodeRegistrationOptions.
  if (name !== undefined) {
    for (const e of isDns1123Subdomain(name)) {
      errs.push(fieldInvalid("nodeRegistration.name", name, e));
    }
  }
  if (socket !== undefined) errs.push(...validateSocketPath(socket, "nodeRegistration.criSocket"));
  errs.push(...validateExtraArgs(n.kubeletExtraArgs ?? [], "nodeRegistration.kubeletExtraArgs"));
  const policy = n.imagePullPolicy ?? "";
  if (!["", "Always", "IfNotPresent", "Never"].includes(policy)) {
    errs.push(fieldInvalid("nodeRegistration.imagePullPolicy", policy, "invalid pull policy"));
  }

  // ValidateJoinControlPlane.
  if (cp) {
    const p = "controlPlane.localAPIEndpoint";
    // An absent address is the node's default-route address: valid by construction.
    const ep = {
      advertiseAddress: advertise ?? "0.0.0.0",
      bindPort: bindPort ?? DEFAULT_BIND_PORT,
    };
    errs.push(...validateAPIEndpoint(ep, p));
    errs.push(...validateCertificateKey(cp.certificateKey ?? "", "controlPlane.certificateKey"));
  }

  if (!caCertPath.startsWith("/") || !caCertPath.endsWith(".crt")) {
    errs.push(
      fieldInvalid("caCertPath", caCertPath, "the ca certificate path must be an absolute path"),
    );
  }
  if (errs.length) return errs;
  if (opts.preflightList !== false) {
    // Then kubeadm join checks the preflight list (newJoinData): the config's, no flags here.
    const e = validateIgnorePreflightErrors([], n.ignorePreflightErrors ?? []).errors;
    if (e.length) return e;
  }
  return opts.joinTime === false ? [] : joinTimeProblems(cfg, opts);
}

/**
 * Decodes and judges a JoinConfiguration document: `[]` when kubeadm would
 * accept it, else the error texts. A document that is not a
 * JoinConfiguration of a known version, or does not decode, throws an
 * `InputError`.
 *
 * @example
 * ```ts ignore
 * validateJoinConfiguration(renderJoinConfiguration(opts)); // []
 * ```
 */
export function validateJoinConfiguration(
  obj: unknown,
  source = "input",
  opts: JoinValidationOptions = {},
): string[] {
  return validateJoinConfig(decodeJoinConfiguration(obj, source).config, opts);
}
