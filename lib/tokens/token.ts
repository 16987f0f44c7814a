/**
 * Bootstrap token syntax and generation (cluster-bootstrap `token/api` and
 * `token/util`).
 *
 * @module
 */

import { InputError, UsageError } from "../base/errors.ts";
import { cryptoRandom, type RandomBytes, randomString } from "../base/random.ts";
import { goQuote } from "../go/quote.ts";

/** The 36 characters a token is made of. */
export const TOKEN_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `BootstrapTokenPattern`. */
export const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** `BootstrapTokenIDPattern`. */
export const TOKEN_ID_PATTERN = /^[a-z0-9]{6}$/;

/**
 * The bootstrap-token value: its public ID and its secret, parsed once at the
 * edge ({@link parseToken}, {@link tokenFromString}) and passed as this value.
 * Its string form is {@link tokenString}. Never interpolate it into a message:
 * the secret must not reach one.
 */
export interface Token {
  /** The 6-character public ID. */
  id: string;
  /** The 16-character secret. */
  secret: string;
}

/**
 * The string form `id.secret` of a token, as kubeadm's `BootstrapTokenString.String()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenString } from "./token.ts";
 * assert.equal(tokenString({ id: "abcdef", secret: "0123456789abcdef" }), "abcdef.0123456789abcdef");
 * ```
 */
export function tokenString(t: Token): string {
  return `${t.id}.${t.secret}`;
}

/**
 * Generates a bootstrap token `[a-z0-9]{6}.[a-z0-9]{16}` from the CSPRNG,
 * each character uniform over the 36 symbols.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateToken, isValidBootstrapToken } from "./token.ts";
 * assert.equal(isValidBootstrapToken(generateToken()), true);
 * ```
 */
export function generateToken(random: RandomBytes = cryptoRandom): string {
  return `${randomString(6, TOKEN_CHARS, random)}.${randomString(16, TOKEN_CHARS, random)}`;
}

/**
 * The one token parser: `id.secret` split when `text` matches
 * {@link TOKEN_PATTERN} (`[a-z0-9]{6}.[a-z0-9]{16}`), else `undefined`. The
 * edges decide what a mismatch is: {@link parseToken} for a flag (usage
 * error), {@link newBootstrapTokenString} for a Secret's data (bad input),
 * the authenticator and discovery for their own judgements.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenFromString } from "./token.ts";
 * assert.deepEqual(tokenFromString("abcdef.0123456789abcdef"), { id: "abcdef", secret: "0123456789abcdef" });
 * assert.equal(tokenFromString("ABCDEF.0123456789abcdef"), undefined);
 * ```
 */
export function tokenFromString(text: string): Token | undefined {
  const m = TOKEN_PATTERN.exec(text);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/**
 * Splits a token given in a command-line flag into ID and secret. A malformed
 * one is a usage error naming the flag and the expected shape, never the
 * value (it may hold a secret).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseToken } from "./token.ts";
 * assert.equal(parseToken("abcdef.0123456789abcdef").id, "abcdef");
 * // parseToken("nope") throws UsageError "invalid --token: must match …"
 * ```
 */
export function parseToken(text: string, flag = "--token"): Token {
  const token = tokenFromString(text);
  if (!token) {
    throw new UsageError(
      `invalid ${flag}: must match [a-z0-9]{6}.[a-z0-9]{16} (value not shown)`,
    );
  }
  return token;
}

/** `BootstrapTokenSecretPrefix`: a token's Secret is named `bootstrap-token-<id>`. */
export const SECRET_PREFIX = "bootstrap-token-";

/** `SecretTypeBootstrapToken`. */
export const SECRET_TYPE = "bootstrap.kubernetes.io/token";

/** The namespace bootstrap token Secrets live in. */
export const TOKEN_NAMESPACE = "kube-system";

/** Secret data keys (`token/api/types.go`). */
export const KEYS = {
  id: "token-id",
  secret: "token-secret",
  expiration: "expiration",
  description: "description",
  extraGroups: "auth-extra-groups",
  usagePrefix: "usage-bootstrap-",
  usageSigning: "usage-bootstrap-signing",
  usageAuthentication: "usage-bootstrap-authentication",
} as const;

/** `KnownTokenUsages`, in upstream order. */
export const KNOWN_USAGES: readonly string[] = ["signing", "authentication"];

/** `BootstrapUserPrefix`. */
export const BOOTSTRAP_USER_PREFIX = "system:bootstrap:";

/** `BootstrapDefaultGroup`: every bootstrap token authenticates in it. */
export const BOOTSTRAP_DEFAULT_GROUP = "system:bootstrappers";

/** kubeadm's default extra group (`NodeBootstrapTokenAuthGroup`). */
export const NODE_BOOTSTRAP_TOKEN_GROUP = "system:bootstrappers:kubeadm:default-node-token";

/** `BootstrapGroupPattern`, as upstream spells it (RE2 `\A`/`\z`). */
export const GROUP_PATTERN_TEXT = String.raw`\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z`;

/** `BootstrapTokenPattern`, as upstream spells it. */
export const TOKEN_PATTERN_TEXT = String.raw`\A([a-z0-9]{6})\.([a-z0-9]{16})\z`;

const GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/**
 * `IsValidBootstrapToken`: `id.secret`, the ID matching `[a-z0-9]{6}` and the
 * secret exactly 16 characters of `[a-z0-9]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidBootstrapToken } from "./token.ts";
 * assert.equal(isValidBootstrapToken("abcdef.0123456789abcdef"), true);
 * ```
 */
export function isValidBootstrapToken(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}

/**
 * `IsValidBootstrapTokenID`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidBootstrapTokenID } from "./token.ts";
 * assert.equal(isValidBootstrapTokenID("abcdef"), true);
 * ```
 */
export function isValidBootstrapTokenID(id: string): boolean {
  return TOKEN_ID_PATTERN.test(id);
}

/**
 * kubeadm's `NewBootstrapTokenString`, for a token read from input (a
 * Secret's data): splits it, or throws kubeadm's error text as bad input
 * (exit 1), without the offending value (it may be a secret). A token given
 * in a flag goes through {@link parseToken} instead (usage error, exit 2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newBootstrapTokenString } from "./token.ts";
 * assert.equal(newBootstrapTokenString("abcdef.0123456789abcdef").secret, "0123456789abcdef");
 * ```
 */
export function newBootstrapTokenString(text: string): Token {
  const token = tokenFromString(text);
  if (!token) {
    throw new InputError(
      `the bootstrap token was not of the form ${goQuote(TOKEN_PATTERN_TEXT)}`,
    );
  }
  return token;
}

/**
 * `ValidateBootstrapGroupName`: the error text, or `undefined` when valid.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateBootstrapGroupName } from "./token.ts";
 * assert.equal(validateBootstrapGroupName("system:bootstrappers:foo"), undefined);
 * ```
 */
export function validateBootstrapGroupName(name: string): string | undefined {
  if (GROUP_PATTERN.test(name)) return undefined;
  return `bootstrap group ${goQuote(name)} is invalid (must match ${GROUP_PATTERN_TEXT})`;
}

/**
 * `ValidateUsages`: the error text (invalid usages sorted and deduplicated),
 * or `undefined` when every usage is known.
 *
 * @example
 * ```ts
 * import { validateUsages } from "./token.ts";
 * validateUsages(["foo", "signing"]);
 * // "invalid bootstrap token usage string: foo, valid usage options: signing,authentication"
 * ```
 */
export function validateUsages(usages: readonly string[]): string | undefined {
  const bad = [...new Set(usages.filter((u) => !KNOWN_USAGES.includes(u)))].sort();
  if (bad.length === 0) return undefined;
  return `invalid bootstrap token usage string: ${bad.join(",")}, valid usage options: ${
    KNOWN_USAGES.join(",")
  }`;
}
