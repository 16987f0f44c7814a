/**
 * Reading bootstrap tokens back from their Secrets: kubeadm's
 * `BootstrapTokenFromSecret` and cluster-bootstrap's `util/secrets`
 * (`GetExpiration`, `GetGroups`), with Go's RFC 3339 parsing and formatting.
 * Re-exported by `bootstrap_token.ts`.
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { type DecodedSecret, getData } from "../k8s/secret.ts";
import { compareToDate, formatRfc3339, type GoInstant, parseGoTime, toDate } from "../go/time.ts";
import {
  BOOTSTRAP_DEFAULT_GROUP,
  goQuote,
  KEYS,
  newBootstrapTokenString,
  SECRET_PREFIX,
  type Token,
  TOKEN_ID_PATTERN,
  validateBootstrapGroupName,
} from "./token.ts";

/** A time as Go's `time.Parse(time.RFC3339, …)` keeps it: the instant and its UTC offset. */
export interface GoTime {
  /** The instant, truncated to the millisecond. */
  date: Date;
  /** The offset it was written with, in minutes east of UTC. */
  offsetMinutes: number;
  /** The full instant (nanoseconds kept), when it was parsed from text. */
  instant?: GoInstant;
}

function goTimeOf(instant: GoInstant): GoTime {
  return { date: toDate(instant), offsetMinutes: instant.offsetSeconds / 60, instant };
}

/**
 * Parses RFC 3339 as Go's `time.Parse(time.RFC3339, s)` does (see
 * `lib/go/time.ts`), keeping the offset; `undefined` where Go returns an error.
 *
 * @example
 * ```ts
 * parseGoRfc3339("2030-01-01T02:00:00+02:00")?.offsetMinutes; // 120
 * ```
 */
export function parseGoRfc3339(text: string): GoTime | undefined {
  const r = parseGoTime(text);
  return r.ok ? goTimeOf(r.time) : undefined;
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
  const r = parseGoTime(value);
  if (!r.ok) return { kind: "unparseable", error: r.error };
  return { kind: "at", time: goTimeOf(r.time), instant: r.time };
}

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
  const expiration = tokenExpiration(getData(secret, KEYS.expiration));
  if (expiration.kind === "unparseable") {
    // kubeadm: errors.Wrapf(err, "can't parse expiration time of bootstrap token %q", name)
    throw new InputError(
      `can't parse expiration time of bootstrap token ${goQuote(secret.name)}: ${expiration.error}`,
    );
  }
  if (expiration.kind === "at") parsed.expires = expiration.time;
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
 * `GetExpiration` + `HasExpired` ({@link tokenExpiration},
 * {@link tokenHasExpired}): no `expiration` means never; unparseable or not
 * after `now` means expired. `remainingMs` is the time left when not expired.
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
 * ```ts
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
