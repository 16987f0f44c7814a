import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import {
  getExpiration,
  tokenExpiration,
  tokenHasExpired,
} from "../../lib/tokens/bootstrap_token.ts";

const NOW = "2026-01-01T00:30:00Z";

Deno.test("CLI token check prints the user and sorted groups of a valid token", async () => {
  const r = await runCli([
    "token",
    "check",
    "abcdef.0123456789abcdef",
    "--secrets",
    "examples/tokens",
    "--now",
    NOW,
  ]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  assert.equal(
    r.stdout,
    "user: system:bootstrap:abcdef\ngroups: system:bootstrappers,system:bootstrappers:kubeadm:default-node-token\n",
  );
  const j = await runCli([
    "token",
    "check",
    "abcdef.0123456789abcdef",
    "--secrets",
    "examples/tokens",
    "--now",
    NOW,
    "-o",
    "json",
  ]);
  assert.deepEqual(JSON.parse(j.stdout), {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    status: {
      authenticated: true,
      user: {
        groups: ["system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token"],
        username: "system:bootstrap:abcdef",
      },
    },
  });
  const y = await runCli([
    "token",
    "check",
    "-",
    "--secrets",
    "examples/tokens/bootstrap-token-abcdef.yaml",
    "--now",
    NOW,
    "-o",
    "yaml",
  ], { stdin: "abcdef.0123456789abcdef\n" });
  assert.equal(y.code, 0, y.stderr);
  assert.match(
    y.stdout,
    /^apiVersion: authentication\.k8s\.io\/v1\nkind: TokenReview\nstatus:\n {2}authenticated: true\n/,
  );
});

Deno.test("CLI token check names the rejecting rule on one stderr line, exit 3, no secret", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const bad = path.join(dir, "bad.yaml");
    fs.writeFileSync(
      bad,
      `apiVersion: v1
kind: Secret
metadata: {name: bootstrap-token-gggggg, namespace: kube-system}
type: bootstrap.kubernetes.io/token
stringData:
  token-id: gggggg
  token-secret: gggggggggggggggg
  usage-bootstrap-authentication: "true"
  auth-extra-groups: system:bootstrappers:ok,Bad-Group
`,
    );
    const cases: [string, string[], string][] = [
      [
        "ABCDEF.0123456789abcdef",
        ["examples/tokens"],
        "error: token rejected at step 1 (format): not a bootstrap token of the form [a-z0-9]{6}.[a-z0-9]{16}, so the authenticator ignores it",
      ],
      ["abcdef0123456789abcdef", ["examples/tokens"], "error: token rejected at step 1 (format):"],
      [
        "zzzzzz.0123456789abcdef",
        ["examples/tokens"],
        "error: token rejected at step 2 (secret): no Secret kube-system/bootstrap-token-zzzzzz in the inputs",
      ],
      [
        "abcdef.0123456789abcdee",
        ["examples/tokens"],
        "error: token rejected at step 5 (token-secret): bootstrap secret kube-system/bootstrap-token-abcdef has invalid value for key token-secret",
      ],
      [
        "123456.aabbccddeeffgghh",
        ["examples/tokens"],
        "error: token rejected at step 8 (usage): bootstrap secret kube-system/bootstrap-token-123456 not marked usage-bootstrap-authentication=true",
      ],
      [
        "gggggg.gggggggggggggggg",
        [bad],
        String
          .raw`error: token rejected at step 9 (auth-extra-groups): bootstrap secret kube-system/bootstrap-token-gggggg has invalid value for key auth-extra-groups: bootstrap group "Bad-Group" is invalid (must match \Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z)`,
      ],
    ];
    for (const [token, secrets, start] of cases) {
      const r = await runCli([
        "token",
        "check",
        token,
        ...secrets.flatMap((s) => ["--secrets", s]),
        "--now",
        NOW,
      ]);
      assert.equal(r.code, 3, `${token}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.ok(r.stderr.startsWith(start), r.stderr);
      assert.equal(r.stderr.split("\n").length, 2, r.stderr);
      assert.ok(!r.stderr.includes(token.slice(7)), r.stderr);
    }
    // expired: the same token after its expiration
    const e = await runCli([
      "token",
      "check",
      "abcdef.0123456789abcdef",
      "--secrets",
      "examples/tokens",
      "--now",
      "2026-01-02T00:00:00Z",
    ]);
    assert.equal(e.code, 3);
    assert.equal(
      e.stderr,
      "error: token rejected at step 7 (expiration): bootstrap secret kube-system/bootstrap-token-abcdef has expired (expiration 2026-01-02T00:00:00Z)\n",
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI token check fails on bad input and usage", async () => {
  const cases: [string[], number, RegExp, string?][] = [
    [["abcdef.0123456789abcdef"], 2, /^error: missing required flag --secrets\n$/],
    [["--secrets", "examples/tokens"], 2, /^error: missing argument: TOKEN\n$/],
    [
      ["abcdef.0123456789abcdef", "--secrets", "no/such.yaml"],
      1,
      /^error: no\/such\.yaml: no such file or directory\n$/,
    ],
    [["-", "--secrets", "-"], 2, /^error: TOKEN and --secrets cannot both be '-'\n$/],
    [
      ["abcdef.0123456789abcdef", "--secrets", "-"],
      1,
      /^error: stdin: Secret "x": data\["token-id"\] is not valid base64\n$/,
      "kind: Secret\nmetadata: {name: x}\ndata: {token-id: '%%%'}\n",
    ],
    [
      ["abcdef.0123456789abcdef", "--secrets", "-"],
      3,
      /step 2 \(secret\)/,
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bootstrap-token-abcdef, namespace: kube-system}\n",
    ],
  ];
  for (const [args, code, re, stdin] of cases) {
    const r = await runCli(["token", "check", ...args], stdin === undefined ? {} : { stdin });
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, re);
  }
});

Deno.test("CLI token auth-file prints a fresh token line in the TLS-bootstrapping docs format", async () => {
  const a = await runCli(["token", "auth-file"]);
  const b = await runCli(["token", "auth-file"]);
  assert.equal(a.code, 0);
  assert.equal(a.stderr, "");
  assert.match(a.stdout, /^[0-9a-f]{32},kubelet-bootstrap,10001,"system:bootstrappers"\n$/);
  assert.notEqual(a.stdout, b.stdout);
  const c = await runCli([
    "token",
    "auth-file",
    "--user",
    "ci",
    "--uid",
    "7",
    "--groups",
    "g1,g2",
    "--groups",
    "g3",
  ]);
  assert.match(c.stdout, /^[0-9a-f]{32},ci,7,"g1,g2,g3"\n$/);
  const d = await runCli(["token", "auth-file", "--groups", ""]);
  assert.match(d.stdout, /^[0-9a-f]{32},kubelet-bootstrap,10001\n$/);
  for (const args of [["--user", "a,b"], ["--uid", '1"'], ["--user", ""], ["extra"]]) {
    const r = await runCli(["token", "auth-file", ...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^error: .+\n$/);
  }
});

Deno.test("tokenExpiration() and tokenHasExpired() follow cluster-bootstrap's GetExpiration/HasExpired (vector 36)", () => {
  const now = new Date("2030-01-01T00:00:00Z");
  const cases: [string | undefined, "never" | "at" | "unparseable", boolean][] = [
    [undefined, "never", false], // absent: never expires
    ["", "never", false],
    ["2009-11-10T23:00:00Z", "at", true],
    ["2109-11-10T23:00:00Z", "at", false],
    ["2109-11-10t23:00:00z", "unparseable", true],
    // §4: Go's fallback parser makes these live
    ["2030-01-01T5:00:00Z", "at", false],
    ["2030-01-01T05:00:00,5Z", "at", false],
    ["2030-01-02T05:00:00+24:00", "at", false], // 2030-01-01T05:00:00Z
    ["2030-01-01T05:00:00+24:00", "at", true], // 2029-12-31T05:00:00Z
    // … and refuses these, so they are dead
    ["2030-01-01t05:00:00z", "unparseable", true],
    ["2030-01-01T05:00:00", "unparseable", true],
    ["2030-01-01T05:00:00Z ", "unparseable", true],
    ["2030-01-01T05:00:00Z\n", "unparseable", true],
    [" 2030-01-01T05:00:00Z", "unparseable", true],
    // dead at the instant itself (exp.Sub(now) <= 0), alive half a millisecond later
    ["2030-01-01T00:00:00Z", "at", true],
    ["2030-01-01T00:00:00.0005Z", "at", false],
    ["2029-12-31T23:59:59.9995Z", "at", true],
  ];
  for (const [value, kind, expired] of cases) {
    const exp = tokenExpiration(value);
    assert.equal(exp.kind, kind, JSON.stringify(value));
    assert.equal(tokenHasExpired(exp, now), expired, JSON.stringify(value));
    const data: Record<string, string> = { "token-id": "abcdef" };
    if (value !== undefined) data.expiration = value;
    const s = { name: "bootstrap-token-abcdef", namespace: "kube-system", type: "", data };
    assert.equal(getExpiration(s, now).expired, expired, JSON.stringify(value));
  }
});

Deno.test("CLI token check judges expiration as kube-apiserver does (Go's time.Parse)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const cases: [string, boolean][] = [
      ["2030-01-01T6:00:00Z", true],
      ["2030-01-01T05:00:00,5Z", true],
      ["2030-01-02T06:00:00+24:00", true],
      ["2030-01-01T05:00:00.0005Z", true], // 0.5 ms after --now
      ["2030-01-01T05:00:00Z", false], // at --now
      ["2030-01-01t05:00:00z", false],
      ["2030-01-01T05:00:00", false],
      ["2030-01-01T06:00:00Z ", false],
      ["2030-01-01T06:00:00Z\n", false],
    ];
    for (const [i, [expiration, live]] of cases.entries()) {
      const file = path.join(dir, `s${i}.json`);
      fs.writeFileSync(
        file,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
          type: "bootstrap.kubernetes.io/token",
          stringData: {
            "token-id": "abcdef",
            "token-secret": "0123456789abcdef",
            "usage-bootstrap-authentication": "true",
            expiration,
          },
        }),
      );
      const r = await runCli([
        "token",
        "check",
        "abcdef.0123456789abcdef",
        "--secrets",
        file,
        "--now",
        "2030-01-01T05:00:00Z",
      ]);
      const what = JSON.stringify(expiration);
      if (live) {
        assert.equal(r.code, 0, `${what}: ${r.stderr}`);
        assert.equal(r.stderr, "", what);
      } else {
        assert.equal(r.code, 3, `${what}: ${r.stderr}`);
        assert.equal(r.stdout, "", what);
        assert.match(r.stderr, /^error: token rejected at step 7 \(expiration\): [^\n]*\n$/, what);
      }
    }
  } finally {
    cleanup();
  }
});
