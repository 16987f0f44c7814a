/**
 * Bootstrap token syntax and generation (cluster-bootstrap `token/api` and
 * `token/util`).
 *
 * @module
 */

import { InputError } from "./errors.ts";
import { cryptoRandom, type RandomBytes, randomString } from "./random.ts";

/** The 36 characters a token is made of. */
export const TOKEN_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `BootstrapTokenPattern`. */
export const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** `BootstrapTokenIDPattern`. */
export const TOKEN_ID_PATTERN = /^[a-z0-9]{6}$/;

/** A token split into its public ID and its secret. */
export interface Token {
  /** The 6-character public ID. */
  id: string;
  /** The 16-character secret. */
  secret: string;
}

/**
 * Generates a bootstrap token `[a-z0-9]{6}.[a-z0-9]{16}` from the CSPRNG,
 * each character uniform over the 36 symbols.
 *
 * @example
 * ```ts
 * generateToken(); // e.g. "abcdef.0123456789abcdef"
 * ```
 */
export function generateToken(random: RandomBytes = cryptoRandom): string {
  return `${randomString(6, TOKEN_CHARS, random)}.${randomString(16, TOKEN_CHARS, random)}`;
}

/**
 * Splits a token into ID and secret, with kubeadm's error text
 * (`util/tokens.ParseToken`) when it is malformed.
 *
 * @example
 * ```ts
 * parseToken("abcdef.0123456789abcdef").id; // "abcdef"
 * ```
 */
export function parseToken(text: string): Token {
  const m = TOKEN_PATTERN.exec(text);
  if (!m) {
    // kubeadm prints the offending value; ours may be a secret, so only its shape is named.
    throw new InputError(
      `token was not of form "\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z"`,
    );
  }
  return { id: m[1]!, secret: m[2]! };
}
