/**
 * kubeadm v1.32's field validators (k/k
 * `cmd/kubeadm/app/apis/kubeadm/validation/validation.go`) that the
 * Init/Cluster/Join configurations share: DNS names and SANs, CIDRs and
 * their sizes, URLs, absolute paths, `host[:port]`, encryption algorithms,
 * feature gates, image repositories, extra args. Each returns apimachinery
 * field-error texts (`<path>: Invalid value: <v>: <detail>`), `[]` when
 * valid, in kubeadm's order and with kubeadm's words.
 *
 * @module
 */

import { isIP } from "node:net";
import { goSplitHostPort } from "../go/net.ts";
import { goQuote } from "../go/quote.ts";
import { goUrlParse } from "../go/url.ts";
import { formatIp, parseIp } from "../pki/pkix.ts";
import { isDns1123Subdomain } from "../kubelet/csr_validation.ts";
import { fieldInvalid } from "./api.ts";

/** A v1beta4 `Arg` (v1beta3 holds these as a map). */
export interface Arg {
  name: string;
  value: string;
}

const WILDCARD_RE = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** apimachinery `IsWildcardDNS1123Subdomain`. */
export function isWildcardDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push("must be no more than 253 characters");
  if (!WILDCARD_RE.test(v)) errs.push(WILDCARD_MSG);
  return errs;
}

/**
 * k8s.io/utils/net `ParseIPSloppy`: Go's `net.ParseIP` that also takes
 * IPv4 octets with leading zeros (read as decimal). The 4- or 16-byte
 * address, or undefined.
 */
export function parseIpSloppy(s: string): Uint8Array | undefined {
  if (s.includes("%")) return undefined;
  let t = s;
  const v4 = /^(.*?)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const octets = v4.slice(2, 6).map((o) => o.length > 3 ? NaN : Number(o));
    if (octets.some((o) => !(o >= 0 && o <= 255))) return undefined;
    t = v4[1] + octets.join(".");
  }
  if (isIP(t) === 0) return undefined;
  return parseIp(t);
}

/** A parsed CIDR (Go `*net.IPNet`): the masked network and the prefix length. */
export interface Cidr {
  /** 4 or 16 bytes, masked. */
  ip: Uint8Array;
  /** Prefix length. */
  ones: number;
  /** 32 or 128. */
  bits: number;
}

/** Go's `IPNet.String()`: `10.96.0.0/12`, `fd00::/108`. */
export function cidrString(c: Cidr): string {
  return `${formatIp(c.ip)}/${c.ones}`;
}

/**
 * k8s.io/utils/net `ParseCIDRSloppy`: `addr/len`, the address sloppy as
 * {@link parseIpSloppy}, the length decimal; the network masked.
 */
export function parseCidrSloppy(s: string): Cidr | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const len = s.slice(slash + 1);
  const ip = parseIpSloppy(addr);
  if (!ip || !/^[0-9]{1,8}$/.test(len)) return undefined;
  // Go: an IPv4-mapped or IPv4 text in the IPv6 form keeps 128 bits only when written as IPv6.
  const bits = addr.includes(":") ? 128 : 32;
  const bytes = bits === 128 && ip.length === 4
    ? new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip])
    : ip;
  const ones = Number(len);
  if (ones > bits) return undefined;
  const masked = bytes.slice();
  for (let i = 0; i < masked.length; i++) {
    const keep = Math.max(0, Math.min(8, ones - i * 8));
    masked[i]! &= (0xff << (8 - keep)) & 0xff;
  }
  return { ip: masked, ones, bits };
}

/** `netutils.ParseCIDRs` over a comma list; undefined when any fails. */
function parseCidrs(list: string): Cidr[] | undefined {
  const out: Cidr[] = [];
  for (const s of list.split(",")) {
    const c = parseCidrSloppy(s);
    if (!c) return undefined;
    out.push(c);
  }
  return out;
}

/** Whether a CIDR is IPv6 (`netutils.IsIPv6`: not representable as IPv4). */
function cidrIsIPv6(c: Cidr): boolean {
  if (c.ip.length === 4) return false;
  const b = c.ip;
  return !(b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff);
}

/** `netutils.RangeSize`: 0 for a /31-/32 or /127-/128, MaxInt64 from 63 host bits on. */
function rangeSize(c: Cidr): number {
  const hostBits = c.bits - c.ones;
  if ((c.bits === 32 && hostBits >= 31) || (c.bits === 128 && hostBits >= 127)) return 0;
  if (hostBits >= 63) return Number.MAX_SAFE_INTEGER;
  return 2 ** hostBits;
}

/** `ValidateIPNetFromString(subnets, minAddrs, path)`. */
export function validateIPNetFromString(subnets: string, minAddrs: number, path: string): string[] {
  const cidrs = parseCidrs(subnets);
  if (!cidrs) return [fieldInvalid(path, subnets, "couldn't parse subnet")];
  const errs: string[] = [];
  const dual =
    "expected one (IPv4 or IPv6) CIDR or two CIDRs from each family for dual-stack networking";
  if (cidrs.length > 2) errs.push(fieldInvalid(path, subnets, dual));
  else if (cidrs.length === 2 && cidrIsIPv6(cidrs[0]!) === cidrIsIPv6(cidrs[1]!)) {
    errs.push(fieldInvalid(path, subnets, dual));
  }
  for (const c of cidrs) {
    const n = rangeSize(c);
    if (n < minAddrs) {
      errs.push(
        fieldInvalid(
          path,
          cidrString(c),
          `subnet with ${n} address(es) is too small, the minimum is ${minAddrs}`,
        ),
      );
    }
  }
  return errs;
}

/** `constants.MaximumBitsForServiceSubnet`. */
const MAX_SERVICE_SUBNET_BITS = 20;

/** `ValidateServiceSubnetSize` (subnets already parsed). */
export function validateServiceSubnetSize(subnets: string, path: string): string[] {
  const cidrs = parseCidrs(subnets) ?? [];
  return cidrs.flatMap((c) =>
    c.bits - c.ones > MAX_SERVICE_SUBNET_BITS
      ? [
        fieldInvalid(
          path,
          cidrString(c),
          `specified service subnet is too large; for ${c.bits}-bit addresses, the mask must be >= ${
            c.bits - MAX_SERVICE_SUBNET_BITS
          }`,
        ),
      ]
      : []
  );
}

/** The last value of `name` in `args` (`GetArgValue(args, name, -1)`), or undefined. */
export function argValue(args: readonly Arg[], name: string): string | undefined {
  for (let i = args.length - 1; i >= 0; i--) if (args[i]!.name === name) return args[i]!.value;
  return undefined;
}

/** Go's `strconv.Atoi` on a decimal with an optional sign; undefined when it fails. */
function atoi(s: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(s) && Math.abs(Number(s)) < 2 ** 63 ? Number(s) : undefined;
}

/** `ValidatePodSubnetNodeMask` with the controller manager's args. */
export function validatePodSubnetNodeMask(
  subnets: string,
  controllerManagerArgs: readonly Arg[],
  path: string,
): string[] {
  const errs: string[] = [];
  for (const c of parseCidrs(subnets) ?? []) {
    const v6 = cidrIsIPv6(c);
    const arg = v6 ? "node-cidr-mask-size-ipv6" : "node-cidr-mask-size-ipv4";
    const given = argValue(controllerManagerArgs, arg);
    let nodeMask = v6 ? 64 : 24;
    if (given !== undefined && given !== "") {
      const n = atoi(given);
      if (n === undefined) {
        errs.push(
          fieldInvalid(
            path,
            cidrString(c),
            `could not parse the value of the kube-controller-manager flag ${arg} as an integer: strconv.Atoi: parsing ${
              goQuote(given)
            }: invalid syntax`,
          ),
        );
        continue;
      }
      nodeMask = n;
    }
    if (c.ones > nodeMask) {
      errs.push(
        fieldInvalid(
          path,
          cidrString(c),
          `the size of pod subnet with mask ${c.ones} is smaller than the size of node subnet with mask ${nodeMask}`,
        ),
      );
    } else if (nodeMask - c.ones > 16) {
      errs.push(
        fieldInvalid(
          path,
          cidrString(c),
          `pod subnet mask (${c.ones}) and node-mask (${nodeMask}) difference is greater than 16`,
        ),
      );
    }
  }
  return errs;
}

/** `ValidateCertSANs`: each an IP, a DNS-1123 subdomain or a wildcard one. */
export function validateCertSANs(sans: readonly string[], path: string): string[] {
  const errs: string[] = [];
  for (const s of sans) {
    const e1 = isDns1123Subdomain(s);
    if (e1.length === 0) continue;
    const e2 = isWildcardDns1123Subdomain(s);
    if (e2.length === 0 || parseIpSloppy(s)) continue;
    errs.push(
      fieldInvalid(
        path,
        s,
        `altname is not a valid IP address, DNS label or a DNS label with subdomain wildcards: ${
          e1.join("; ")
        }; ${e2.join("; ")}`,
      ),
    );
  }
  return errs;
}

/** `ValidateURLs(urls, requireHTTPS, path)`. */
export function validateURLs(
  urls: readonly string[],
  requireHttps: boolean,
  path: string,
): string[] {
  const errs: string[] = [];
  for (const s of urls) {
    const u = goUrlParse(s);
    if (!u.ok) {
      errs.push(fieldInvalid(path, s, `URL parse error: ${u.error}`));
      continue;
    }
    if (requireHttps && u.scheme !== "https") {
      errs.push(fieldInvalid(path, s, "the URL must be using the HTTPS scheme"));
    }
    if (u.scheme === "") errs.push(fieldInvalid(path, s, "the URL without scheme is not allowed"));
  }
  return errs;
}

/** `ValidateAbsolutePath` (Linux `filepath.IsAbs`: a leading `/`). */
export function validateAbsolutePath(p: string, path: string): string[] {
  return p.startsWith("/") ? [] : [fieldInvalid(path, p, "path is not absolute")];
}

/**
 * kubeadm's `ParseHostPort`: the error text, or undefined when `hostport`
 * is an IP or DNS-1123 subdomain with an optional port 1–65535.
 */
export function hostPortError(hostport: string): string | undefined {
  const split = goSplitHostPort(hostport);
  const host = split.ok ? split.host : hostport;
  const port = split.ok ? split.port : "";
  if (port !== "" && !(/^[0-9]+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `hostport ${hostport}: port ${port} must be a valid number between 1 and 65535, inclusive`;
  }
  if (parseIpSloppy(host)) return undefined;
  if (isDns1123Subdomain(host).length === 0) return undefined;
  return `hostport ${hostport}: host '${host}' must be a valid IP address or a valid RFC-1123 DNS subdomain`;
}

/** `ValidateHostPort`: empty is allowed. */
export function validateHostPort(endpoint: string, path: string): string[] {
  return endpoint !== "" && hostPortError(endpoint) !== undefined
    ? [fieldInvalid(path, endpoint, "endpoint is not valid")]
    : [];
}

/** The encryption algorithms kubeadm v1.32 knows, sorted as `sets.List` prints them. */
export const ENCRYPTION_ALGORITHMS = ["ECDSA-P256", "RSA-2048", "RSA-3072", "RSA-4096"] as const;

/** `ValidateEncryptionAlgorithm`. */
export function validateEncryptionAlgorithm(algo: string, path: string): string[] {
  return (ENCRYPTION_ALGORITHMS as readonly string[]).includes(algo) ? [] : [
    fieldInvalid(
      path,
      algo,
      `Invalid encryption algorithm ${goQuote(algo)}. Must be one of [${
        ENCRYPTION_ALGORITHMS.join(" ")
      }]`,
    ),
  ];
}

/** kubeadm v1.32's `InitFeatureGates`. */
export const INIT_FEATURE_GATES = [
  "ControlPlaneKubeletLocalMode",
  "EtcdLearnerMode",
  "NodeLocalCRISocket",
  "PublicKeysECDSA",
  "RootlessControlPlane",
  "WaitForAllControlPlaneComponents",
] as const;

/** Go's `%#v` of a `map[string]bool` (keys sorted). */
function goBoolMap(m: Readonly<Record<string, boolean>>): string {
  const keys = Object.keys(m).sort();
  return `map[string]bool{${keys.map((k) => `${goQuote(k)}:${m[k]}`).join(", ")}}`;
}

/**
 * `ValidateFeatureGates`. kubeadm walks a Go map, so with several unknown
 * gates its order varies from run to run; joinkit sorts them.
 */
export function validateFeatureGates(
  gates: Readonly<Record<string, boolean>>,
  path: string,
): string[] {
  const shown = goBoolMap(gates);
  return Object.keys(gates).sort().flatMap((k) =>
    (INIT_FEATURE_GATES as readonly string[]).includes(k)
      ? []
      : [`${path}: Invalid value: ${shown}: ${k} is not a valid feature name.`]
  );
}

// github.com/distribution/reference's ReferenceRegexp, assembled as upstream does.
const ALNUM = "[a-z0-9]+";
const SEP = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALNUM}(?:${SEP}${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN =
  `(?:(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*)|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
const REFERENCE_RE = new RegExp(
  `^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}))?$`,
);

/** `ValidateImageRepository`: `<repo>/name:tag` must be a valid image reference. */
export function validateImageRepository(repo: string, path: string): string[] {
  // Go's `$` ends the text only; JavaScript's too without the m flag. A newline never matches.
  return REFERENCE_RE.test(`${repo}/name:tag`)
    ? []
    : [fieldInvalid(path, repo, "invalid image repository format")];
}

/** `ValidateExtraArgs`. */
export function validateExtraArgs(args: readonly Arg[], path: string): string[] {
  return args.flatMap((a, i) =>
    a.name === "" ? [fieldInvalid(path, `index ${i}`, "argument has no name")] : []
  );
}

/** `ValidateImagePullPolicy`. */
export function validateImagePullPolicy(policy: string, path: string): string[] {
  return ["", "Always", "IfNotPresent", "Never"].includes(policy)
    ? []
    : [fieldInvalid(path, policy, "invalid pull policy")];
}

/**
 * `ValidateIPFromString` / `ValidatePort` as `ValidateAPIEndpoint` applies
 * them: `ParseIPSloppy` and the port range 1–65535.
 */
export function validateAPIEndpoint(
  ep: { advertiseAddress?: string; bindPort?: number },
  path: string,
): string[] {
  const errs: string[] = [];
  const addr = ep.advertiseAddress ?? "";
  if (!parseIpSloppy(addr)) {
    errs.push(fieldInvalid(`${path}.advertiseAddress`, addr, "ip address is not valid"));
  }
  const port = ep.bindPort ?? 0;
  if (port < 1 || port > 65535) {
    errs.push(fieldInvalid(`${path}.bindPort`, port, "port number is not valid"));
  }
  return errs;
}
