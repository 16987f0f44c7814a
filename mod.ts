/**
 * joinkit as a library: the bootstrap artefacts `kubeadm init` and the
 * kubelet TLS bootstrap make, offline, as task-level functions.
 *
 * Inputs and outputs are plain values: strings (PEM text, tokens, YAML),
 * `Uint8Array`s, `Date`s and JSON-shaped objects you can hand to
 * `JSON.stringify` or {@link renderManifests}. Nothing here reads or writes
 * files, the environment or the terminal.
 *
 * Every refusal is a {@link JoinkitError}: {@link InvalidInputError} when an
 * input is malformed or fails the upstream validation, {@link CheckFailedError}
 * when a check ran and said no. Its `reason` is the upstream text (kubeadm's,
 * client-go's, Go's `crypto/x509`'s) and never holds a token secret or a
 * private key.
 *
 * This file is the package's one public face (`.` in package.json and
 * deno.json): the CLI's modules under `lib/` are internal and may change.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bootstrapKubeconfig, caPin, createCa, generateToken } from "./mod.ts";
 *
 * const ca = await createCa({ now: new Date("2026-01-01T00:00:00Z") });
 * const token = generateToken();
 * const kubeconfig = await bootstrapKubeconfig({
 *   server: "https://10.0.0.1:6443",
 *   ca: ca.certificate,
 *   token,
 * });
 * assert.match(kubeconfig, /server: https:\/\/10\.0\.0\.1:6443/);
 * assert.deepEqual(await caPin(ca.certificate), [ca.pin]);
 * ```
 *
 * @module
 */

import { CheckError, JoinkitError as InternalError } from "./lib/base/errors.ts";
import { VERSION } from "./lib/base/version.ts";
import { parseDuration } from "./lib/go/duration.ts";
import { renderObjects } from "./lib/k8s/manifest.ts";
import { parseServerUrl } from "./lib/k8s/server_url.ts";
import { compileGoRegexp } from "./lib/go/regexp.ts";
import { KEY_TYPES, type KeyType } from "./lib/pki/keys.ts";
import * as bootstrapToken from "./lib/tokens/bootstrap_token.ts";
import { generateToken as newToken, type Token, tokenFromString } from "./lib/tokens/token.ts";

// ---------------------------------------------------------------------------------------------
// Errors

/**
 * Base class of every error this library throws on purpose. `reason` is the
 * one-line upstream text (no flag names, no exit codes, no secrets).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JoinkitError, tokenSecret } from "./mod.ts";
 *
 * try {
 *   tokenSecret("not-a-token");
 *   assert.fail("accepted");
 * } catch (e) {
 *   assert.ok(e instanceof JoinkitError);
 *   assert.match(e.reason, /\[a-z0-9\]\{6\}/);
 * }
 * ```
 */
export class JoinkitError extends Error {
  /** The upstream reason, one line. */
  readonly reason: string;
  /** Makes an error whose message is `reason`. */
  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = "JoinkitError";
    this.reason = reason;
  }
}

/**
 * An input is malformed or fails the validation the upstream component
 * applies (a token that is not `[a-z0-9]{6}.[a-z0-9]{16}`, a CA file holding
 * no certificate, a server that is not `https://HOST:PORT`, …).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { caPin, InvalidInputError } from "./mod.ts";
 *
 * await assert.rejects(caPin("no PEM here"), InvalidInputError);
 * ```
 */
export class InvalidInputError extends JoinkitError {
  /** Makes an error whose message is `reason`. */
  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = "InvalidInputError";
  }
}

/**
 * A check ran and said no: a signature that does not verify, a pin that does
 * not match, a configuration kubeadm would refuse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CheckFailedError, JoinkitError } from "./mod.ts";
 *
 * const e = new CheckFailedError("cluster CA found in cluster-info ConfigMap is invalid");
 * assert.ok(e instanceof JoinkitError);
 * assert.equal(e.reason, e.message);
 * ```
 */
export class CheckFailedError extends JoinkitError {
  /** Makes an error whose message is `reason`. */
  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = "CheckFailedError";
  }
}

/** The library's error for an internal one (its message is already one upstream line). */
function toPublic(e: unknown): unknown {
  if (!(e instanceof InternalError)) return e;
  return e instanceof CheckError
    ? new CheckFailedError(e.message, { cause: e })
    : new InvalidInputError(e.message, { cause: e });
}

/** Runs `fn`, turning the CLI-shaped errors of lib/ into the library's. */
async function lifted<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toPublic(e);
  }
}

/** {@link lifted} for synchronous work. */
function liftedSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw toPublic(e);
  }
}

// ---------------------------------------------------------------------------------------------
// Plain types

/** A Kubernetes object as JSON: `apiVersion`, `kind`, `metadata` and the rest. */
export type KubernetesObject = { [field: string]: unknown };

/** PEM text, as a string or its bytes. */
export type Pem = string | Uint8Array;

/** Key types joinkit makes (`rsa-2048` is kubeadm's default). */
export type KeyKind =
  | "rsa-2048"
  | "rsa-3072"
  | "rsa-4096"
  | "ecdsa-p256"
  | "ecdsa-p384"
  | "ed25519";

// The library offers exactly lib/'s key types: a type error here when the two lists part.
const _keyKinds: readonly KeyKind[] = KEY_TYPES satisfies readonly KeyType[];
const _keyTypes: readonly KeyType[] = [] as KeyKind[];

/**
 * joinkit's version (the package's `version`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { version } from "./mod.ts";
 * assert.match(version, /^\d+\.\d+\.\d+/);
 * ```
 */
export const version: string = VERSION;

// ---------------------------------------------------------------------------------------------
// Tokens

/** The token as {id, secret}, or a refusal that never shows the value. */
function parseTokenValue(token: string): Token {
  const t = typeof token === "string" ? tokenFromString(token) : undefined;
  if (!t) {
    throw new InvalidInputError(
      "the bootstrap token must be of the form [a-z0-9]{6}.[a-z0-9]{16} (value not shown)",
    );
  }
  return t;
}

/**
 * A new random bootstrap token `[a-z0-9]{6}.[a-z0-9]{16}`, as
 * `kubeadm token generate` makes it (every character uniform from the CSPRNG).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateToken } from "./mod.ts";
 * assert.match(generateToken(), /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
 * ```
 */
export function generateToken(): string {
  return newToken();
}

/** What {@link tokenSecret} puts in the Secret besides the token (kubeadm's defaults when absent). */
export interface TokenSecretOptions {
  /** Time to live in Go syntax (`"24h"`, `"90m"`) or milliseconds; `0` never expires. Default 24h. */
  ttl?: string | number;
  /** Absolute expiry (wins over `ttl`). */
  expires?: Date;
  /** `signing`, `authentication`; default both. */
  usages?: readonly string[];
  /** Extra groups, `system:bootstrappers:…`; default `system:bootstrappers:kubeadm:default-node-token`. */
  groups?: readonly string[];
  /** Human-readable description. */
  description?: string;
  /** The clock the expiration is counted from (default: now). */
  now?: Date;
}

/**
 * The `bootstrap-token-<id>` Secret in `kube-system` that `kubeadm token
 * create` makes for `token`, with kubeadm's defaults and validation (the
 * `reason` of a refusal is kubeadm's field error text).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenSecret } from "./mod.ts";
 *
 * const secret = tokenSecret("abcdef.0123456789abcdef", {
 *   ttl: "1h",
 *   now: new Date("2026-01-01T00:00:00Z"),
 * });
 * assert.deepEqual(secret.metadata, { name: "bootstrap-token-abcdef", namespace: "kube-system" });
 * const data = secret.data as Record<string, string>;
 * assert.equal(atob(data.expiration!), "2026-01-01T01:00:00Z");
 * ```
 */
export function tokenSecret(token: string, options: TokenSecretOptions = {}): KubernetesObject {
  const t = parseTokenValue(token);
  return liftedSync(() => {
    let ttlMs: number | undefined;
    if (typeof options.ttl === "string") ttlMs = parseDuration(options.ttl);
    else if (options.ttl !== undefined) ttlMs = options.ttl;
    if (ttlMs !== undefined && !(ttlMs >= 0)) {
      throw new InvalidInputError("ttl must not be negative (0 means never expires)");
    }
    return tokenSecretOf(t, { ...options, ttlMs });
  });
}

/** {@link tokenSecret} once the token and the TTL are parsed. */
function tokenSecretOf(
  token: Token,
  o: TokenSecretOptions & { ttlMs: number | undefined },
): KubernetesObject {
  const spec: bootstrapToken.BootstrapTokenSpec = { token };
  if (o.description !== undefined) spec.description = o.description;
  if (o.ttlMs !== undefined) spec.ttlMs = o.ttlMs;
  if (o.expires !== undefined) spec.expires = o.expires;
  if (o.usages !== undefined) spec.usages = o.usages;
  if (o.groups !== undefined) spec.groups = o.groups;
  const full = bootstrapToken.withDefaults(spec);
  const errors = bootstrapToken.validateBootstrapToken(full);
  if (errors.length) throw new InvalidInputError(errors.join("; "));
  return bootstrapToken.tokenToSecret(full, o.now ?? new Date());
}

// ---------------------------------------------------------------------------------------------
// The CA

/** What {@link createCa} makes. */
export interface CreateCaOptions {
  /** Subject CN; kubeadm's is `kubernetes` (the default). */
  commonName?: string;
  /** Key type; kubeadm's default `rsa-2048` (the default here too). */
  keyType?: KeyKind;
  /** The clock: NotBefore is 5 minutes before it (default: now). */
  now?: Date;
  /** Lifetime in Go syntax or milliseconds from `now`; default kubeadm's 87600h (10 years). */
  validity?: string | number;
}

/** A new cluster CA. */
export interface CreatedCa {
  /** `ca.crt`: the certificate, PEM. */
  certificate: string;
  /** `ca.key`: the private key, PEM (PKCS#1, SEC 1 or PKCS#8 as kubeadm writes it). Keep it secret. */
  privateKey: string;
  /** The `sha256:<hex>` pin of its public key (`--discovery-token-ca-cert-hash`). */
  pin: string;
  /** Serial number, lower-case hex. */
  serial: string;
  /** Start of validity. */
  notBefore: Date;
  /** End of validity. */
  notAfter: Date;
}

/**
 * A cluster CA as kubeadm's `certs ca` phase makes it (self-signed, CA:TRUE,
 * keyCertSign|digitalSignature|keyEncipherment, SKI, 10 years by default).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCa } from "./mod.ts";
 *
 * const ca = await createCa({ keyType: "ecdsa-p256", now: new Date("2026-01-01T00:00:00Z") });
 * assert.match(ca.certificate, /^-----BEGIN CERTIFICATE-----\n/);
 * assert.match(ca.pin, /^sha256:[0-9a-f]{64}$/);
 * assert.equal(ca.notAfter.toISOString(), "2035-12-30T00:00:00.000Z");
 * ```
 */
export function createCa(options: CreateCaOptions = {}): Promise<CreatedCa> {
  return lifted(async () => {
    const keyType = options.keyType ?? "rsa-2048";
    if (!(KEY_TYPES as readonly string[]).includes(keyType)) {
      throw new InvalidInputError(
        `unknown key type ${JSON.stringify(keyType)} (want one of ${KEY_TYPES.join(", ")})`,
      );
    }
    const { caNameError, createCa: create, DEFAULT_CA_VALIDITY_MS } = await import(
      "./lib/pki/ca.ts"
    );
    const commonName = options.commonName ?? "kubernetes";
    if (commonName === "") throw new InvalidInputError("the CA's common name must not be empty");
    const bad = caNameError(commonName);
    if (bad) throw new InvalidInputError(bad);
    const v = options.validity;
    const validityMs = v === undefined
      ? DEFAULT_CA_VALIDITY_MS
      : typeof v === "string"
      ? parseDuration(v)
      : v;
    if (!(validityMs > 0)) throw new InvalidInputError("validity must be positive");
    const ca = await create({
      commonName,
      keyType: keyType as KeyType,
      now: options.now ?? new Date(),
      validityMs,
    });
    return {
      certificate: ca.certPem,
      privateKey: ca.keyPem,
      pin: ca.hash,
      serial: ca.serialHex,
      notBefore: ca.notBefore,
      notAfter: ca.notAfter,
    };
  });
}

/**
 * The `sha256:<hex>` pin of each certificate in `ca` (PEM), in order: what
 * `kubeadm token create --print-join-command` prints as
 * `--discovery-token-ca-cert-hash` (SHA-256 of the SubjectPublicKeyInfo).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { caPin, createCa } from "./mod.ts";
 *
 * const ca = await createCa({ keyType: "ecdsa-p256" });
 * assert.deepEqual(await caPin(ca.certificate), [ca.pin]);
 * ```
 */
export function caPin(ca: Pem): Promise<string[]> {
  return lifted(async () => {
    const { loadCertsPem } = await import("./lib/pki/certsource.ts");
    const { caCertHash } = await import("./lib/pki/pin.ts");
    return (await loadCertsPem(ca, "ca certificate")).map((c) => caCertHash(c.der));
  });
}

// ---------------------------------------------------------------------------------------------
// Discovery

/** Inputs that name the cluster: where the API server is and whom to trust. */
export interface ClusterEndpoint {
  /** The API server, `https://HOST:PORT`. */
  server: string;
  /** The cluster CA (PEM; a bundle's first certificate must be a CA, as kubeadm requires). */
  ca: Pem;
}

/** What {@link clusterInfo} signs with. */
export interface ClusterInfoOptions extends ClusterEndpoint {
  /** Tokens to sign with (`id.secret`); each gets a `jws-kubeconfig-<id>` key. */
  tokens?: readonly string[];
}

/**
 * The `kube-public/cluster-info` ConfigMap as `kubeadm init` writes it
 * (`data.kubeconfig` in client-go's bytes), signed for each token as the
 * bootstrapsigner controller signs it (detached HS256 JWS).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clusterInfo, createCa } from "./mod.ts";
 *
 * const ca = await createCa({ keyType: "ecdsa-p256" });
 * const cm = await clusterInfo({
 *   server: "https://10.0.0.1:6443",
 *   ca: ca.certificate,
 *   tokens: ["abcdef.0123456789abcdef"],
 * });
 * assert.deepEqual(cm.metadata, { name: "cluster-info", namespace: "kube-public" });
 * const data = cm.data as Record<string, string>;
 * assert.deepEqual(Object.keys(data).sort(), ["jws-kubeconfig-abcdef", "kubeconfig"]);
 * ```
 */
export function clusterInfo(options: ClusterInfoOptions): Promise<KubernetesObject> {
  const tokens = (options.tokens ?? []).map(parseTokenValue);
  return lifted(async () => {
    const server = parseServerUrl(options.server, "server");
    const { readClusterCa } = await import("./lib/pki/certsource.ts");
    const { clusterInfoKubeconfig } = await import("./lib/discovery/bootstrap_kubeconfig.ts");
    const { kubeconfigYaml } = await import("./lib/k8s/kubeconfig_yaml.ts");
    const { clusterInfoConfigMap, KUBECONFIG_KEY } = await import(
      "./lib/discovery/cluster_info.ts"
    );
    const { signClusterInfoData } = await import("./lib/discovery/bootstrap_signer.ts");
    const ca = await readClusterCa(options.ca, "ca certificate");
    const kubeconfig = kubeconfigYaml(clusterInfoKubeconfig(server.url, ca.pem));
    const signed = signClusterInfoData({ [KUBECONFIG_KEY]: kubeconfig }, tokens);
    return clusterInfoConfigMap(signed.data);
  });
}

/** What {@link verifyClusterInfo} checks. */
export interface VerifyClusterInfoOptions {
  /** The `cluster-info` ConfigMap (an object, or YAML/JSON text holding it). */
  clusterInfo: KubernetesObject | string;
  /** The token the joining node holds. */
  token: string;
  /** The `sha256:<hex>` pins to require (`--discovery-token-ca-cert-hash`); at least one. */
  caCertHashes: readonly string[];
}

/** What a node learns from a cluster-info it trusts. */
export interface VerifiedClusterInfo {
  /** The API server named there. */
  server: string;
  /** The CA bundle (PEM) named there. */
  ca: string;
  /** Which CA certificate (0-based) matched a pin. */
  pinnedIndex: number;
}

/**
 * `kubeadm join`'s token discovery, offline: the ConfigMap's JWS for the
 * token's ID must verify with the token, and a CA certificate in it must
 * match a pin. A refusal is a {@link CheckFailedError} with kubeadm's text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CheckFailedError, clusterInfo, createCa, verifyClusterInfo } from "./mod.ts";
 *
 * const ca = await createCa({ keyType: "ecdsa-p256" });
 * const token = "abcdef.0123456789abcdef";
 * const cm = await clusterInfo({ server: "https://10.0.0.1:6443", ca: ca.certificate, tokens: [token] });
 * const ok = await verifyClusterInfo({ clusterInfo: cm, token, caCertHashes: [ca.pin] });
 * assert.equal(ok.server, "https://10.0.0.1:6443");
 * await assert.rejects(
 *   verifyClusterInfo({ clusterInfo: cm, token: "abcdef.0000000000000000", caCertHashes: [ca.pin] }),
 *   CheckFailedError,
 * );
 * ```
 */
export function verifyClusterInfo(options: VerifyClusterInfoOptions): Promise<VerifiedClusterInfo> {
  parseTokenValue(options.token);
  return lifted(async () => {
    if (options.caCertHashes.length === 0) {
      throw new InvalidInputError("at least one CA certificate hash (sha256:<hex>) is needed");
    }
    const { findClusterInfo } = await import("./lib/discovery/cluster_info.ts");
    const { verifyClusterInfo: verify } = await import("./lib/discovery/discovery.ts");
    let objects: unknown[];
    if (typeof options.clusterInfo === "string") {
      const { parseManifests } = await import("./lib/k8s/manifest.ts");
      objects = parseManifests(options.clusterInfo, "cluster-info");
    } else objects = [options.clusterInfo];
    const info = findClusterInfo(objects, "cluster-info");
    const r = verify({
      data: info.data,
      token: options.token,
      caCertHashes: [...options.caCertHashes],
      unsafeSkipCAVerification: false,
    });
    return {
      server: r.cluster.server,
      ca: new TextDecoder().decode(r.cluster.caData),
      pinnedIndex: r.pinnedIndex,
    };
  });
}

/** What {@link bootstrapKubeconfig} writes. */
export interface BootstrapKubeconfigOptions extends ClusterEndpoint {
  /** The bootstrap token (`id.secret`). */
  token: string;
  /** Cluster entry name (kubeadm: `kubernetes`). */
  clusterName?: string;
  /** User entry name (kubeadm: `tls-bootstrap-token-user`). */
  user?: string;
  /** `yaml` (default; client-go's bytes) or `json`. */
  format?: "yaml" | "json";
}

/**
 * The kubelet's `bootstrap-kubelet.conf` as kubeadm writes it: one cluster
 * (server and `certificate-authority-data`), one token user, one context.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bootstrapKubeconfig, createCa } from "./mod.ts";
 *
 * const ca = await createCa({ keyType: "ecdsa-p256" });
 * const yaml = await bootstrapKubeconfig({
 *   server: "https://cp.example:6443",
 *   ca: ca.certificate,
 *   token: "abcdef.0123456789abcdef",
 * });
 * assert.match(yaml, /^apiVersion: v1\n/);
 * assert.match(yaml, /token: abcdef\.0123456789abcdef/);
 * ```
 */
export function bootstrapKubeconfig(options: BootstrapKubeconfigOptions): Promise<string> {
  const token = parseTokenValue(options.token);
  return lifted(async () => {
    const server = parseServerUrl(options.server, "server");
    const { readClusterCa } = await import("./lib/pki/certsource.ts");
    const { tokenKubeconfig, DEFAULT_CLUSTER_NAME, TLS_BOOTSTRAP_USER } = await import(
      "./lib/discovery/bootstrap_kubeconfig.ts"
    );
    const { renderKubeconfig } = await import("./lib/k8s/kubeconfig_yaml.ts");
    const { tokenString } = await import("./lib/tokens/token.ts");
    const clusterName = options.clusterName ?? DEFAULT_CLUSTER_NAME;
    const user = options.user ?? TLS_BOOTSTRAP_USER;
    if (clusterName === "") throw new InvalidInputError("cluster name must not be empty");
    if (user === "") throw new InvalidInputError("user name must not be empty");
    // Go loads it (a CA first, nothing but certificates); the kubeconfig embeds the bytes given.
    await readClusterCa(options.ca, "ca certificate");
    const caData = typeof options.ca === "string"
      ? new TextEncoder().encode(options.ca)
      : options.ca;
    return renderKubeconfig(
      tokenKubeconfig({ server: server.url, caData, token: tokenString(token), clusterName, user }),
      options.format ?? "yaml",
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Certificates

/** What {@link verifyCertificate} checks against. */
export interface VerifyCertificateOptions {
  /** The certificate (PEM); further certificates in it are offered as intermediates. */
  certificate: Pem;
  /** Trusted CA certificates (PEM). */
  ca: Pem;
  /** The signer whose rules apply (default: guessed from the certificate, as `cert verify` does). */
  signerName?: string;
  /** The node it must belong to (`system:node:<node>`). */
  node?: string;
  /** The private key (PEM) that must match the certificate's public key. */
  privateKey?: Pem;
  /** The clock (default: now). */
  at?: Date;
}

/** One check's outcome. */
export interface CertificateCheck {
  /** `chain`, `validity`, `ca-flag`, `signer`, `node`, `key`, … */
  check: string;
  /** Whether it passed. */
  ok: boolean;
  /** What was found (for `chain`, Go's `x509.Verify` error text when it failed). */
  detail: string;
}

/** What {@link verifyCertificate} found. */
export interface CertificateReport {
  /** The certificate's subject, e.g. `CN=system:node:n1,O=system:nodes`. */
  subject: string;
  /** Every check, in order. */
  checks: CertificateCheck[];
  /** When the kubelet would rotate it (RFC 3339), and whether that window is reached at `at`. */
  rotation: { start: string; end: string; due: boolean };
  /** Whether every check passed. */
  ok: boolean;
}

/**
 * Checks an issued certificate the way its users would: the chain to the CA
 * as Go's `x509.Verify` judges it (validity, path length, name constraints,
 * EKU nesting), the signer's subject, SAN and usage rules, the node name and
 * the private key; and tells when the kubelet would rotate it. A failed check
 * is reported, not thrown; malformed input throws {@link InvalidInputError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCa, verifyCertificate } from "./mod.ts";
 *
 * const ca = await createCa({ keyType: "ecdsa-p256" });
 * // The CA checked as if it were a kubelet's certificate: the chain holds, the CA flag does not.
 * const report = await verifyCertificate({ certificate: ca.certificate, ca: ca.certificate });
 * assert.equal(report.checks.find((c) => c.check === "chain")?.ok, true);
 * assert.equal(report.checks.find((c) => c.check === "ca-flag")?.ok, false);
 * assert.equal(report.ok, false);
 * ```
 */
export function verifyCertificate(options: VerifyCertificateOptions): Promise<CertificateReport> {
  return lifted(async () => {
    const { loadCertsPem } = await import("./lib/pki/certsource.ts");
    const { verifyCertificate: verify } = await import("./lib/kubelet/cert_verify.ts");
    const { signerValidator } = await import("./lib/kubelet/signer.ts");
    if (options.signerName !== undefined) {
      try {
        signerValidator(options.signerName);
      } catch (e) {
        // A malformed signer name is bad input here, not a verdict on the certificate.
        throw new InvalidInputError((e as Error).message, { cause: e });
      }
    }
    const cas = (await loadCertsPem(options.ca, "ca certificate")).map((cert) => ({
      cert,
      source: "ca certificate",
    }));
    const [leaf, ...intermediates] = await loadCertsPem(options.certificate, "certificate");
    let key: { spki: Uint8Array; source: string } | undefined;
    if (options.privateKey !== undefined) {
      const { importPrivateKeyPem } = await import("./lib/pki/keys.ts");
      const text = typeof options.privateKey === "string"
        ? options.privateKey
        : new TextDecoder().decode(options.privateKey);
      key = { spki: (await importPrivateKeyPem(text, "private key")).spki, source: "private key" };
    }
    const r = verify(leaf!, intermediates, "certificate", {
      cas,
      signerName: options.signerName,
      node: options.node,
      key,
      at: options.at ?? new Date(),
    });
    return {
      subject: r.subject,
      checks: r.checks.map((c) => ({ ...c })),
      rotation: { ...r.rotation },
      ok: r.ok,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Output

/**
 * Objects as kubectl prints them: YAML (a `---` stream, keys sorted, go-yaml's
 * quoting) or JSON (4-space indent, sorted keys; a `v1` List for several).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderManifests, tokenSecret } from "./mod.ts";
 *
 * const yaml = renderManifests([tokenSecret("abcdef.0123456789abcdef", { ttl: 0 })], "yaml");
 * assert.match(yaml, /^apiVersion: v1\ndata:\n/);
 * ```
 */
export function renderManifests(
  objects: readonly KubernetesObject[],
  format: "yaml" | "json" = "yaml",
): string {
  return liftedSync(() => renderObjects(objects, format));
}

// ---------------------------------------------------------------------------------------------
// This round's operations: the control-plane PKI, Secrets for git, Go's regular expressions.

/** What {@link controlPlanePki} makes: kubeadm's InitConfiguration/ClusterConfiguration fields. */
export interface ControlPlanePkiOptions {
  /** `nodeRegistration.name` (lower-cased as kubeadm does). */
  nodeName: string;
  /** `localAPIEndpoint.advertiseAddress`. */
  advertiseAddress: string;
  /** `localAPIEndpoint.bindPort` (6443). */
  bindPort?: number;
  /** `controlPlaneEndpoint` (none). */
  controlPlaneEndpoint?: string;
  /** `networking.serviceSubnet` (10.96.0.0/12). */
  serviceSubnet?: string;
  /** `networking.dnsDomain` (cluster.local). */
  dnsDomain?: string;
  /** `clusterName` (kubernetes). */
  clusterName?: string;
  /** `apiServer.certSANs`. */
  apiServerCertSANs?: readonly string[];
  /** `etcd.local.serverCertSANs`. */
  etcdServerCertSANs?: readonly string[];
  /** `etcd.local.peerCertSANs`. */
  etcdPeerCertSANs?: readonly string[];
  /** `etcd.external` is set: no etcd certificates. */
  externalEtcd?: boolean;
  /** `encryptionAlgorithm`: RSA-2048 (default), RSA-3072, RSA-4096, ECDSA-P256, ECDSA-P384. */
  encryptionAlgorithm?: string;
  /** `certificateValidityPeriod`, Go syntax or ms (8760h). */
  certificateValidity?: string | number;
  /** `caCertificateValidityPeriod`, Go syntax or ms (87600h). */
  caCertificateValidity?: string | number;
  /** Files already there (paths relative to the output directory, e.g. `pki/ca.crt`): kept as kubeadm keeps them. */
  existing?: Readonly<Record<string, Pem>>;
  /** The clock (default: now). */
  now?: Date;
}

/** One file of the tree, relative to the output directory. */
export interface PkiFileToWrite {
  /** e.g. `pki/apiserver.crt`, `admin.conf`. */
  path: string;
  /** Its content (PEM or kubeconfig YAML). */
  data: string;
  /** kubeadm's mode: 0o600 for keys, `sa.pub` and kubeconfigs, 0o644 for certificates. */
  mode: number;
}

/** What {@link controlPlanePki} made. */
export interface ControlPlanePkiResult {
  /** The files to write (none of `existing`). */
  files: PkiFileToWrite[];
  /** kubeadm's warnings (left-out SANs, long validity, an unexpected server URL). */
  warnings: string[];
}

/** A duration given as Go text or milliseconds. */
function durationMs(v: string | number | undefined): number | undefined {
  return typeof v === "string" ? parseDuration(v) : v;
}

/**
 * The control-plane PKI `kubeadm init phase certs all` and `kubeconfig all`
 * write for one node (what `joinkit certs generate` writes): the CAs, every
 * leaf certificate and key with kubeadm's names, SANs and usages, `sa.key`/
 * `sa.pub`, and the kubeconfigs. Files in `existing` are kept and checked as
 * kubeadm checks them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controlPlanePki } from "./mod.ts";
 *
 * const pki = await controlPlanePki({
 *   nodeName: "cp-1",
 *   advertiseAddress: "10.0.0.10",
 *   encryptionAlgorithm: "ECDSA-P256",
 *   now: new Date("2026-01-01T00:00:00Z"),
 * });
 * const paths = pki.files.map((f) => f.path);
 * assert.ok(paths.includes("pki/ca.crt") && paths.includes("pki/apiserver.key"));
 * assert.equal(pki.files.find((f) => f.path === "pki/apiserver.key")?.mode, 0o600);
 * ```
 */
export function controlPlanePki(options: ControlPlanePkiOptions): Promise<ControlPlanePkiResult> {
  return lifted(async () => {
    const { controlPlanePkiSpec } = await import("./lib/phases/certlist.ts");
    const { buildControlPlanePki } = await import("./lib/phases/certs.ts");
    const o = options;
    const spec = controlPlanePkiSpec({
      nodeName: o.nodeName,
      advertiseAddress: o.advertiseAddress,
      ...(o.bindPort !== undefined ? { bindPort: o.bindPort } : {}),
      ...(o.controlPlaneEndpoint !== undefined
        ? { controlPlaneEndpoint: o.controlPlaneEndpoint }
        : {}),
      ...(o.serviceSubnet !== undefined ? { serviceSubnet: o.serviceSubnet } : {}),
      ...(o.dnsDomain !== undefined ? { dnsDomain: o.dnsDomain } : {}),
      ...(o.clusterName !== undefined ? { clusterName: o.clusterName } : {}),
      ...(o.apiServerCertSANs ? { apiServerCertSANs: [...o.apiServerCertSANs] } : {}),
      ...(o.etcdServerCertSANs ? { etcdServerCertSANs: [...o.etcdServerCertSANs] } : {}),
      ...(o.etcdPeerCertSANs ? { etcdPeerCertSANs: [...o.etcdPeerCertSANs] } : {}),
      ...(o.externalEtcd !== undefined ? { externalEtcd: o.externalEtcd } : {}),
      ...(o.encryptionAlgorithm !== undefined
        ? { encryptionAlgorithm: o.encryptionAlgorithm }
        : {}),
      ...(o.certificateValidity !== undefined
        ? { certificateValidityMs: durationMs(o.certificateValidity)! }
        : {}),
      ...(o.caCertificateValidity !== undefined
        ? { caCertificateValidityMs: durationMs(o.caCertificateValidity)! }
        : {}),
    });
    const existing = new Map<string, Uint8Array>();
    for (const [p, v] of Object.entries(o.existing ?? {})) {
      existing.set(p, typeof v === "string" ? new TextEncoder().encode(v) : v);
    }
    const pki = await buildControlPlanePki({ spec, now: o.now ?? new Date(), existing });
    return {
      files: pki.files.map((f) => ({ path: f.path, data: f.data, mode: f.mode })),
      warnings: [...pki.warnings],
    };
  });
}

/** How {@link sealSecret} seals. */
export interface SealSecretOptions {
  /** The Sealed Secrets controller's certificate (PEM; `kubeseal --fetch-cert`). */
  certificate: Pem;
  /** `strict` (default: the Secret's own annotations decide), `namespace-wide` or `cluster-wide`. */
  scope?: "strict" | "namespace-wide" | "cluster-wide";
  /** Seal a Secret with neither data nor stringData (`--allow-empty-data`). */
  allowEmptyData?: boolean;
  /** The clock the certificate's validity is checked at (default: now). */
  now?: Date;
}

/**
 * The SealedSecret `kubeseal --cert CERT [--scope S]` writes for `secret`
 * (bitnami.com/v1alpha1; each value RSA-OAEP + AES-256-GCM for the
 * controller), safe to commit to git.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCa, sealSecret, tokenSecret } from "./mod.ts";
 *
 * // Any RSA certificate stands in for the controller's here (`kubeseal --fetch-cert` in real use).
 * const controller = await createCa({ commonName: "sealed-secrets", keyType: "rsa-2048" });
 * const secret = tokenSecret("abcdef.0123456789abcdef", { ttl: 0 });
 * const sealed = await sealSecret(secret, { certificate: controller.certificate });
 * assert.equal(sealed.kind, "SealedSecret");
 * const spec = sealed.spec as { encryptedData: Record<string, string> };
 * assert.ok(spec.encryptedData["token-secret"]);
 * assert.ok(!JSON.stringify(sealed).includes("0123456789abcdef"));
 * ```
 */
export function sealSecret(
  secret: KubernetesObject,
  options: SealSecretOptions,
): Promise<KubernetesObject> {
  return lifted(async () => {
    const { loadCertsPem } = await import("./lib/pki/certsource.ts");
    const { sealingKeyFromCert, sealSecret: seal } = await import("./lib/gitops/sealed_secret.ts");
    const cert = (await loadCertsPem(options.certificate, "sealing certificate"))[0]!;
    const key = sealingKeyFromCert(cert, options.now ?? new Date());
    return seal(secret as Parameters<typeof seal>[0], {
      key,
      scope: options.scope ?? "strict",
      ...(options.allowEmptyData ? { allowEmptyData: true } : {}),
    }, "secret");
  });
}

/**
 * `secret` SOPS-encrypted for age `recipients` (`age1…`), as `sops --encrypt
 * --encrypted-regex '^(data|stringData)$' --age R` writes it: values
 * encrypted, the rest in clear; `sops --decrypt` and Flux read it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateIdentity, identityToRecipient } from "age-encryption";
 * import { encryptSecret, tokenSecret } from "./mod.ts";
 *
 * const recipient = await identityToRecipient(await generateIdentity());
 * const doc = await encryptSecret(tokenSecret("abcdef.0123456789abcdef", { ttl: 0 }), [recipient]);
 * const data = doc.data as Record<string, string>;
 * assert.match(data["token-secret"]!, /^ENC\[AES256_GCM,data:/);
 * assert.equal((doc.sops as { age: { recipient: string }[] }).age[0]!.recipient, recipient);
 * ```
 */
export function encryptSecret(
  secret: KubernetesObject,
  recipients: readonly string[],
  options: { now?: Date } = {},
): Promise<KubernetesObject> {
  return lifted(async () => {
    if (recipients.length === 0) {
      throw new InvalidInputError("at least one age recipient is needed");
    }
    const { parseAgeRecipient } = await import("./lib/gitops/age.ts");
    const { newSopsDataKey, sopsEncryptObject } = await import("./lib/gitops/sops.ts");
    const { withoutLastApplied } = await import("./lib/gitops/sealed_secret.ts");
    const checked = recipients.map((r) => parseAgeRecipient(r.trim()));
    const key = await newSopsDataKey(checked);
    return sopsEncryptObject(
      withoutLastApplied(secret as Parameters<typeof withoutLastApplied>[0]),
      key,
      options.now ?? new Date(),
    );
  });
}

/** A compiled Go regular expression (Go's `regexp`, RE2 syntax, linear time). */
export interface GoRegexp {
  /** The pattern as given. */
  readonly pattern: string;
  /** Go's `MatchString`: whether it matches anywhere in `text`. */
  test(text: string): boolean;
}

/**
 * Compiles `pattern` as Go's `regexp.Compile` does (Go 1.23 syntax: RE2, no
 * backreferences or lookaround, linear-time matching), the patterns kubeadm
 * and approval policies are written in. A pattern Go refuses throws
 * {@link InvalidInputError} with Go's text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goRegexp, InvalidInputError } from "./mod.ts";
 *
 * assert.equal(goRegexp("^system:node:[a-z0-9.-]+$").test("system:node:worker-1"), true);
 * assert.throws(() => goRegexp("(a)\\1"), InvalidInputError); // Go has no backreferences
 * ```
 */
export function goRegexp(pattern: string): GoRegexp {
  return liftedSync(() => {
    let re;
    try {
      re = compileGoRegexp(pattern);
    } catch (e) {
      if (e instanceof Error && e.name === "GoRegexpError") throw new InvalidInputError(e.message);
      throw e;
    }
    return { pattern: re.pattern, test: (text: string) => re.matchString(text) };
  });
}
