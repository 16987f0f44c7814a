/**
 * Bootstrap tokens as kubeadm turns them into Secrets (k/k
 * `cmd/kubeadm/app/apis/bootstraptoken/v1/utils.go`, `defaults.go`, kubeadm
 * validation), and reading them back: kubeadm's `BootstrapTokenFromSecret`
 * and cluster-bootstrap's `util/secrets` (`GetExpiration`, `GetGroups`).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { parseDuration } from "../go/duration.ts";
import { InputError, UsageError } from "../base/errors.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { type DecodedSecret, getData } from "../k8s/secret.ts";
import { goQuote } from "../go/quote.ts";
import {
  compareToDate,
  formatRfc3339,
  type GoInstant,
  type GoTime,
  goTimeOf,
  parseGoTime,
} from "../go/time.ts";
import {
  BOOTSTRAP_DEFAULT_GROUP,
  KEYS,
  KNOWN_USAGES,
  newBootstrapTokenString,
  NODE_BOOTSTRAP_TOKEN_GROUP,
  SECRET_PREFIX,
  SECRET_TYPE,
  type Token,
  TOKEN_ID_PATTERN,
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
    new UsageError(`invalid argument ${goQuote(text)} for "--ttl" flag: ${why}`);
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
 * ```ts ignore
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
 * ```ts ignore
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

/**
 * A bootstrap token's `expiration` as cluster-bootstrap's `GetExpiration`
 * reads it: the raw value, no trimming; empty or absent means never;
 * what `time.Parse(time.RFC3339, …)` refuses is unparseable (and so, for
 * every judge, expired).
 */
export type TokenExpiration =
  | { kind: "never" }
  | { kind: "at"; time: GoTime; instant: GoInstant }
  | { kind: "unparseable"; error: string };

/**
 * The one reading of an `expiration` value that every judge uses (`token
 * check`, `token list`, the authenticator, the bootstrap signer).
 *
 * @example
 * ```ts
 * tokenExpiration("2030-01-01T5:00:00Z").kind; // "at" (Go's fallback parser takes it)
 * tokenExpiration("2030-01-01T05:00:00Z\n").kind; // "unparseable"
 * ```
 */
export function tokenExpiration(value: string | undefined): TokenExpiration {
  if (value === undefined || value === "") return { kind: "never" };
  // Fleets share expirations: the last one parsed is reused (results are only read).
  if (value === lastExpiration.value) return lastExpiration.result;
  const r = parseGoTime(value);
  const result: TokenExpiration = r.ok
    ? { kind: "at", time: goTimeOf(r.time), instant: r.time }
    : { kind: "unparseable", error: r.error };
  lastExpiration = { value, result };
  return result;
}

let lastExpiration: { value: string; result: TokenExpiration } = {
  value: "",
  result: { kind: "never" },
};

/**
 * cluster-bootstrap's `HasExpired`: unparseable is expired; otherwise expired
 * when `exp.Sub(now) <= 0`, so a token is dead at its expiration instant.
 * Compared at nanosecond resolution on the expiration's side (`now` is a
 * `Date`, milliseconds).
 */
export function tokenHasExpired(exp: TokenExpiration, now: Date): boolean {
  if (exp.kind === "never") return false;
  if (exp.kind === "unparseable") return true;
  return compareToDate(exp.instant, now) <= 0;
}

/** A token read back from its Secret (`BootstrapTokenFromSecret`). */
export interface ParsedBootstrapToken {
  /** The Secret's name. */
  name: string;
  /** ID and secret. */
  token: Token;
  /** Description, `""` when none. */
  description: string;
  /** Expiry, when the Secret has one. */
  expires?: GoTime;
  /** Usages whose key is exactly `"true"`, prefix removed, sorted. */
  usages: string[];
  /** `auth-extra-groups` split on commas (empty when the first is empty). */
  groups: string[];
}

/**
 * kubeadm's `BootstrapTokenFromSecret`, with its error texts (the token value
 * is left out of them).
 *
 * @example
 * ```ts ignore
 * bootstrapTokenFromSecret(decodeSecret(obj, "in.yaml")).usages; // ["authentication", "signing"]
 * ```
 */
export function bootstrapTokenFromSecret(secret: DecodedSecret): ParsedBootstrapToken {
  const id = getData(secret, KEYS.id);
  if (id === "") {
    throw new InputError(`bootstrap Token Secret has no token-id data: ${secret.name}`);
  }
  if (!isNameOf(secret.name, id)) {
    throw new InputError(
      `bootstrap token name is not of the form '${SECRET_PREFIX}(token-id)'. Actual: ${
        goQuote(secret.name)
      }. Expected: ${
        // An invalid token-id may be a secret pasted into the wrong field: never echo it.
        TOKEN_ID_PATTERN.test(id)
          ? goQuote(SECRET_PREFIX + id)
          : `"${SECRET_PREFIX}<token-id>" (token-id not shown: not [a-z0-9]{6})`}`,
    );
  }
  const tokenSecret = getData(secret, KEYS.secret);
  if (tokenSecret === "") {
    throw new InputError(`bootstrap Token Secret has no token-secret data: ${secret.name}`);
  }
  let token: Token;
  // `<id>.<secret>` matches the token pattern exactly when each part does (neither holds a dot).
  if (isTokenPart(id, 6) && isTokenPart(tokenSecret, 16)) token = { id, secret: tokenSecret };
  else {
    try {
      token = newBootstrapTokenString(`${id}.${tokenSecret}`);
    } catch (e) {
      throw new InputError(
        `bootstrap Token Secret is invalid and couldn't be parsed: ${(e as Error).message}`,
      );
    }
  }
  const parsed: ParsedBootstrapToken = {
    name: secret.name,
    token,
    description: getData(secret, KEYS.description),
    usages: [],
    groups: [],
  };
  const expiration = tokenExpiration(getData(secret, KEYS.expiration));
  if (expiration.kind === "unparseable") {
    // kubeadm: errors.Wrapf(err, "can't parse expiration time of bootstrap token %q", name)
    throw new InputError(
      `can't parse expiration time of bootstrap token ${goQuote(secret.name)}: ${expiration.error}`,
    );
  }
  if (expiration.kind === "at") parsed.expires = expiration.time;
  const data = secret.data;
  const usages = parsed.usages;
  let sorted = true;
  for (const k of Object.keys(data)) {
    if (k.startsWith(KEYS.usagePrefix) && data[k] === "true") {
      const usage = usageName(k);
      if (usages.length > 0 && usage < usages[usages.length - 1]!) sorted = false;
      usages.push(usage);
    }
  }
  if (!sorted) usages.sort();
  const g = getData(secret, KEYS.extraGroups).split(",");
  if (g[0]) parsed.groups = g;
  return parsed;
}

/** Whether `name` is the prefix followed by `id`, without building that string. */
function isNameOf(name: string, id: string): boolean {
  return name.length === SECRET_PREFIX.length + id.length && name.startsWith(SECRET_PREFIX) &&
    name.endsWith(id);
}

/** Whether `s` is `n` of `[a-z0-9]` (a part of {@link TOKEN_PATTERN}). */
function isTokenPart(s: string, n: number): boolean {
  if (s.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

/** `key` without the usage prefix; the known usages' names shared. */
function usageName(key: string): string {
  for (const usage of KNOWN_USAGES) {
    if (key.length === KEYS.usagePrefix.length + usage.length && key.endsWith(usage)) return usage;
  }
  return key.slice(KEYS.usagePrefix.length);
}

/**
 * `GetExpiration` + `HasExpired` ({@link tokenExpiration},
 * {@link tokenHasExpired}): no `expiration` means never; unparseable or not
 * after `now` means expired. `remainingMs` is the time left when not expired.
 *
 * @example
 * ```ts ignore
 * getExpiration(secret, new Date()).expired; // false
 * ```
 */
export function getExpiration(
  secret: DecodedSecret,
  now: Date,
): { expired: boolean; remainingMs: number; unparseable?: boolean } {
  const exp = tokenExpiration(getData(secret, KEYS.expiration));
  if (exp.kind === "never") return { expired: false, remainingMs: 0 };
  if (exp.kind === "unparseable") return { expired: true, remainingMs: 0, unparseable: true };
  if (tokenHasExpired(exp, now)) return { expired: true, remainingMs: 0 };
  return { expired: false, remainingMs: Math.max(exp.time.date.getTime() - now.getTime(), 0) };
}

/**
 * `GetGroups`: `system:bootstrappers` plus the valid extra groups, sorted and
 * deduplicated; throws with `ValidateBootstrapGroupName`'s text if any extra
 * group is invalid.
 *
 * @example
 * ```ts ignore
 * getGroups(secret); // ["system:bootstrappers", "system:bootstrappers:foo"]
 * ```
 */
export function getGroups(secret: DecodedSecret): string[] {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = getData(secret, KEYS.extraGroups);
  if (extra !== "") {
    for (const group of extra.split(",")) {
      const err = validateBootstrapGroupName(group);
      if (err) throw new InputError(err);
      groups.add(group);
    }
  }
  return [...groups].sort();
}
