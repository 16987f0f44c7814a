/**
 * Bootstrap tokens as kubeadm turns them into Secrets (k/k
 * `cmd/kubeadm/app/apis/bootstraptoken/v1/utils.go`, `defaults.go`, kubeadm
 * validation); reading them back lives in `bootstrap_token_read.ts` and is
 * re-exported here.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { parseDuration } from "../go/duration.ts";
import { UsageError } from "../base/errors.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { formatRfc3339 } from "../go/time.ts";
import {
  goQuote,
  KEYS,
  KNOWN_USAGES,
  NODE_BOOTSTRAP_TOKEN_GROUP,
  SECRET_PREFIX,
  SECRET_TYPE,
  type Token,
  TOKEN_NAMESPACE,
  validateBootstrapGroupName,
  validateUsages,
} from "./token.ts";

/** `DefaultTokenDuration`: 24 hours, in milliseconds. */
export const DEFAULT_TTL_MS = 24 * 3_600_000;

/**
 * Parses a `--ttl` value: a Go duration, not negative (`0` means the token
 * never expires). Errors are pflag's `invalid argument "<v>" for "--ttl" flag: …`.
 *
 * @example
 * ```ts
 * parseTtlFlag("2h"); // 7200000
 * ```
 */
export function parseTtlFlag(text: string): number {
  const invalid = (why: string) =>
    new UsageError(`invalid argument ${JSON.stringify(text)} for "--ttl" flag: ${why}`);
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (e) {
    throw invalid((e as Error).message);
  }
  if (ms < 0) throw invalid("must not be negative (0 means never expires)");
  return ms;
}

/** One token to render, as kubeadm's `BootstrapToken` API type holds it. */
export interface BootstrapTokenSpec {
  /** ID and secret. */
  token: Token;
  /** Human-readable description (omitted when empty). */
  description?: string;
  /** Time to live in ms; 0 means it never expires. Ignored when `expires` is set. */
  ttlMs?: number;
  /** Absolute expiry; wins over `ttlMs`. */
  expires?: Date;
  /** Usages; kubeadm's default `signing,authentication` when empty or absent. */
  usages?: readonly string[];
  /** Extra groups; kubeadm's default node-token group when empty or absent. */
  groups?: readonly string[];
}

/**
 * `SetDefaults_BootstrapToken`: TTL 24h (unless `expires` is set), both usages,
 * and the default node-token group when none is given.
 *
 * @example
 * ```ts
 * withDefaults({ token: { id: "abcdef", secret: "0123456789abcdef" } }).groups;
 * // ["system:bootstrappers:kubeadm:default-node-token"]
 * ```
 */
export function withDefaults(spec: BootstrapTokenSpec): BootstrapTokenSpec {
  const out: BootstrapTokenSpec = {
    ...spec,
    usages: spec.usages?.length ? [...spec.usages] : [...KNOWN_USAGES],
    groups: spec.groups?.length ? [...spec.groups] : [NODE_BOOTSTRAP_TOKEN_GROUP],
  };
  if (out.expires === undefined && out.ttlMs === undefined) out.ttlMs = DEFAULT_TTL_MS;
  return out;
}

/** Go's `%#v` of a `[]string`. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

/**
 * kubeadm's `ValidateTokenUsages` and `ValidateTokenGroups` for token `index`
 * of a configuration, returning the `field.ErrorList` texts (empty when valid).
 *
 * @example
 * ```ts
 * validateBootstrapToken({ token, usages: ["signing"], groups: ["x"] });
 * ```
 */
export function validateBootstrapToken(spec: BootstrapTokenSpec, index = 0): string[] {
  const usages = spec.usages ?? [];
  const groups = spec.groups ?? [];
  const path = `bootstrapTokens.${index}`;
  const errs: string[] = [];
  const usageErr = validateUsages(usages);
  if (usageErr) errs.push(`${path}.usages: Invalid value: ${goStringSlice(usages)}: ${usageErr}`);
  if (groups.length > 0 && !usages.includes("authentication")) {
    errs.push(
      `${path}.groups: Invalid value: ${
        goStringSlice(groups)
      }: token groups cannot be specified unless --usages includes "authentication"`,
    );
  }
  for (const group of groups) {
    const err = validateBootstrapGroupName(group);
    if (err) errs.push(`${path}.groups: Invalid value: ${goStringSlice(groups)}: ${err}`);
  }
  return errs;
}

/**
 * Joins errors as apimachinery's `utilerrors.NewAggregate(...).Error()`:
 * one message alone, several deduplicated inside `[a, b]`.
 *
 * @example
 * ```ts
 * aggregateErrors(["a", "b", "a"]); // "[a, b]"
 * ```
 */
export function aggregateErrors(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

/**
 * `encodeTokenSecretData`: the Secret's data as text, in upstream insertion
 * order (token-id, token-secret, description, expiration, usages, groups).
 *
 * @example
 * ```ts
 * encodeTokenSecretData({ token: { id: "abcdef", secret: "abcdef0123456789" } }, new Date(0));
 * // { "token-id": "abcdef", "token-secret": "abcdef0123456789" }
 * ```
 */
export function encodeTokenSecretData(
  spec: BootstrapTokenSpec,
  now: Date,
): Record<string, string> {
  const data: Record<string, string> = {
    [KEYS.id]: spec.token.id,
    [KEYS.secret]: spec.token.secret,
  };
  if (spec.description) data[KEYS.description] = spec.description;
  if (spec.expires !== undefined) {
    data[KEYS.expiration] = formatRfc3339(spec.expires);
  } else if (spec.ttlMs !== undefined && spec.ttlMs > 0) {
    data[KEYS.expiration] = formatRfc3339(new Date(now.getTime() + spec.ttlMs));
  }
  for (const usage of spec.usages ?? []) data[KEYS.usagePrefix + usage] = "true";
  if (spec.groups?.length) data[KEYS.extraGroups] = spec.groups.join(",");
  return data;
}

/**
 * `BootstrapTokenToSecret`: the `bootstrap-token-<id>` Secret in kube-system,
 * with `data` base64-encoded (or plain `stringData` when asked).
 *
 * @example
 * ```ts
 * tokenToSecret({ token: { id: "abcdef", secret: "abcdef0123456789" } }, new Date()).metadata;
 * // { name: "bootstrap-token-abcdef", namespace: "kube-system" }
 * ```
 */
export function tokenToSecret(
  spec: BootstrapTokenSpec,
  now: Date,
  opts: { stringData?: boolean } = {},
): KubeObject {
  const data = encodeTokenSecretData(spec, now);
  const secret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: SECRET_PREFIX + spec.token.id, namespace: TOKEN_NAMESPACE },
    type: SECRET_TYPE,
  };
  if (opts.stringData) {
    secret.stringData = data;
  } else {
    const encoded: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) {
      encoded[k] = base64Utf8(v);
    }
    secret.data = encoded;
  }
  return secret;
}

/**
 * {@link tokenToSecret} for many tokens sharing one spec: the common data is
 * encoded once, so thousands of Secrets cost little more than their tokens.
 * Gives exactly what `tokens.map((token) => tokenToSecret({ ...spec, token }, now, opts))` does.
 *
 * @example
 * ```ts
 * tokensToSecrets(withDefaults({ token }), [token], new Date()).length; // 1
 * ```
 */
export function tokensToSecrets(
  spec: BootstrapTokenSpec,
  tokens: readonly Token[],
  now: Date,
  opts: { stringData?: boolean } = {},
): KubeObject[] {
  const template = tokenToSecret({ ...spec, token: { id: "", secret: "" } }, now, opts);
  const field = opts.stringData ? "stringData" : "data";
  const { [KEYS.id]: _id, [KEYS.secret]: _secret, ...rest } = template[field] as Record<
    string,
    string
  >;
  const encode = opts.stringData ? (v: string) => v : base64Utf8;
  return tokens.map((token) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: SECRET_PREFIX + token.id, namespace: TOKEN_NAMESPACE },
    type: SECRET_TYPE,
    [field]: { [KEYS.id]: encode(token.id), [KEYS.secret]: encode(token.secret), ...rest },
  }));
}

// btoa is much faster than Buffer for the ASCII text tokens are made of.
// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
function base64Utf8(text: string): string {
  return ASCII.test(text) ? btoa(text) : Buffer.from(text, "utf8").toString("base64");
}

export {
  bootstrapTokenFromSecret,
  formatGoRfc3339,
  getExpiration,
  getGroups,
  type GoTime,
  type ParsedBootstrapToken,
  parseGoRfc3339,
} from "./bootstrap_token_read.ts";
