/**
 * The parts of a kubeadm `InitConfiguration` stream (v1beta4, v1beta3;
 * possibly with a `ClusterConfiguration`) that the bootstrap-token phase
 * uses: `bootstrapTokens` and the join endpoint
 * (`ClusterConfiguration.controlPlaneEndpoint`, else
 * `localAPIEndpoint.advertiseAddress:bindPort`). Decoded, defaulted and
 * validated as `kubeadm init --config` does (k/k
 * `util/config/initconfiguration.go` `documentMapToInitConfiguration`,
 * `apis/bootstraptoken/v1` types and defaults, `v1beta4/defaults.go`,
 * `validation.ValidateBootstrapTokens`, `ValidateHostPort`), with
 * kubeadm's texts; token values are never quoted.
 *
 * @module
 */

import { isIP } from "node:net";
import { InputError } from "../base/errors.ts";
import { aggregateErrors } from "../go/aggregate.ts";
import { parseDuration } from "../go/duration.ts";
import { goSplitHostPort } from "../go/net.ts";
import { goQuote } from "../go/quote.ts";
import { tryParseRfc3339 } from "../go/time.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { DEFAULT_TTL_MS, validateBootstrapToken } from "../tokens/bootstrap_token.ts";
import {
  KNOWN_USAGES,
  newBootstrapTokenString,
  NODE_BOOTSTRAP_TOKEN_GROUP,
  type Token,
} from "../tokens/token.ts";
import { isDns1123Subdomain } from "../kubelet/csr_validation.ts";
import {
  DocReader,
  fieldInvalid,
  KUBEADM_GROUP,
  type KubeadmVersion,
  kubeadmVersionOf,
} from "./api.ts";
import { DEFAULT_BIND_PORT } from "./join_config.ts";

/** `InitConfigurationKind`. */
export const INIT_KIND = "InitConfiguration";
/** `ClusterConfigurationKind`. */
export const CLUSTER_KIND = "ClusterConfiguration";

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

/** What {@link readInitConfiguration} found. */
export interface InitFileConfig {
  /** The InitConfiguration's version (the ClusterConfiguration's when only that is present). */
  version: KubeadmVersion;
  /** The tokens, at least one. */
  bootstrapTokens: InitBootstrapToken[];
  /** `controlPlaneEndpoint` as written, when set. */
  controlPlaneEndpoint?: string;
  /** The join endpoint `HOST:PORT` kubeadm derives (`GetControlPlaneEndpoint`), when the file fixes one. */
  joinEndpoint?: string;
  /** Warnings kubeadm would print (unknown fields, ignored documents, deprecated version). */
  warnings: string[];
}

const INIT_FIELDS = [
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
const CLUSTER_FIELDS = [
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
  "useHyperKubeImage",
];
const TOKEN_FIELDS = ["token", "description", "ttl", "expires", "usages", "groups"];

/**
 * kubeadm's `ParseHostPort`: the error text, or undefined when `hostport`
 * is an IP or DNS-1123 subdomain with an optional port 1–65535.
 */
export function parseHostPortError(hostport: string): string | undefined {
  const split = goSplitHostPort(hostport);
  const host = split.ok ? split.host : hostport;
  const port = split.ok ? split.port : "";
  if (port !== "" && !(/^[0-9]+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `hostport ${hostport}: port ${port} must be a valid number between 1 and 65535, inclusive`;
  }
  const sloppy = /^\d+(\.\d+){3}$/.test(host)
    ? host.split(".").map((o) => String(Number(o))).join(".")
    : host;
  if (!sloppy.includes("%") && isIP(sloppy) !== 0) return undefined;
  if (isDns1123Subdomain(host).length === 0) return undefined;
  return `hostport ${hostport}: host '${host}' must be a valid IP address or a valid RFC-1123 DNS subdomain`;
}

/** `net.JoinHostPort`. */
function joinHostPort(host: string, port: string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Reads an InitConfiguration stream as `kubeadm init --config` and
 * `kubeadm token create --config` do, up to the bootstrap tokens and the
 * endpoint. Anything kubeadm refuses is an `InputError` (exit 1) with its
 * text: no Init/ClusterConfiguration, an old or unknown kubeadm version, a
 * document that does not decode (a malformed token, TTL or expiry), or
 * validation errors of `bootstrapTokens` or `controlPlaneEndpoint`.
 *
 * @example
 * ```ts ignore
 * readInitConfiguration(parseManifests(text, "kubeadm.yaml"), "kubeadm.yaml").bootstrapTokens[0].ttlMs;
 * ```
 */
export function readInitConfiguration(docs: readonly KubeObject[], source: string): InitFileConfig {
  const warnings: string[] = [];
  let init: Record<string, unknown> | undefined;
  let cluster: Record<string, unknown> | undefined;
  let version: KubeadmVersion | undefined;
  const seen = new Set<string>();
  for (const doc of docs) {
    const apiVersion = typeof doc.apiVersion === "string" ? doc.apiVersion : "";
    const kind = typeof doc.kind === "string" ? doc.kind : "";
    const gvk = `${apiVersion}, Kind=${kind}`;
    if (apiVersion === "" || kind === "") {
      throw new InputError(
        `${source}: invalid configuration for GroupVersionKind ${gvk}: kind and apiVersion is mandatory information that must be specified`,
      );
    }
    if (seen.has(gvk)) {
      throw new InputError(
        `${source}: invalid configuration: GroupVersionKind ${gvk} is specified twice in YAML file`,
      );
    }
    seen.add(gvk);
    const group = apiVersion.split("/")[0];
    if (group === KUBEADM_GROUP && (kind === INIT_KIND || kind === CLUSTER_KIND)) {
      const v = kubeadmVersionOf(apiVersion, kind, source);
      if (kind === INIT_KIND) {
        if (init) throw new InputError(`${source}: more than one ${INIT_KIND}`);
        init = doc;
        version = v;
      } else {
        if (cluster) throw new InputError(`${source}: more than one ${CLUSTER_KIND}`);
        cluster = doc;
        version ??= v;
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
      warnings.push(`[config] WARNING: Ignored YAML document with GroupVersionKind ${gvk}`);
    } else {
      warnings.push(`[config] WARNING: Ignored YAML document with GroupVersionKind ${gvk}`);
    }
  }
  if (!init && !cluster) {
    throw new InputError(
      `${source}: no ${INIT_KIND} or ${CLUSTER_KIND} kind was found in the YAML file`,
    );
  }
  const r = new DocReader(source);
  const initTop = init ? r.object(init, "", INIT_FIELDS) ?? {} : {};
  const clusterTop = cluster ? r.object(cluster, "", CLUSTER_FIELDS) ?? {} : {};

  // bootstrapTokens, decoded then defaulted (SetDefaults_BootstrapTokens).
  const list = r.list(initTop.bootstrapTokens, "bootstrapTokens") ?? [];
  const tokens: InitBootstrapToken[] = list.map((item, i) => {
    const p = `bootstrapTokens[${i}]`;
    const o = r.object(item, p, TOKEN_FIELDS) ?? {};
    const t: InitBootstrapToken = {
      ttlMs: DEFAULT_TTL_MS,
      usages: [...KNOWN_USAGES],
      groups: [NODE_BOOTSTRAP_TOKEN_GROUP],
    };
    const tokenText = o.token === null ? undefined : r.string(o.token, `${p}.token`);
    if (tokenText !== undefined) {
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

  // ValidateBootstrapTokens. SetDefaults_BootstrapToken sets the TTL whenever it is nil, so a
  // token that gives only `expires` meets the mutual-exclusion rule, as in kubeadm.
  const errs: string[] = [];
  tokens.forEach((t, i) => {
    errs.push(
      ...validateBootstrapToken(
        {
          token: t.token ?? { id: "", secret: "" },
          usages: t.usages,
          groups: t.groups,
        },
        i,
      ),
    );
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

  // controlPlaneEndpoint and the local API endpoint.
  const cpe = r.string(clusterTop.controlPlaneEndpoint, "controlPlaneEndpoint");
  if (cpe) {
    const e = parseHostPortError(cpe);
    if (e) errs.push(fieldInvalid("controlPlaneEndpoint", cpe, "endpoint is not valid"));
  }
  const lo =
    r.object(initTop.localAPIEndpoint, "localAPIEndpoint", ["advertiseAddress", "bindPort"]) ??
      {};
  const advertise = r.string(lo.advertiseAddress, "localAPIEndpoint.advertiseAddress");
  const bindPort = r.int32(lo.bindPort, "localAPIEndpoint.bindPort") || DEFAULT_BIND_PORT;
  if (advertise && (advertise.includes("%") || isIP(advertise) === 0)) {
    throw new InputError(
      `${source}: couldn't use ${
        goQuote(advertise)
      } as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
    );
  }
  if (errs.length) {
    throw new InputError(`${source}: ${aggregateErrors(errs)}`);
  }

  const out: InitFileConfig = {
    version: version!,
    bootstrapTokens: tokens,
    warnings: [...warnings, ...r.warnings],
  };
  if (cpe) {
    out.controlPlaneEndpoint = cpe;
    const split = goSplitHostPort(cpe);
    out.joinEndpoint = split.ok && split.port !== "" ? cpe : joinHostPort(cpe, String(bindPort));
  } else if (advertise) {
    out.joinEndpoint = joinHostPort(advertise, String(bindPort));
  }
  return out;
}
