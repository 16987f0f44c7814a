/**
 * signingTokenOf()'s shortcuts (the name checked without a regex match, the
 * expiry without the getExpiration record) against the controller's
 * validateSecretForSigning written plainly, on random Secrets.
 */

import assert from "node:assert/strict";
import { type DecodedSecret, getData } from "../../lib/k8s/secret.ts";
import { selectSigningTokens, signingTokenOf } from "../../lib/discovery/bootstrap_signer.ts";
import { getExpiration } from "../../lib/tokens/bootstrap_token.ts";
import type { Token } from "../../lib/tokens/token.ts";

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

/** The informer filter and validateSecretForSigning, step by step (joinkit's before the shortcuts). */
function plain(secret: DecodedSecret, now: Date): Token | { reason: string } {
  if (secret.namespace !== "kube-system" && secret.namespace !== "") {
    return { reason: "not in namespace kube-system" };
  }
  if (secret.type !== "bootstrap.kubernetes.io/token") {
    return { reason: "type is not bootstrap.kubernetes.io/token" };
  }
  const m = /^bootstrap-token-([a-z0-9]{6})$/.exec(secret.name);
  if (!m) return { reason: "name is not bootstrap-token-<token-id>" };
  const id = getData(secret, "token-id");
  if (id === "") return { reason: "no token-id" };
  if (id !== m[1]) return { reason: "token-id does not match the name" };
  const tokenSecret = getData(secret, "token-secret");
  if (tokenSecret === "") return { reason: "no token-secret" };
  if (getExpiration(secret, now).expired) return { reason: "expired" };
  if (getData(secret, "usage-bootstrap-signing") !== "true") {
    return { reason: 'usage-bootstrap-signing is not "true"' };
  }
  return { id, secret: tokenSecret };
}

const NAMES = [
  "bootstrap-token-abcdef",
  "bootstrap-token-012345",
  "bootstrap-token-ABCDEF",
  "bootstrap-token-abcde",
  "bootstrap-token-abcdefg",
  "bootstrap-token-abc.ef",
  "bootstrap-token-é12345",
  "bootstrap-tokenXabcdef",
  "",
  "x",
];
const IDS = ["abcdef", "012345", "bcdef", "cdef", "ABCDEF", "", "xabcdef", "def"];
const EXPIRATIONS = [
  "",
  "2026-01-01T12:00:00Z",
  "2026-01-01T11:59:59Z",
  "2026-01-01T12:00:00.000000001Z",
  "2030-01-01T00:00:00+01:00",
  "bad",
];

Deno.test("signingTokenOf() judges as the controller's plain steps, on 20,000 random Secrets", () => {
  const r = rng(8);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const now = new Date("2026-01-01T12:00:00Z");
  const secrets: DecodedSecret[] = [];
  for (let n = 0; n < 20_000; n++) {
    const data: Record<string, string> = {};
    if (r() < 0.9) data["token-id"] = pick(IDS);
    if (r() < 0.9) data["token-secret"] = pick(["0123456789abcdef", "", "x"]);
    if (r() < 0.6) data.expiration = pick(EXPIRATIONS);
    if (r() < 0.8) data["usage-bootstrap-signing"] = pick(["true", "true", "false", "True"]);
    const secret: DecodedSecret = {
      name: pick(NAMES),
      namespace: pick(["", "kube-system", "kube-system", "default"]),
      type: pick(["bootstrap.kubernetes.io/token", "bootstrap.kubernetes.io/token", "Opaque"]),
      data,
    };
    secrets.push(secret);
    assert.deepStrictEqual(signingTokenOf(secret, now), plain(secret, now), JSON.stringify(secret));
  }
  // And the selection over all of them: skipped names and reasons, first ID wins.
  const { tokens, skipped } = selectSigningTokens(secrets, now);
  const ids = new Set<string>();
  const want: Token[] = [];
  const wantSkipped = [];
  for (const s of secrets) {
    const res = plain(s, now);
    const name = `${s.namespace || "<no namespace>"}/${s.name || "<no name>"}`;
    if ("reason" in res) wantSkipped.push({ name, reason: res.reason });
    else if (ids.has(res.id)) {
      wantSkipped.push({ name, reason: `duplicate token ID ${JSON.stringify(res.id)}` });
    } else {
      ids.add(res.id);
      want.push(res);
    }
  }
  assert.deepStrictEqual(tokens, want);
  assert.deepStrictEqual(skipped, wantSkipped);
  // Every step decided some Secrets.
  const reasons = new Set(skipped.map((s) => s.reason.replace(/"[a-z0-9]{6}"/, "ID")));
  assert.equal(reasons.size, 9, [...reasons].join("; "));
  assert.ok(tokens.length === 2, `${tokens.length} signing`);
});
