/**
 * kube-apiserver's bootstrap token authenticator (k/k
 * `plugin/pkg/auth/authenticator/token/bootstrap/bootstrap.go`), run offline
 * against Secrets read from manifests.
 *
 * @module
 */

import { getExpiration, getGroups } from "./bootstrap_token.ts";
import { constantTimeEqual } from "../base/constant_time.ts";
import { type DecodedSecret, getData } from "../k8s/secret.ts";
import {
  BOOTSTRAP_USER_PREFIX,
  KEYS,
  SECRET_PREFIX,
  SECRET_TYPE,
  TOKEN_NAMESPACE,
  tokenFromString,
} from "./token.ts";

/** The user a token authenticates as. */
export interface AuthSuccess {
  authenticated: true;
  /** `system:bootstrap:<token-id>`. */
  user: string;
  /** Sorted, deduplicated; always includes `system:bootstrappers`. */
  groups: string[];
}

/** Why the authenticator said no. */
export interface AuthFailure {
  authenticated: false;
  /** The step of reference 2.2 that rejected the token (1–9). */
  step: number;
  /** Short name of that rule, e.g. `token-secret`. */
  rule: string;
  /** One-line explanation; never contains the token secret. */
  reason: string;
}

/** The authenticator's verdict. */
export type AuthResult = AuthSuccess | AuthFailure;

/**
 * The Secret the API server's lister would return for `name` in kube-system:
 * Secrets with no namespace count as kube-system; with duplicates the last
 * one wins, as with `kubectl apply`.
 */
function lookup(secrets: readonly DecodedSecret[], name: string): DecodedSecret | undefined {
  let found: DecodedSecret | undefined;
  for (const s of secrets) {
    if (s.name === name && (s.namespace === TOKEN_NAMESPACE || s.namespace === "")) found = s;
  }
  return found;
}

/**
 * Judges a bearer token as `TokenAuthenticator.AuthenticateToken` does, the
 * steps in upstream order: format, Secret lookup, deletion, type and data,
 * token-secret (constant time), token-id, expiry against `now`, the
 * authentication usage, and extra groups.
 *
 * @example
 * ```ts ignore
 * authenticateBootstrapToken("foobar.circumnavigation", secrets, new Date());
 * // { authenticated: true, user: "system:bootstrap:foobar", groups: ["system:bootstrappers"] }
 * ```
 */
export function authenticateBootstrapToken(
  token: string,
  secrets: readonly DecodedSecret[],
  now: Date,
): AuthResult {
  const no = (step: number, rule: string, reason: string): AuthFailure => ({
    authenticated: false,
    step,
    rule,
    reason,
  });
  const parsed = tokenFromString(token);
  if (!parsed) {
    return no(
      1,
      "format",
      "not a bootstrap token of the form [a-z0-9]{6}.[a-z0-9]{16}, so the authenticator ignores it",
    );
  }
  const { id: tokenID, secret: tokenSecret } = parsed;
  const name = SECRET_PREFIX + tokenID;
  const secret = lookup(secrets, name);
  if (!secret) return no(2, "secret", `no Secret ${TOKEN_NAMESPACE}/${name} in the inputs`);
  const what = `bootstrap secret ${TOKEN_NAMESPACE}/${name}`;
  if (secret.deletionTimestamp !== undefined) {
    return no(3, "deletion", `${what} is deleted and awaiting removal`);
  }
  if (secret.type !== SECRET_TYPE) {
    return no(4, "type", `${what} has invalid type, expected ${SECRET_TYPE}`);
  }
  if (Object.keys(secret.data).length === 0) {
    return no(4, "type", `${what} has no data`);
  }
  if (!constantTimeEqual(getData(secret, KEYS.secret), tokenSecret)) {
    return no(5, KEYS.secret, `${what} has invalid value for key ${KEYS.secret}`);
  }
  if (getData(secret, KEYS.id) !== tokenID) {
    return no(6, KEYS.id, `${what} has invalid value for key ${KEYS.id}`);
  }
  const exp = getExpiration(secret, now);
  if (exp.expired) {
    return no(
      7,
      KEYS.expiration,
      exp.unparseable
        ? `${what} has an unparseable expiration, treated as expired`
        : `${what} has expired (expiration ${getData(secret, KEYS.expiration)})`,
    );
  }
  if (getData(secret, KEYS.usageAuthentication) !== "true") {
    return no(8, "usage", `${what} not marked ${KEYS.usageAuthentication}=true`);
  }
  let groups: string[];
  try {
    groups = getGroups(secret);
  } catch (e) {
    return no(
      9,
      KEYS.extraGroups,
      `${what} has invalid value for key ${KEYS.extraGroups}: ${(e as Error).message}`,
    );
  }
  return { authenticated: true, user: BOOTSTRAP_USER_PREFIX + tokenID, groups };
}
