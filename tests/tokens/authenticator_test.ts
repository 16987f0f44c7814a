import assert from "node:assert/strict";
import { authenticateBootstrapToken } from "../../lib/tokens/authenticator.ts";
import { constantTimeEqual } from "../../lib/base/constant_time.ts";
import type { DecodedSecret } from "../../lib/k8s/secret.ts";

// k/k plugin/pkg/auth/authenticator/token/bootstrap/bootstrap_test.go
const tokenID = "foobar";
const tokenSecret = "circumnavigation";
const NOW = new Date("2026-11-22T00:00:00Z");

function secret(
  data: Record<string, string>,
  opts: { name?: string; type?: string; deleted?: boolean; namespace?: string } = {},
): DecodedSecret {
  const s: DecodedSecret = {
    name: opts.name ?? "bootstrap-token-" + tokenID,
    namespace: opts.namespace ?? "kube-system",
    type: opts.type ?? "bootstrap.kubernetes.io/token",
    data,
  };
  if (opts.deleted) s.deletionTimestamp = "2026-11-21T00:00:00Z";
  return s;
}

const valid = {
  "token-id": tokenID,
  "token-secret": tokenSecret,
  "usage-bootstrap-authentication": "true",
};

interface Case {
  name: string;
  secrets: DecodedSecret[];
  token: string;
  want?: { user: string; groups: string[] };
  step?: number;
}

const UPSTREAM: Case[] = [
  {
    name: "valid token",
    secrets: [secret(valid)],
    token: tokenID + "." + tokenSecret,
    want: { user: "system:bootstrap:" + tokenID, groups: ["system:bootstrappers"] },
  },
  {
    name: "valid token with extra group",
    secrets: [secret({ ...valid, "auth-extra-groups": "system:bootstrappers:foo" })],
    token: tokenID + "." + tokenSecret,
    want: {
      user: "system:bootstrap:" + tokenID,
      groups: ["system:bootstrappers", "system:bootstrappers:foo"],
    },
  },
  {
    name: "invalid group",
    secrets: [secret({ ...valid, "auth-extra-groups": "foo" })],
    token: tokenID + "." + tokenSecret,
    step: 9,
  },
  {
    name: "invalid secret name",
    secrets: [secret(valid, { name: "bad-name" })],
    token: tokenID + "." + tokenSecret,
    step: 2,
  },
  {
    name: "no usage",
    secrets: [secret({ "token-id": tokenID, "token-secret": tokenSecret })],
    token: tokenID + "." + tokenSecret,
    step: 8,
  },
  {
    name: "wrong token",
    secrets: [secret(valid)],
    token: "barfoo" + "." + tokenSecret,
    step: 2,
  },
  {
    name: "deleted token",
    secrets: [secret(valid, { deleted: true })],
    token: tokenID + "." + tokenSecret,
    step: 3,
  },
  {
    name: "expired token",
    secrets: [secret({ ...valid, expiration: "2009-11-10T23:00:00Z" })],
    token: tokenID + "." + tokenSecret,
    step: 7,
  },
  {
    name: "not expired token",
    secrets: [secret({ ...valid, expiration: "2109-11-10T23:00:00Z" })],
    token: tokenID + "." + tokenSecret,
    want: { user: "system:bootstrap:" + tokenID, groups: ["system:bootstrappers"] },
  },
  {
    name: "token id wrong length",
    secrets: [secret({ ...valid, "token-id": "foo" }, { name: "bootstrap-token-foo" })],
    token: "foo" + "." + tokenSecret,
    step: 1,
  },
];

Deno.test("authenticateBootstrapToken() passes the ten upstream cases", () => {
  assert.equal(UPSTREAM.length, 10);
  for (const c of UPSTREAM) {
    const r = authenticateBootstrapToken(c.token, c.secrets, NOW);
    if (c.want) {
      assert.deepEqual(r, { authenticated: true, ...c.want }, c.name);
    } else {
      assert.equal(r.authenticated, false, c.name);
      if (!r.authenticated) assert.equal(r.step, c.step, `${c.name}: ${r.reason}`);
    }
  }
});

Deno.test("authenticateBootstrapToken() checks every step in upstream order", () => {
  const token = tokenID + "." + tokenSecret;
  const cases: [string, DecodedSecret[], number, string][] = [
    ["wrong type", [secret(valid, { type: "Opaque" })], 4, "has invalid type"],
    ["no data", [secret({})], 4, "has no data"],
    ["wrong secret", [secret({ ...valid, "token-secret": "circumnavigatioX" })], 5, "token-secret"],
    ["short secret", [secret({ ...valid, "token-secret": "short" })], 5, "token-secret"],
    ["id mismatch", [secret({ ...valid, "token-id": "barfoo" })], 6, "token-id"],
    ["expiry equals now", [secret({ ...valid, expiration: "2026-11-22T00:00:00Z" })], 7, "expired"],
    ["garbled expiry", [secret({ ...valid, expiration: "tomorrow" })], 7, "unparseable"],
    ["lower-case z", [secret({ ...valid, expiration: "2109-11-10t23:00:00z" })], 7, "unparseable"],
    ["usage not true", [secret({ ...valid, "usage-bootstrap-authentication": "yes" })], 8, "usage"],
    ["other namespace", [secret(valid, { namespace: "default" })], 2, "no Secret"],
    // the earlier failing step wins: deleted and wrong type and wrong secret -> 3
    ["deleted first", [secret({}, { deleted: true, type: "Opaque" })], 3, "deleted"],
    // wrong secret and expired -> 5, before the expiry is looked at
    [
      "secret before expiry",
      [
        secret({ ...valid, "token-secret": "x".repeat(16), expiration: "2000-01-01T00:00:00Z" }),
      ],
      5,
      "token-secret",
    ],
  ];
  for (const [name, secrets, step, text] of cases) {
    const r = authenticateBootstrapToken(token, secrets, NOW);
    assert.equal(r.authenticated, false, name);
    if (!r.authenticated) {
      assert.equal(r.step, step, `${name}: ${r.reason}`);
      assert.ok(r.reason.includes(text), `${name}: ${r.reason}`);
      assert.ok(!r.reason.includes(tokenSecret), name);
    }
  }
});

Deno.test("authenticateBootstrapToken() dedupes and sorts groups, no namespace counts as kube-system", () => {
  const r = authenticateBootstrapToken(
    tokenID + "." + tokenSecret,
    [secret({
      ...valid,
      "auth-extra-groups": "system:bootstrappers:z,system:bootstrappers:a,system:bootstrappers:z",
    }, { namespace: "" })],
    NOW,
  );
  assert.deepEqual(r, {
    authenticated: true,
    user: "system:bootstrap:foobar",
    groups: ["system:bootstrappers", "system:bootstrappers:a", "system:bootstrappers:z"],
  });
});

Deno.test("authenticateBootstrapToken() uses the last of duplicate Secrets", () => {
  const r = authenticateBootstrapToken(
    tokenID + "." + tokenSecret,
    [secret(valid), secret({ ...valid, "usage-bootstrap-authentication": "false" })],
    NOW,
  );
  assert.equal(r.authenticated, false);
});

Deno.test("constantTimeEqual() compares equal lengths with timingSafeEqual", () => {
  assert.equal(constantTimeEqual("circumnavigation", "circumnavigation"), true);
  assert.equal(constantTimeEqual("circumnavigation", "circumnavigatioN"), false);
  assert.equal(constantTimeEqual("abc", "abcd"), false);
  assert.equal(constantTimeEqual("", ""), true);
});

// Every adjacent pair of steps, with an input that fails both: the earlier step's message
// must win. Each row kills the mutation that swaps those two steps (or merges them).
Deno.test("authenticateBootstrapToken() adjacent steps: the earlier of two failing steps wins", () => {
  const token = tokenID + "." + tokenSecret;
  const expired = "2000-01-01T00:00:00Z";
  const badGroups = { "auth-extra-groups": "not-a-bootstrap-group" };
  const rows: {
    pair: string;
    token?: string;
    secrets: DecodedSecret[];
    step: number;
    rule: string;
    reason: string;
  }[] = [
    {
      pair: "1 format / 2 lookup",
      token: "FOOBAR." + tokenSecret,
      secrets: [],
      step: 1,
      rule: "format",
      reason:
        "not a bootstrap token of the form [a-z0-9]{6}.[a-z0-9]{16}, so the authenticator ignores it",
    },
    {
      // A missing Secret has no deletion mark: the only co-failure is a deleted Secret
      // elsewhere, which the lister never returns.
      pair: "2 lookup / 3 deletion",
      secrets: [secret(valid, { deleted: true, namespace: "default" })],
      step: 2,
      rule: "secret",
      reason: "no Secret kube-system/bootstrap-token-foobar in the inputs",
    },
    {
      pair: "3 deletion / 4 type",
      secrets: [secret(valid, { deleted: true, type: "Opaque" })],
      step: 3,
      rule: "deletion",
      reason: "bootstrap secret kube-system/bootstrap-token-foobar is deleted and awaiting removal",
    },
    {
      pair: "4 type / 4 data",
      secrets: [secret({}, { type: "Opaque" })],
      step: 4,
      rule: "type",
      reason:
        "bootstrap secret kube-system/bootstrap-token-foobar has invalid type, expected bootstrap.kubernetes.io/token",
    },
    {
      pair: "4 data / 5 token-secret",
      secrets: [secret({})],
      step: 4,
      rule: "type",
      reason: "bootstrap secret kube-system/bootstrap-token-foobar has no data",
    },
    {
      pair: "5 token-secret / 6 token-id",
      secrets: [secret({ ...valid, "token-secret": "x".repeat(16), "token-id": "barfoo" })],
      step: 5,
      rule: "token-secret",
      reason:
        "bootstrap secret kube-system/bootstrap-token-foobar has invalid value for key token-secret",
    },
    {
      pair: "6 token-id / 7 expiration",
      secrets: [secret({ ...valid, "token-id": "barfoo", expiration: expired })],
      step: 6,
      rule: "token-id",
      reason:
        "bootstrap secret kube-system/bootstrap-token-foobar has invalid value for key token-id",
    },
    {
      pair: "7 expiration / 8 usage",
      secrets: [
        secret({ ...valid, expiration: expired, "usage-bootstrap-authentication": "false" }),
      ],
      step: 7,
      rule: "expiration",
      reason:
        `bootstrap secret kube-system/bootstrap-token-foobar has expired (expiration ${expired})`,
    },
    {
      pair: "8 usage / 9 extra groups",
      secrets: [secret({ ...valid, "usage-bootstrap-authentication": "", ...badGroups })],
      step: 8,
      rule: "usage",
      reason:
        "bootstrap secret kube-system/bootstrap-token-foobar not marked usage-bootstrap-authentication=true",
    },
    {
      pair: "9 extra groups alone",
      secrets: [secret({ ...valid, ...badGroups })],
      step: 9,
      rule: "auth-extra-groups",
      reason:
        "bootstrap secret kube-system/bootstrap-token-foobar has invalid value for key auth-extra-groups: ",
    },
  ];
  for (const r of rows) {
    const got = authenticateBootstrapToken(r.token ?? token, r.secrets, NOW);
    assert.equal(got.authenticated, false, r.pair);
    if (got.authenticated) continue;
    assert.equal(got.step, r.step, `${r.pair}: ${got.reason}`);
    assert.equal(got.rule, r.rule, r.pair);
    if (r.reason.endsWith(": ")) assert.ok(got.reason.startsWith(r.reason), got.reason);
    else assert.equal(got.reason, r.reason, r.pair);
  }
});
