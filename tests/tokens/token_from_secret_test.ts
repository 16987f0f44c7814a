/**
 * bootstrapTokenFromSecret()'s shortcuts (the name and token shape checked
 * without building strings, usages sorted only when out of order) against
 * kubeadm's steps written plainly, on random Secrets: the same token or the
 * same error text.
 */

import assert from "node:assert/strict";
import { type DecodedSecret, getData } from "../../lib/k8s/secret.ts";
import {
  bootstrapTokenFromSecret,
  type ParsedBootstrapToken,
  tokenExpiration,
} from "../../lib/tokens/bootstrap_token.ts";
import { newBootstrapTokenString } from "../../lib/tokens/token.ts";
import { goQuote } from "../../lib/go/quote.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** kubeadm's BootstrapTokenFromSecret, step by step (joinkit's before the shortcuts). */
function plain(secret: DecodedSecret): ParsedBootstrapToken {
  const id = getData(secret, "token-id");
  if (id === "") throw new Error(`bootstrap Token Secret has no token-id data: ${secret.name}`);
  if (secret.name !== "bootstrap-token-" + id) {
    throw new Error(
      `bootstrap token name is not of the form 'bootstrap-token-(token-id)'. Actual: ${
        goQuote(secret.name)
      }. Expected: ${
        /^[a-z0-9]{6}$/.test(id)
          ? goQuote("bootstrap-token-" + id)
          : `"bootstrap-token-<token-id>" (token-id not shown: not [a-z0-9]{6})`
      }`,
    );
  }
  const tokenSecret = getData(secret, "token-secret");
  if (tokenSecret === "") {
    throw new Error(`bootstrap Token Secret has no token-secret data: ${secret.name}`);
  }
  let token;
  try {
    token = newBootstrapTokenString(`${id}.${tokenSecret}`);
  } catch (e) {
    throw new Error(
      `bootstrap Token Secret is invalid and couldn't be parsed: ${(e as Error).message}`,
    );
  }
  const parsed: ParsedBootstrapToken = {
    name: secret.name,
    token,
    description: getData(secret, "description"),
    usages: [],
    groups: [],
  };
  const expiration = tokenExpiration(getData(secret, "expiration"));
  if (expiration.kind === "unparseable") {
    throw new Error(
      `can't parse expiration time of bootstrap token ${goQuote(secret.name)}: ${expiration.error}`,
    );
  }
  if (expiration.kind === "at") parsed.expires = expiration.time;
  for (const [k, v] of Object.entries(secret.data)) {
    if (k.startsWith("usage-bootstrap-") && v === "true") parsed.usages.push(k.slice(16));
  }
  parsed.usages.sort();
  const g = getData(secret, "auth-extra-groups").split(",");
  if (g[0]) parsed.groups = g;
  return parsed;
}

const IDS = [
  "abcdef",
  "012345",
  "abc12z",
  "ABCDEF",
  "abc.de",
  "abcde",
  "abcdefg",
  "",
  "é12345",
  "ab de1",
];
const SECRETS = [
  "0123456789abcdef",
  "0123456789ABCDEF",
  "0123456789abcde",
  "0123456789abcdefg",
  "0123.56789abcdef",
  "",
  "0123456789abcdeé",
];
const USAGE_KEYS = [
  "usage-bootstrap-signing",
  "usage-bootstrap-authentication",
  "usage-bootstrap-",
  "usage-bootstrap-zz",
  "usage-bootstrap-a",
  "usage-bootstrap-signingx",
  "usage-bootstrap-Signing",
  "usage-bootstrap-authenticatio",
  "usage-bootstrap-ß",
];

Deno.test("bootstrapTokenFromSecret() gives what kubeadm's plain steps give, on 20,000 random Secrets", () => {
  const r = rng(21);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  for (let n = 0; n < 20_000; n++) {
    const id = pick(IDS);
    const data: Record<string, string> = {};
    const keys: [string, string][] = [];
    if (r() < 0.95) keys.push(["token-id", id]);
    if (r() < 0.95) keys.push(["token-secret", pick(SECRETS)]);
    if (r() < 0.3) keys.push(["description", pick(["", "d", "ünï"])]);
    if (r() < 0.5) keys.push(["expiration", pick(["", "2030-01-01T00:00:00Z", "bad"])]);
    if (r() < 0.5) keys.push(["auth-extra-groups", pick(["", "a", "a,b", ",x"])]);
    const nu = Math.floor(r() * 4);
    for (let u = 0; u < nu; u++) keys.push([pick(USAGE_KEYS), pick(["true", "true", "false", ""])]);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    for (const [k, v] of keys) data[k] = v;
    const name = r() < 0.8 ? "bootstrap-token-" + id : pick([
      "",
      "bootstrap-token-",
      "x",
      "bootstrap-token-abcdef",
      "bootstrap-token-x" + id,
      "bootstrap-" + id,
    ]);
    const secret: DecodedSecret = {
      name,
      namespace: "",
      type: "bootstrap.kubernetes.io/token",
      data,
    };
    let want: ParsedBootstrapToken | string;
    try {
      want = plain(secret);
    } catch (e) {
      want = (e as Error).message;
    }
    let got: ParsedBootstrapToken | string;
    try {
      got = bootstrapTokenFromSecret(secret);
    } catch (e) {
      got = (e as Error).message;
    }
    assert.deepStrictEqual(got, want, JSON.stringify(secret));
  }
});
