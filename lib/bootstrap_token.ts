/**
 * Bootstrap tokens as kubeadm turns them into Secrets and back
 * (k/k `cmd/kubeadm/app/apis/bootstraptoken/v1/utils.go`, `defaults.go`,
 * kubeadm validation, and cluster-bootstrap `util/secrets`).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { InputError } from "./errors.ts";
import type { KubeObject } from "./manifest.ts";
import { type DecodedSecret, getData } from "./secret.ts";
import { formatRfc3339, tryParseRfc3339 } from "./time.ts";
import {
  goQuote,
  KEYS,
  KNOWN_USAGES,
  newBootstrapTokenString,
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

/** A time as Go's `time.Parse(time.RFC3339, …)` keeps it: the instant and its UTC offset. */
export interface GoTime {
  /** The instant. */
  date: Date;
  /** The offset it was written with, in minutes east of UTC. */
  offsetMinutes: number;
}

const GO_RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses RFC 3339 as Go's `time.Parse(time.RFC3339, s)` does (upper-case `T`
 * and `Z`, optional fraction), keeping the offset; `undefined` if invalid.
 *
 * @example
 * ```ts
 * parseGoRfc3339("2030-01-01T02:00:00+02:00")?.offsetMinutes; // 120
 * ```
 */
export function parseGoRfc3339(text: string): GoTime | undefined {
  const m = GO_RFC3339.exec(text);
  if (!m) return undefined;
  const date = tryParseRfc3339(text.replace(",", "."));
  if (!date || Number.isNaN(date.getTime())) return undefined;
  const offsetMinutes = m[1] === "Z"
    ? 0
    : (m[2] === "-" ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
  return { date, offsetMinutes };
}

/**
 * Formats as Go's `t.Format(time.RFC3339)` in the time's own offset: whole
 * seconds, `Z` for a zero offset, else `±hh:mm`.
 *
 * @example
 * ```ts
 * formatGoRfc3339({ date: new Date(0), offsetMinutes: 60 }); // "1970-01-01T01:00:00+01:00"
 * ```
 */
export function formatGoRfc3339(t: GoTime): string {
  const local = new Date(t.date.getTime() + t.offsetMinutes * 60_000);
  const base = formatRfc3339(local).slice(0, -1);
  if (t.offsetMinutes === 0) return base + "Z";
  const abs = Math.abs(t.offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${base}${t.offsetMinutes < 0 ? "-" : "+"}${hh}:${mm}`;
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
 * ```ts
 * bootstrapTokenFromSecret(decodeSecret(obj, "in.yaml")).usages; // ["authentication", "signing"]
 * ```
 */
export function bootstrapTokenFromSecret(secret: DecodedSecret): ParsedBootstrapToken {
  const id = getData(secret, KEYS.id);
  if (id === "") {
    throw new InputError(`bootstrap Token Secret has no token-id data: ${secret.name}`);
  }
  if (secret.name !== SECRET_PREFIX + id) {
    throw new InputError(
      `bootstrap token name is not of the form '${SECRET_PREFIX}(token-id)'. Actual: ${
        goQuote(secret.name)
      }. Expected: ${goQuote(SECRET_PREFIX + id)}`,
    );
  }
  const tokenSecret = getData(secret, KEYS.secret);
  if (tokenSecret === "") {
    throw new InputError(`bootstrap Token Secret has no token-secret data: ${secret.name}`);
  }
  let token: Token;
  try {
    token = newBootstrapTokenString(`${id}.${tokenSecret}`);
  } catch (e) {
    throw new InputError(
      `bootstrap Token Secret is invalid and couldn't be parsed: ${(e as Error).message}`,
    );
  }
  const parsed: ParsedBootstrapToken = {
    name: secret.name,
    token,
    description: getData(secret, KEYS.description),
    usages: [],
    groups: [],
  };
  const expiration = getData(secret, KEYS.expiration);
  if (expiration !== "") {
    const t = parseGoRfc3339(expiration);
    if (!t) {
      throw new InputError(
        `can't parse expiration time of bootstrap token ${goQuote(secret.name)}: parsing time ${
          goQuote(expiration)
        } as "2006-01-02T15:04:05Z07:00": not RFC 3339`,
      );
    }
    parsed.expires = t;
  }
  for (const [k, v] of Object.entries(secret.data)) {
    if (k.startsWith(KEYS.usagePrefix) && v === "true") {
      parsed.usages.push(k.slice(KEYS.usagePrefix.length));
    }
  }
  parsed.usages.sort();
  const g = getData(secret, KEYS.extraGroups).split(",");
  if (g[0]) parsed.groups = g;
  return parsed;
}

/**
 * `GetExpiration`: no `expiration` means never; unparseable or not after
 * `now` means expired. `remainingMs` is the time left when not expired.
 *
 * @example
 * ```ts
 * getExpiration(secret, new Date()).expired; // false
 * ```
 */
export function getExpiration(
  secret: DecodedSecret,
  now: Date,
): { expired: boolean; remainingMs: number; unparseable?: boolean } {
  const text = getData(secret, KEYS.expiration);
  if (text === "") return { expired: false, remainingMs: 0 };
  const t = parseGoRfc3339(text);
  if (!t) return { expired: true, remainingMs: 0, unparseable: true };
  const left = t.date.getTime() - now.getTime();
  return left <= 0 ? { expired: true, remainingMs: 0 } : { expired: false, remainingMs: left };
}

/**
 * `GetGroups`: `system:bootstrappers` plus the valid extra groups, sorted and
 * deduplicated; throws with `ValidateBootstrapGroupName`'s text if any extra
 * group is invalid.
 *
 * @example
 * ```ts
 * getGroups(secret); // ["system:bootstrappers", "system:bootstrappers:foo"]
 * ```
 */
export function getGroups(secret: DecodedSecret): string[] {
  const groups = new Set(["system:bootstrappers"]);
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
