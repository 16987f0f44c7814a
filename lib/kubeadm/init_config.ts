/**
 * kubeadm's `InitConfiguration` stream (v1beta4, v1beta3; with or without a
 * `ClusterConfiguration`), read as kubeadm v1.32 reads it
 * (k/k `util/config/initconfiguration.go` `documentMapToInitConfiguration`):
 * versions checked, each document decoded field by field (types checked;
 * unknown fields are warnings, as `kubeadm init --config` logs them, or
 * errors with `strict`, as `kubeadm config validate` refuses them),
 * statically defaulted (`v1beta4/defaults.go`, `bootstraptoken/v1`),
 * dynamically defaulted where no host is needed, then judged with
 * `ValidateInitConfiguration` (node registration, bootstrap tokens, the
 * whole `ValidateClusterConfiguration`, the local API endpoint, the
 * certificate key), with kubeadm's texts; token values and certificate
 * keys are withheld from them.
 *
 * {@link readInitConfiguration} returns {@link InitFileConfig}; its
 * `config` field ({@link InitConfig}, with `cluster`: a `ClusterConfig`
 * from `cluster_config.ts`) is the parsed, defaulted, validated whole.
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { aggregateErrors } from "../go/aggregate.ts";
import { formatDuration, parseDuration } from "../go/duration.ts";
import { goQuote } from "../go/quote.ts";
import { tryParseRfc3339 } from "../go/time.ts";
import { type KubeObject, parseManifests } from "../k8s/manifest.ts";
import { validateCertificateKey as certificateKeyProblem } from "../pki/aes_gcm.ts";
import { DEFAULT_TTL_MS, validateBootstrapToken } from "../tokens/bootstrap_token.ts";
import {
  KNOWN_USAGES,
  newBootstrapTokenString,
  NODE_BOOTSTRAP_TOKEN_GROUP,
  type Token,
} from "../tokens/token.ts";
import { isDns1123Subdomain } from "../kubelet/csr_validation.ts";
import {
  checkKubeadmDocumentSplit,
  DocReader,
  fieldInvalid,
  fieldRequired,
  KUBEADM_GROUP,
  type KubeadmVersion,
  kubeadmVersionOf,
  WITHHELD,
} from "./api.ts";
import {
  type ClusterConfig,
  decodeClusterConfiguration,
  readArgs,
  setClusterDynamicDefaults,
  validateClusterConfiguration,
} from "./cluster_config.ts";
import {
  type Arg,
  hostPortError,
  parseIpSloppy,
  validateAPIEndpoint,
  validateExtraArgs,
  validateImagePullPolicy,
} from "./validation.ts";
import { validateSocketPath } from "./join_config.ts";

/** `InitConfigurationKind`. */
export const INIT_KIND = "InitConfiguration";
/** `ClusterConfigurationKind`. */
export const CLUSTER_KIND = "ClusterConfiguration";
/** `DefaultAPIBindPort`. */
const DEFAULT_BIND_PORT = 6443;

/** One `bootstrapTokens[i]`, defaulted (TTL 24h when unset, both usages, the node group). */
export interface InitBootstrapToken {
  /** Absent: kubeadm generates one at run time (`SetBootstrapTokensDynamicDefaults`). */
  token?: Token;
  description?: string;
  /** Always set after defaulting (24h when the file has none). */
  ttlMs: number;
  expires?: Date;
  usages: string[];
  groups: string[];
}

/** A `corev1.Taint` as the file gives it. */
export interface InitTaint {
  key: string;
  value?: string;
  effect: string;
}

/**
 * A parsed, defaulted and validated InitConfiguration with its
 * ClusterConfiguration (kubeadm's internal `InitConfiguration`).
 */
export interface InitConfig {
  /** The tokens, at least one (`[{}]` defaulted when the file has none). */
  bootstrapTokens: InitBootstrapToken[];
  dryRun: boolean;
  nodeRegistration: {
    /**
     * Trimmed and lower-cased (`GetHostname`); from the file, else the
     * `nodeName`/`hostname` option; absent when neither gave one (kubeadm
     * then takes the host's name).
     */
    name?: string;
    /** With `unix://` prepended to a bare path; absent: detected on the host. */
    criSocket?: string;
    /** null: nil (the control-plane taint is applied); `[]`: none. */
    taints: InitTaint[] | null;
    kubeletExtraArgs: Arg[];
    ignorePreflightErrors: string[];
    /** Default `IfNotPresent`. */
    imagePullPolicy: string;
    /** Default true. */
    imagePullSerial: boolean;
  };
  localAPIEndpoint: {
    /** Absent: the host's default-route address (kubeadm's dynamic default). */
    advertiseAddress?: string;
    /** Default 6443. */
    bindPort: number;
  };
  /** `""` when unset (kubeadm generates one for `--upload-certs`). */
  certificateKey: string;
  skipPhases: string[];
  patchesDirectory?: string;
  /** v1beta4 `timeouts` as Go duration strings (only those the file sets). */
  timeouts: Record<string, string>;
  /** The ClusterConfiguration (all defaults when the stream had none). */
  cluster: ClusterConfig;
}

/** What {@link readInitConfiguration} found. */
export interface InitFileConfig {
  /** The InitConfiguration's version (the ClusterConfiguration's when only that is present). */
  version: KubeadmVersion;
  /** The tokens, at least one (the same array as `config.bootstrapTokens`). */
  bootstrapTokens: InitBootstrapToken[];
  /** `controlPlaneEndpoint` as written, when set. */
  controlPlaneEndpoint?: string;
  /** The join endpoint `HOST:PORT` kubeadm derives (`GetControlPlaneEndpoint`), when the file fixes one. */
  joinEndpoint?: string;
  /** Warnings kubeadm would print (unknown fields, ignored documents, deprecated version, validity periods). */
  warnings: string[];
  /** The whole configuration, parsed, defaulted and validated. */
  config: InitConfig;
}

/** Options of {@link readInitConfiguration}. */
export interface InitReadOptions {
  /**
   * `kubeadm config validate`'s decoder: unknown fields are errors
   * (`strict decoding error: unknown field "…"`). Default false: kubeadm
   * init's, which only warns.
   */
  strict?: boolean;
  /** `--node-name`: overrides `nodeRegistration.name`. */
  nodeName?: string;
  /** The host's name, used when the file has no node name (kubeadm: `os.Hostname()`). */
  hostname?: string;
}

const INIT_FIELDS_V4 = [
  "apiVersion",
  "kind",
  "bootstrapTokens",
  "dryRun",
  "nodeRegistration",
  "localAPIEndpoint",
  "certificateKey",
  "skipPhases",
  "patches",
  "timeouts",
];
const INIT_FIELDS_V3 = INIT_FIELDS_V4.filter((f) => f !== "dryRun" && f !== "timeouts");
const TOKEN_FIELDS = ["token", "description", "ttl", "expires", "usages", "groups"];
/** The fields of v1beta4's `Timeouts` (InitConfiguration, JoinConfiguration, ResetConfiguration). */
export const TIMEOUT_FIELDS = [
  "controlPlaneComponentHealthCheck",
  "discovery",
  "etcdAPICall",
  "kubeletHealthCheck",
  "kubernetesAPICall",
  "tlsBootstrap",
  "upgradeManifests",
];

/**
 * kubeadm's `ParseHostPort` as callers of the init reader use it: the
 * error text, or undefined when `hostport` is an IP or DNS-1123 subdomain
 * with an optional port 1–65535 (the rule itself: `validation.ts`
 * `hostPortError`).
 */
export function parseHostPortError(hostport: string): string | undefined {
  return hostPortError(hostport);
}

/** `net.JoinHostPort`. */
function joinHostPort(host: string, port: string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * kubeadm's `SplitYAMLDocuments` checks: every document has a group, a
 * version and a kind (a core `v1` object is refused too), and no kind comes
 * twice. Throws kubeadm's text as an `InputError` prefixed by `source`.
 */
export function splitYamlDocuments(docs: readonly KubeObject[], source: string): void {
  const kinds = new Set<string>();
  const twice: string[] = [];
  for (const doc of docs) {
    const apiVersion = typeof doc.apiVersion === "string" ? doc.apiVersion : "";
    const kind = typeof doc.kind === "string" ? doc.kind : "";
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (group === "" || version === "" || kind === "") {
      throw new InputError(
        `${source}: invalid configuration for GroupVersionKind ${group}/${version}, Kind=${kind}: kind and apiVersion is mandatory information that must be specified`,
      );
    }
    if (kinds.has(kind)) {
      twice.push(`invalid configuration: kind ${goQuote(kind)} is specified twice in YAML file`);
    }
    kinds.add(kind);
  }
  if (twice.length) throw new InputError(`${source}: ${aggregateErrors(twice)}`);
}

/**
 * A kubeadm configuration file's documents, split as kubeadm's `SplitYAMLDocuments` splits them
 * before any decoding: a piece holding no document, text after `---`, or a JSON document that is
 * not strict JSON is refused with kubeadm's text (`checkKubeadmDocumentSplit`), then every
 * document needs a group, a version and a kind, and no kind may come twice (`splitYamlDocuments`).
 * The one reader of a kubeadm file for every command that takes `--config`.
 *
 * @example
 * ```ts
 * import { readKubeadmDocuments } from "./init_config.ts";
 * const docs = readKubeadmDocuments(
 *   "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n",
 *   "cluster.yaml",
 * );
 * docs.length; // 1
 * ```
 */
export function readKubeadmDocuments(text: string, source: string): KubeObject[] {
  checkKubeadmDocumentSplit(text, source);
  const docs = parseManifests(text, source);
  splitYamlDocuments(docs, source);
  return docs;
}

/** Picks the Init/Cluster documents as `documentMapToInitConfiguration` does. */
function pickDocuments(docs: readonly KubeObject[], source: string, warnings: string[]) {
  let init: Record<string, unknown> | undefined;
  let cluster: Record<string, unknown> | undefined;
  let initVersion: KubeadmVersion | undefined;
  let clusterVersion: KubeadmVersion | undefined;
  splitYamlDocuments(docs, source);
  for (const doc of docs) {
    const apiVersion = String(doc.apiVersion);
    const kind = String(doc.kind);
    const gvk = `${apiVersion}, Kind=${kind}`;
    const group = apiVersion.split("/")[0];
    if (group === KUBEADM_GROUP && (kind === INIT_KIND || kind === CLUSTER_KIND)) {
      const v = kubeadmVersionOf(apiVersion, kind, source);
      if (kind === INIT_KIND) {
        init = doc;
        initVersion = v;
      } else {
        cluster = doc;
        clusterVersion = v;
      }
      if (v === "v1beta3") {
        warnings.push(
          `your configuration file uses a deprecated API spec: ${goQuote(apiVersion)} (kind: ${
            goQuote(kind)
          }). Please use 'kubeadm config migrate --old-config old.yaml --new-config new.yaml', which will write the new, similar spec using a newer API version.`,
        );
      }
    } else if (group === KUBEADM_GROUP) {
      kubeadmVersionOf(apiVersion, kind, source); // old versions are refused whatever the kind
      if (
        kind !== "JoinConfiguration" && kind !== "ResetConfiguration" &&
        kind !== "UpgradeConfiguration"
      ) {
        warnings.push(`[config] WARNING: Ignored YAML document with GroupVersionKind ${gvk}`);
      }
    } else if (group !== "kubelet.config.k8s.io" && group !== "kubeproxy.config.k8s.io") {
      warnings.push(`[config] WARNING: Ignored YAML document with GroupVersionKind ${gvk}`);
    }
  }
  if (!init && !cluster) {
    throw new InputError(
      `${source}: no ${INIT_KIND} or ${CLUSTER_KIND} kind was found in the YAML file`,
    );
  }
  return { init, cluster, initVersion, clusterVersion };
}

/** Decodes `bootstrapTokens` and applies `SetDefaults_BootstrapTokens`. */
function readTokens(r: DocReader, v: unknown): InitBootstrapToken[] {
  const source = r.source;
  const list = r.list(v, "bootstrapTokens") ?? [];
  const tokens: InitBootstrapToken[] = list.map((item, i) => {
    const p = `bootstrapTokens[${i}]`;
    const o = r.object(item, p, TOKEN_FIELDS) ?? {};
    const t: InitBootstrapToken = {
      ttlMs: DEFAULT_TTL_MS,
      usages: [...KNOWN_USAGES],
      groups: [NODE_BOOTSTRAP_TOKEN_GROUP],
    };
    const tokenText = o.token === null ? undefined : r.string(o.token, `${p}.token`);
    if (tokenText !== undefined && tokenText !== "") {
      try {
        t.token = newBootstrapTokenString(tokenText);
      } catch (e) {
        throw new InputError(`${source}: ${p}.token: ${(e as Error).message}`);
      }
    }
    const description = r.string(o.description, `${p}.description`);
    if (description) t.description = description;
    const ttl = r.string(o.ttl, `${p}.ttl`);
    if (ttl !== undefined) {
      try {
        t.ttlMs = parseDuration(ttl);
      } catch {
        throw new InputError(`${source}: ${p}.ttl: time: invalid duration ${goQuote(ttl)}`);
      }
    }
    const expires = r.string(o.expires, `${p}.expires`);
    if (expires !== undefined) {
      const d = tryParseRfc3339(expires);
      if (d === undefined) {
        throw new InputError(
          `${source}: ${p}.expires: parsing time ${
            goQuote(expires)
          } as "2006-01-02T15:04:05Z07:00": not RFC 3339`,
        );
      }
      t.expires = d;
    }
    const usages = r.strings(o.usages, `${p}.usages`);
    if (usages?.length) t.usages = usages;
    const groups = r.strings(o.groups, `${p}.groups`);
    if (groups?.length) t.groups = groups;
    return t;
  });
  if (tokens.length === 0) {
    tokens.push({
      ttlMs: DEFAULT_TTL_MS,
      usages: [...KNOWN_USAGES],
      groups: [NODE_BOOTSTRAP_TOKEN_GROUP],
    });
  }
  return tokens;
}

/** Decodes the InitConfiguration document (absent: all defaults). */
function decodeInit(
  r: DocReader,
  doc: Record<string, unknown> | undefined,
  version: KubeadmVersion,
): Omit<InitConfig, "cluster"> {
  const v4 = version === "v1beta4";
  const top = doc ? r.object(doc, "", v4 ? INIT_FIELDS_V4 : INIT_FIELDS_V3) ?? {} : {};
  const nro = r.object(top.nodeRegistration, "nodeRegistration", [
    "name",
    "criSocket",
    "taints",
    "kubeletExtraArgs",
    "ignorePreflightErrors",
    "imagePullPolicy",
    ...(v4 ? ["imagePullSerial"] : []),
  ]) ?? {};
  const taintList = r.list(nro.taints, "nodeRegistration.taints");
  const taints = taintList === undefined || taintList === null ? null : taintList.map((t, i) => {
    const p = `nodeRegistration.taints[${i}]`;
    const o = r.object(t, p, ["key", "value", "effect", "timeAdded"]) ?? {};
    const taint: InitTaint = {
      key: r.string(o.key, `${p}.key`) ?? "",
      effect: r.string(o.effect, `${p}.effect`) ?? "",
    };
    const value = r.string(o.value, `${p}.value`);
    if (value) taint.value = value;
    r.time(o.timeAdded, `${p}.timeAdded`);
    return taint;
  });
  const name = r.string(nro.name, "nodeRegistration.name");
  const socket = r.string(nro.criSocket, "nodeRegistration.criSocket");
  const lo = r.object(top.localAPIEndpoint, "localAPIEndpoint", ["advertiseAddress", "bindPort"]) ??
    {};
  const advertise = r.string(lo.advertiseAddress, "localAPIEndpoint.advertiseAddress");
  const po = r.object(top.patches, "patches", ["directory"]);
  const patchesDirectory = po ? r.string(po.directory, "patches.directory") : undefined;
  const timeouts: Record<string, string> = {};
  if (v4) {
    const to = r.object(top.timeouts, "timeouts", TIMEOUT_FIELDS) ?? {};
    for (const k of TIMEOUT_FIELDS) {
      const s = r.string(to[k], `timeouts.${k}`);
      if (s === undefined) continue;
      try {
        timeouts[k] = formatDuration(parseDuration(s));
      } catch {
        throw new InputError(`${r.source}: timeouts.${k}: time: invalid duration ${goQuote(s)}`);
      }
    }
  }
  const out: Omit<InitConfig, "cluster"> = {
    bootstrapTokens: readTokens(r, top.bootstrapTokens),
    dryRun: (v4 ? r.bool(top.dryRun, "dryRun") : undefined) ?? false,
    nodeRegistration: {
      taints,
      kubeletExtraArgs: readArgs(
        r,
        nro.kubeletExtraArgs,
        "nodeRegistration.kubeletExtraArgs",
        version,
      ),
      ignorePreflightErrors:
        r.strings(nro.ignorePreflightErrors, "nodeRegistration.ignorePreflightErrors") ??
          [],
      imagePullPolicy: r.string(nro.imagePullPolicy, "nodeRegistration.imagePullPolicy") ||
        "IfNotPresent",
      imagePullSerial:
        (v4 ? r.bool(nro.imagePullSerial, "nodeRegistration.imagePullSerial") : undefined) ??
          true,
    },
    localAPIEndpoint: {
      bindPort: r.int32(lo.bindPort, "localAPIEndpoint.bindPort") || DEFAULT_BIND_PORT,
    },
    certificateKey: r.string(top.certificateKey, "certificateKey") ?? "",
    skipPhases: r.strings(top.skipPhases, "skipPhases") ?? [],
    timeouts,
  };
  if (name !== undefined && name !== "") out.nodeRegistration.name = name;
  if (socket !== undefined && socket !== "") out.nodeRegistration.criSocket = socket;
  if (advertise !== undefined && advertise !== "") {
    out.localAPIEndpoint.advertiseAddress = advertise;
  }
  if (patchesDirectory !== undefined) out.patchesDirectory = patchesDirectory;
  return out;
}

/**
 * kubeadm v1.32's `ValidateInitConfiguration` over a defaulted config:
 * `[]` when valid, else the field-error texts in kubeadm's order (token
 * values and the certificate key withheld). Fields the host fills (an
 * absent node name, CRI socket or advertise address) are taken as filled.
 */
export function validateInitConfiguration(c: InitConfig): { errors: string[]; warnings: string[] } {
  const errs: string[] = [];
  // ValidateNodeRegistrationOptions
  const n = c.nodeRegistration;
  if (n.name !== undefined) {
    if (n.name === "") {
      errs.push(
        fieldRequired(
          "nodeRegistration",
          "--node-name or .nodeRegistration.name in the config file is a required value. It seems like this value couldn't be automatically detected in your environment, please specify the desired value using the CLI or config file.",
        ),
      );
    }
    for (const e of n.name === "" ? [] : isDns1123Subdomain(n.name)) {
      errs.push(fieldInvalid("nodeRegistration.name", n.name, e));
    }
  }
  if (n.criSocket !== undefined) {
    errs.push(...validateSocketPath(n.criSocket, "nodeRegistration.criSocket"));
  }
  errs.push(...validateExtraArgs(n.kubeletExtraArgs, "nodeRegistration.kubeletExtraArgs"));
  errs.push(...validateImagePullPolicy(n.imagePullPolicy, "nodeRegistration.imagePullPolicy"));
  // ValidateBootstrapTokens (the token text was checked while decoding; values withheld).
  c.bootstrapTokens.forEach((t, i) => {
    errs.push(
      ...validateBootstrapToken(
        { token: t.token ?? { id: "", secret: "" }, usages: t.usages, groups: t.groups },
        i,
      ),
    );
    // SetDefaults_BootstrapToken sets the TTL whenever it is nil, so `expires` alone meets this.
    if (t.expires !== undefined) {
      errs.push(
        fieldInvalid(
          `bootstrapTokens.${i}`,
          "",
          "the BootstrapToken .TTL and .Expires fields are mutually exclusive",
        ),
      );
    }
  });
  const cluster = validateClusterConfiguration(c.cluster);
  errs.push(...cluster.errors);
  // ValidateAPIEndpoint: an absent address is the host's default-route address.
  errs.push(
    ...validateAPIEndpoint(
      {
        advertiseAddress: c.localAPIEndpoint.advertiseAddress ?? "0.0.0.0",
        bindPort: c.localAPIEndpoint.bindPort,
      },
      "localAPIEndpoint",
    ),
  );
  if (c.certificateKey !== "") {
    const detail = certificateKeyProblem(c.certificateKey);
    if (detail !== undefined) errs.push(fieldInvalid("certificateKey", WITHHELD, detail));
  }
  return { errors: errs, warnings: cluster.warnings };
}

/**
 * Reads an InitConfiguration stream as `kubeadm init --config` (default)
 * or `kubeadm config validate --config` (`strict`) does. Anything kubeadm
 * refuses is an `InputError` (exit 1) with its text: no Init/Cluster
 * configuration, an old or unknown kubeadm version, a document that does
 * not decode (a wrong type, a malformed token, TTL, duration or expiry;
 * with `strict`, an unknown field), a dynamic default that fails (a node
 * name of blanks, an advertise address that is no IP, a Kubernetes version
 * kubeadm cannot deploy, a malformed `controlPlaneEndpoint`), or any error
 * of `ValidateInitConfiguration` (aggregated as `[a, b]`).
 *
 * @example
 * ```ts ignore
 * const { config } = readInitConfiguration(parseManifests(text, "kubeadm.yaml"), "kubeadm.yaml");
 * config.cluster.certificatesDir; // "/etc/kubernetes/pki"
 * ```
 */
export function readInitConfiguration(
  docs: readonly KubeObject[],
  source: string,
  opts: InitReadOptions = {},
): InitFileConfig {
  const warnings: string[] = [];
  const { init, cluster, initVersion, clusterVersion } = pickDocuments(docs, source, warnings);
  const r = new DocReader(source);
  const base = decodeInit(r, init, initVersion ?? "v1beta4");
  const cfg: InitConfig = {
    ...base,
    cluster: decodeClusterConfiguration(r, cluster, clusterVersion ?? "v1beta4"),
  };
  if (opts.strict && r.warnings.length) {
    throw new InputError(
      `${source}: ${r.warnings.join(", ").replace(/, strict decoding error: /g, ", ")}`,
    );
  }

  // SetInitDynamicDefaults, in kubeadm's order, without the host.
  const n = cfg.nodeRegistration;
  const name = opts.nodeName ?? n.name ?? opts.hostname;
  if (name !== undefined) {
    const trimmed = name.trim();
    if (trimmed === "") throw new InputError(`${source}: empty hostname is invalid`);
    n.name = trimmed.toLowerCase();
  }
  if (n.criSocket !== undefined && !n.criSocket.startsWith("unix")) {
    warnings.push(
      `Usage of CRI endpoints without URL scheme is deprecated and can cause kubelet errors in the future. Automatically prepending scheme "unix" to the "criSocket" with value ${
        goQuote(n.criSocket)
      }. Please update your configuration!`,
    );
    n.criSocket = `unix://${n.criSocket}`;
  }
  const advertise = cfg.localAPIEndpoint.advertiseAddress;
  if (advertise !== undefined && !parseIpSloppy(advertise)) {
    throw new InputError(
      `${source}: couldn't use ${
        goQuote(advertise)
      } as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
    );
  }
  const written = cfg.cluster.controlPlaneEndpoint;
  const dynErr = setClusterDynamicDefaults(cfg.cluster, cfg.localAPIEndpoint.bindPort);
  if (dynErr) throw new InputError(`${source}: ${dynErr}`);

  const v = validateInitConfiguration(cfg);
  if (v.errors.length) throw new InputError(`${source}: ${aggregateErrors(v.errors)}`);

  const out: InitFileConfig = {
    version: initVersion ?? clusterVersion!,
    bootstrapTokens: cfg.bootstrapTokens,
    warnings: [...warnings, ...(opts.strict ? [] : r.warnings), ...v.warnings],
    config: cfg,
  };
  if (written) {
    out.controlPlaneEndpoint = written;
    out.joinEndpoint = cfg.cluster.controlPlaneEndpoint;
  } else if (advertise) {
    out.joinEndpoint = joinHostPort(advertise, String(cfg.localAPIEndpoint.bindPort));
  }
  return out;
}
