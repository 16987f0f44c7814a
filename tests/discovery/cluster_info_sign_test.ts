import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import {
  selectSigningTokens,
  signClusterInfoData,
  signingTokenOf,
} from "../../lib/discovery/bootstrap_signer.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import type { DecodedSecret } from "../../lib/k8s/secret.ts";
import { runCli, tempDir } from "../_cli.ts";

// k/k pkg/controller/bootstrap/bootstrapsigner_test.go + common_test.go
const SIG_ABC123 =
  "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiYzEyMyJ9..QSxpUG7Q542CirTI2ECPSZjvBOJURUW5a7XqFpNI958";
const NOW = new Date("2026-01-01T00:00:00Z");

function secret(
  id: string,
  tokenSecret: string,
  extra: Record<string, string> = {},
  name = `bootstrap-token-${id}`,
): DecodedSecret {
  return {
    name,
    namespace: "kube-system",
    type: "bootstrap.kubernetes.io/token",
    data: {
      "token-id": id,
      "token-secret": tokenSecret,
      "usage-bootstrap-signing": "true",
      ...extra,
    },
  };
}

Deno.test("signClusterInfoData() signs as the bootstrapsigner controller test expects", () => {
  const { tokens } = selectSigningTokens([secret("abc123", "tokenSecret")], NOW);
  const r = signClusterInfoData({ kubeconfig: "payload" }, tokens);
  assert.deepEqual(r.data, { kubeconfig: "payload", "jws-kubeconfig-abc123": SIG_ABC123 });
  assert.deepEqual(r.added, ["abc123"]);
  assert.equal(r.changed, true);
});

Deno.test("signClusterInfoData() leaves a correct signature alone (no update)", () => {
  const tokens = [{ id: "abc123", secret: "tokenSecret" }];
  const r = signClusterInfoData(
    { kubeconfig: "payload", "jws-kubeconfig-abc123": SIG_ABC123 },
    tokens,
  );
  assert.equal(r.changed, false);
  assert.deepEqual(r.unchanged, ["abc123"]);
});

Deno.test("signClusterInfoData() replaces an old signature", () => {
  const tokens = [{ id: "abc123", secret: "tokenSecret" }];
  const r = signClusterInfoData(
    { kubeconfig: "payload", "jws-kubeconfig-abc123": "old signature" },
    tokens,
  );
  assert.equal(r.data["jws-kubeconfig-abc123"], SIG_ABC123);
  assert.deepEqual(r.replaced, ["abc123"]);
});

Deno.test("signClusterInfoData() removes signatures of tokens that no longer sign", () => {
  const r = signClusterInfoData({
    kubeconfig: "payload",
    "jws-kubeconfig-abc123": SIG_ABC123,
    other: "x",
  }, []);
  assert.deepEqual(r.data, { kubeconfig: "payload", other: "x" });
  assert.deepEqual(r.removed, ["abc123"]);
  assert.equal(r.changed, true);
});

Deno.test("signClusterInfoData() refuses a ConfigMap without kubeconfig", () => {
  assert.throws(
    () => signClusterInfoData({}, []),
    /^InputError: cluster-info: cluster-info has no kubeconfig key/,
  );
  assert.throws(() => signClusterInfoData({ kubeconfig: "" }, [], "ci"), /no kubeconfig key/);
});

Deno.test("signingTokenOf() applies validateSecretForSigning and the informer filter", () => {
  const cases: [string, DecodedSecret, RegExp | undefined][] = [
    ["valid", secret("abc123", "tokenSecret"), undefined],
    [
      "no signing usage",
      secret("abc123", "s", { "usage-bootstrap-signing": "false" }),
      /usage-bootstrap-signing/,
    ],
    ["expired", secret("abc123", "s", { expiration: "2025-12-31T23:59:59Z" }), /expired/],
    [
      "expires exactly now",
      secret("abc123", "s", { expiration: "2026-01-01T00:00:00Z" }),
      /expired/,
    ],
    ["unparseable expiration", secret("abc123", "s", { expiration: "tomorrow" }), /expired/],
    ["not expired", secret("abc123", "s", { expiration: "2026-01-01T00:00:01Z" }), undefined],
    ["bad name", secret("abc123", "s", {}, "bootstrap-token-abc12"), /name/],
    ["id mismatch", secret("abc123", "s", {}, "bootstrap-token-abc124"), /does not match/],
    ["no secret", secret("abc123", ""), /no token-secret/],
    ["no id", secret("", "s", {}, "bootstrap-token-abc123"), /no token-id/],
    ["other namespace", { ...secret("abc123", "s"), namespace: "default" }, /kube-system/],
    ["no namespace (kube-system)", { ...secret("abc123", "s"), namespace: "" }, undefined],
    ["other type", { ...secret("abc123", "s"), type: "Opaque" }, /type/],
  ];
  for (const [name, s, reason] of cases) {
    const r = signingTokenOf(s, NOW);
    if (reason === undefined) assert.ok(!("reason" in r), name);
    else assert.match("reason" in r ? r.reason : "", reason, name);
  }
  const dup = selectSigningTokens([secret("abc123", "first"), secret("abc123", "second")], NOW);
  assert.deepEqual(dup.tokens, [{ id: "abc123", secret: "first" }]);
  assert.match(dup.skipped[0]!.reason, /duplicate/);
});

function secretYaml(id: string, tokenSecret: string, extra: Record<string, string> = {}): string {
  const data: Record<string, string> = {
    "token-id": id,
    "token-secret": tokenSecret,
    "usage-bootstrap-signing": "true",
    ...extra,
  };
  const lines = Object.entries(data).map(([k, v]) =>
    `  ${k}: ${Buffer.from(v).toString("base64")}`
  );
  return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-${id}\n  namespace: kube-system\ntype: bootstrap.kubernetes.io/token\ndata:\n${
    lines.join("\n")
  }\n`;
}

Deno.test("CLI cluster-info sign adds, replaces and removes, keeping kubeconfig byte for byte", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const kubeconfig = "apiVersion: v1\nkind: Config\n# odd: bytes kept\n";
    const ci = path.join(dir, "ci.json");
    fs.writeFileSync(
      ci,
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cluster-info", namespace: "kube-public", resourceVersion: "42" },
        data: {
          kubeconfig,
          "jws-kubeconfig-aaaaaa": "wrong",
          "jws-kubeconfig-bbbbbb": "gone",
          "jws-kubeconfig-cccccc": "expired",
        },
      }),
    );
    const secrets = path.join(dir, "secrets.yaml");
    fs.writeFileSync(
      secrets,
      [
        secretYaml("aaaaaa", "aaaaaaaaaaaaaaaa"),
        secretYaml("cccccc", "cccccccccccccccc", { expiration: "2025-01-01T00:00:00Z" }),
        secretYaml("dddddd", "dddddddddddddddd"),
        secretYaml("eeeeee", "eeeeeeeeeeeeeeee", { "usage-bootstrap-signing": "false" }),
      ].join("---\n"),
    );
    const r = await runCli([
      "cluster-info",
      "sign",
      ci,
      "--secrets",
      secrets,
      "--now",
      "2026-01-01T00:00:00Z",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      [
        "[bootstrap-signer] skipping Secret kube-system/bootstrap-token-cccccc: expired",
        `[bootstrap-signer] skipping Secret kube-system/bootstrap-token-eeeeee: usage-bootstrap-signing is not "true"`,
        `[bootstrap-signer] added signature for token ID "dddddd"`,
        `[bootstrap-signer] replaced wrong signature for token ID "aaaaaa"`,
        `[bootstrap-signer] removed signature for token ID "bbbbbb"`,
        `[bootstrap-signer] removed signature for token ID "cccccc"`,
        "",
      ].join("\n"),
    );
    const [cm] = parseManifests(r.stdout, "out") as {
      data: Record<string, string>;
      metadata: Record<string, string>;
    }[];
    assert.equal(cm!.data.kubeconfig, kubeconfig);
    assert.equal(cm!.metadata.resourceVersion, "42");
    assert.deepEqual(Object.keys(cm!.data).sort(), [
      "jws-kubeconfig-aaaaaa",
      "jws-kubeconfig-dddddd",
      "kubeconfig",
    ]);
    for (const s of ["aaaaaaaaaaaaaaaa", "dddddddddddddddd", "eeeeeeeeeeeeeeee"]) {
      assert.ok(!r.stderr.includes(s));
    }

    // Signing again changes nothing.
    const again = path.join(dir, "again.yaml");
    fs.writeFileSync(again, r.stdout);
    const r2 = await runCli([
      "cluster-info",
      "sign",
      again,
      "--secrets",
      secrets,
      "-o",
      "json",
      "--now",
      "2026-01-01T00:00:00Z",
    ]);
    assert.equal(r2.code, 0);
    assert.match(r2.stderr, /signatures already up to date\n$/);
    assert.deepEqual((JSON.parse(r2.stdout) as { data: unknown }).data, cm!.data);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info sign rejects what is not a cluster-info ConfigMap", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const secrets = path.join(dir, "s.yaml");
    fs.writeFileSync(secrets, secretYaml("aaaaaa", "aaaaaaaaaaaaaaaa"));
    const cases: [string, RegExp][] = [
      [secretYaml("bbbbbb", "bbbbbbbbbbbbbbbb"), /: not a ConfigMap \(found Secret\)/],
      [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: kube-public\n",
        /ConfigMap kube-public\/other is not kube-public\/cluster-info/,
      ],
      [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-info\n  namespace: kube-public\ndata:\n  x: z\n",
        /cluster-info has no kubeconfig key/,
      ],
      ["kind: [\n", /not valid YAML|not YAML/],
    ];
    for (const [text, re] of cases) {
      const f = path.join(dir, "ci.yaml");
      fs.writeFileSync(f, text);
      const r = await runCli(["cluster-info", "sign", f, "--secrets", secrets]);
      assert.equal(r.code, 1, text);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, re);
      assert.match(r.stderr, /^error: [^\n]+\n$/);
    }
    const none = await runCli(["cluster-info", "sign", secrets]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /missing required flag --secrets/);
  } finally {
    cleanup();
  }
});
