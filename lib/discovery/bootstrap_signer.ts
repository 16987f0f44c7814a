/**
 * The bootstrapsigner controller's job (k/k `pkg/controller/bootstrap/
 * bootstrapsigner.go`, `util.go`): which token Secrets sign, and bringing a
 * cluster-info ConfigMap's `jws-kubeconfig-<id>` keys up to date.
 *
 * @module
 */

import { tokenExpiration, tokenHasExpired } from "../tokens/bootstrap_token.ts";
import { detachedSigner } from "./jws.ts";
import { JWS_KEY_PREFIX, KUBECONFIG_KEY } from "./cluster_info.ts";
import { type DecodedSecret, decodeSecret, getData, isSecretObject } from "../k8s/secret.ts";
import { KEYS, SECRET_TYPE, type Token, TOKEN_NAMESPACE } from "../tokens/token.ts";
import { InputError } from "../base/errors.ts";

/** A Secret the signer passed over, and why (no secret values in `reason`). */
export interface SkippedSecret {
  /** `namespace/name` of the Secret. */
  name: string;
  /** Why it does not sign. */
  reason: string;
}

const NAME_PREFIX = "bootstrap-token-";

/** Whether `name` is `bootstrap-token-` and six of `[a-z0-9]` (`^bootstrap-token-([a-z0-9]{6})$`). */
function isTokenName(name: string): boolean {
  if (name.length !== NAME_PREFIX.length + 6 || !name.startsWith(NAME_PREFIX)) return false;
  for (let i = NAME_PREFIX.length; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

/**
 * `validateSecretForSigning` plus the controller's informer filter (type
 * `bootstrap.kubernetes.io/token`, namespace `kube-system`; a Secret with no
 * namespace counts as kube-system, as in the other token commands): the ID
 * and secret when `secret` signs at `now`, else the reason it does not.
 *
 * @example
 * ```ts ignore
 * signingTokenOf(secret, new Date()); // { id: "abc123", secret: "…" } or { reason: "…" }
 * ```
 */
export function signingTokenOf(
  secret: DecodedSecret,
  now: Date,
): Token | { reason: string } {
  // No namespace counts as kube-system, as in `token list` and `token check`.
  if (secret.namespace !== TOKEN_NAMESPACE && secret.namespace !== "") {
    return { reason: "not in namespace kube-system" };
  }
  if (secret.type !== SECRET_TYPE) return { reason: `type is not ${SECRET_TYPE}` };
  const name = secret.name;
  if (!isTokenName(name)) return { reason: "name is not bootstrap-token-<token-id>" };
  const id = getData(secret, KEYS.id);
  if (id === "") return { reason: "no token-id" };
  // The name is the prefix and six characters: the ID matches when it is those six.
  if (id.length !== 6 || !name.endsWith(id)) return { reason: "token-id does not match the name" };
  const tokenSecret = getData(secret, KEYS.secret);
  if (tokenSecret === "") return { reason: "no token-secret" };
  if (tokenHasExpired(tokenExpiration(getData(secret, KEYS.expiration)), now)) {
    return { reason: "expired" };
  }
  if (getData(secret, KEYS.usagePrefix + "signing") !== "true") {
    return { reason: 'usage-bootstrap-signing is not "true"' };
  }
  return { id, secret: tokenSecret };
}

/**
 * The tokens that sign, in input order; for a duplicate ID the first wins, as
 * in the controller. Skipped Secrets are reported with their reason.
 *
 * @example
 * ```ts ignore
 * selectSigningTokens(secrets, now).tokens.map((t) => t.id);
 * ```
 */
export function selectSigningTokens(
  secrets: readonly DecodedSecret[],
  now: Date,
): { tokens: Token[]; skipped: SkippedSecret[] } {
  const selection = new SigningSelection(now);
  for (const s of secrets) selection.add(s);
  return { tokens: selection.tokens, skipped: selection.skipped };
}

/**
 * {@link selectSigningTokens} fed one Secret at a time, so a fleet's decoded
 * Secrets need not be held until all are read: `tokens` and `skipped` are
 * what it returns for the Secrets added so far, in the order added.
 *
 * @example
 * ```ts ignore
 * const selection = new SigningSelection(now);
 * for (const s of secrets) selection.add(s);
 * selection.tokens;
 * ```
 */
export class SigningSelection {
  /** The tokens that sign. */
  readonly tokens: Token[] = [];
  /** The Secrets passed over, and why. */
  readonly skipped: SkippedSecret[] = [];
  readonly #ids = new Set<string>();
  readonly #now: Date;

  constructor(now: Date) {
    this.#now = now;
  }

  /** Judges one more Secret. */
  add(s: DecodedSecret): void {
    const r = signingTokenOf(s, this.#now);
    if ("reason" in r) {
      this.skipped.push({ name: skippedName(s), reason: r.reason });
    } else if (this.#ids.has(r.id)) {
      this.skipped.push({
        name: skippedName(s),
        reason: `duplicate token ID ${JSON.stringify(r.id)}`,
      });
    } else {
      this.#ids.add(r.id);
      this.tokens.push(r);
    }
  }
}

/** `namespace/name` of a Secret the signer passes over. */
function skippedName(s: DecodedSecret): string {
  return `${s.namespace || "<no namespace>"}/${s.name || "<no name>"}`;
}

/** What {@link signClusterInfoData} changed, by token ID. */
export interface SignResult {
  /** The new `data`: kubeconfig untouched, signatures for exactly the signing tokens. */
  data: Record<string, string>;
  /** IDs that got a signature they did not have. */
  added: string[];
  /** IDs whose wrong signature was replaced. */
  replaced: string[];
  /** IDs whose signature was removed (token gone, expired or not for signing). */
  removed: string[];
  /** IDs whose signature was already right. */
  unchanged: string[];
  /** Whether the controller would update the ConfigMap. */
  changed: boolean;
}

/**
 * `signConfigMap`: drops every `jws-kubeconfig-*` key and signs
 * `data.kubeconfig` (byte for byte) for each token. Other keys are kept.
 * Throws when there is no `kubeconfig` key (the controller would do nothing).
 *
 * @example
 * ```ts
 * signClusterInfoData({ kubeconfig: "payload" }, [{ id: "abc123", secret: "tokenSecret" }]).added;
 * // ["abc123"]
 * ```
 */
export function signClusterInfoData(
  data: Record<string, string>,
  tokens: readonly Token[],
  source = "cluster-info",
): SignResult {
  const content = data[KUBECONFIG_KEY];
  if (content === undefined || content === "") {
    throw new InputError(`${source}: cluster-info has no kubeconfig key, nothing to sign`);
  }
  const old = new Map<string, string>();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (k.startsWith(JWS_KEY_PREFIX)) old.set(k.slice(JWS_KEY_PREFIX.length), v);
    else out[k] = v;
  }
  const result: SignResult = {
    data: out,
    added: [],
    replaced: [],
    removed: [],
    unchanged: [],
    changed: false,
  };
  const sign = detachedSigner(content);
  for (const t of tokens) {
    const sig = sign(t.id, t.secret);
    out[JWS_KEY_PREFIX + t.id] = sig;
    const before = old.size > 0 ? old.get(t.id) : undefined;
    if (before === undefined) result.added.push(t.id);
    else if (before !== sig) result.replaced.push(t.id);
    else result.unchanged.push(t.id);
  }
  if (old.size > 0) {
    const signing = new Set(tokens.map((t) => t.id));
    for (const id of old.keys()) {
      if (!signing.has(id)) result.removed.push(id);
    }
  }
  result.changed = result.added.length + result.replaced.length + result.removed.length > 0;
  return result;
}

/**
 * The Secrets among parsed objects, decoded (other kinds are ignored, so a
 * whole `joinkit init` stream can be given).
 *
 * @example
 * ```ts ignore
 * secretsIn(parseManifests(text, "s.yaml"), "s.yaml").length;
 * ```
 */
export function secretsIn(objects: readonly unknown[], source: string): DecodedSecret[] {
  return objects.filter(isSecretObject).map((o) => decodeSecret(o, source));
}
