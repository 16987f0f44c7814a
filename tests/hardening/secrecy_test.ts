/**
 * Secrets stay secret: every command runs (through the real CLI) with a
 * known token secret and known private keys, and with broken variants of its
 * inputs; neither the secret nor any encoding of a private key (PEM body,
 * base64 or hex of the private scalar) may appear on stderr, in an error, or
 * on stdout unless that output is the thing asked for (a token Secret, a
 * bootstrap kubeconfig, a join command). `init` without `--out-dir` writes
 * no file at all, so no private key lands anywhere.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import {
  FIXTURE_NOW,
  FIXTURE_SECRET,
  FIXTURE_SERVER,
  FIXTURE_TOKEN,
  keyNeedles,
  leak,
  makeFixtures,
} from "../_fuzz.ts";

const NOW = ["--now", FIXTURE_NOW];
const BATCH = Number(process.env.JOINKIT_TEST_BATCH ?? 4);
const root = tempDir("joinkit-secrecy-");
const F = await makeFixtures(root.dir);
globalThis.addEventListener("unload", root.cleanup);

const TOKEN_NEEDLES = [
  FIXTURE_SECRET,
  FIXTURE_SECRET.toUpperCase(),
  Buffer.from(FIXTURE_SECRET).toString("base64").replace(/=+$/, ""),
  Buffer.from(FIXTURE_SECRET).toString("hex"),
];
// upload-certs' certificate key is as secret as the CA key it protects.
const CERT_KEY = "c0ffee" + "5a".repeat(29);
const KEY_NEEDLES = [
  ...keyNeedles(F.text["ca.key"]!),
  ...keyNeedles(F.text["node.key"]!),
  CERT_KEY,
  CERT_KEY.toUpperCase(),
];
const ALL = [...TOKEN_NEEDLES, ...KEY_NEEDLES];

const p = (n: string) => path.join(root.dir, n);
const put = (n: string, data: string) => {
  fs.writeFileSync(p(n), data);
  return p(n);
};
// Broken variants that still carry the secrets.
const badSecretLen = put(
  "bad-len.yaml",
  F.text["secrets.yaml"]!.replace(
    /token-secret: .*/,
    `token-secret: ${Buffer.from(FIXTURE_SECRET + "x").toString("base64")}`,
  ),
);
const badSecretCase = put(
  "bad-case.yaml",
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-abcdef\n  namespace: kube-system\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: abcdef\n  token-secret: ${FIXTURE_SECRET.toUpperCase()}\n  usage-bootstrap-authentication: "true"\n`,
);
const brokenYaml = put(
  "broken.yaml",
  F.text["secrets.yaml"]!.replace("kind: Secret", "kind: [Secret"),
);
const flippedKey = put(
  "flipped.key",
  F.text["ca.key"]!.replace(/\n(.)/, (_m, c: string) => "\n" + (c === "A" ? "B" : "A")),
);
const keyAsCert = put(
  "key-as-cert.crt",
  F.text["ca.key"]!.replace(/EC PRIVATE KEY/g, "CERTIFICATE"),
);
const truncatedKey = put("truncated.key", F.text["ca.key"]!.slice(0, 150));
const keyWithGarbage = put(
  "garbage.key",
  F.text["ca.key"]! + "\u0000\u00ff garbage " + F.text["ca.key"]!.slice(40, 120),
);
// token-id and token-secret swapped: the secret sits where an ID is echoed.
const swapped = put(
  "swapped.yaml",
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-abcdef\n  namespace: kube-system\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: ${FIXTURE_SECRET}\n  token-secret: abcdef\n  usage-bootstrap-authentication: "true"\n  usage-bootstrap-signing: "true"\n`,
);
// A kubeadm pki/ made of the fixture CA (upload-certs reads, encrypts and never shows it).
const ucPki = p("pki");
for (const f of ["ca", "front-proxy-ca", "etcd/ca"]) {
  fs.mkdirSync(path.dirname(path.join(ucPki, f)), { recursive: true });
  fs.copyFileSync(F.caCrt, path.join(ucPki, `${f}.crt`));
  fs.copyFileSync(F.caKey, path.join(ucPki, `${f}.key`));
}
fs.copyFileSync(F.caKey, path.join(ucPki, "sa.key"));
fs.copyFileSync(F.caCrt, path.join(ucPki, "sa.pub"));
const ucSecret = put(
  "kubeadm-certs.yaml",
  (await runCli(["upload-certs", "--pki-dir", ucPki, "--certificate-key", CERT_KEY, ...NOW]))
    .stdout,
);
// JoinConfigurations carrying the token (and a certificate key), for node-payload.
const joinYaml = (extra = "", pins = true) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: 10.0.0.1:6443\n    token: ${FIXTURE_TOKEN}\n${
    pins ? `    caCertHashes:\n    - ${F.pin}\n` : ""
  }nodeRegistration:\n  criSocket: unix:///run/containerd/containerd.sock\n${extra}`;
const npJoin = put("np-join.yaml", joinYaml());
const npNoPins = put("np-no-pins.yaml", joinYaml("", false));
const npControlPlane = put(
  "np-cp.yaml",
  joinYaml(`controlPlane:\n  localAPIEndpoint: {}\n  certificateKey: ${CERT_KEY}\n`),
);
const npBadKey = put(
  "np-cp-bad.yaml",
  joinYaml(`controlPlane:\n  localAPIEndpoint: {}\n  certificateKey: ${CERT_KEY.slice(1)}\n`),
);
const ucPkiShort = p("pki-short");
fs.cpSync(ucPki, ucPkiShort, { recursive: true });
fs.rmSync(path.join(ucPkiShort, "sa.key"));
const clusterInfoTampered = put(
  "ci-tampered.yaml",
  F.text["cluster-info.yaml"]!.replace("10.0.0.1", "10.9.9.9"),
);

interface Run {
  args: string[];
  /** Whether stdout may contain the token secret (it is what was asked for). */
  tokenOut?: boolean;
  stdin?: string;
}

const RUNS: Run[] = [
  { args: ["token", "create", FIXTURE_TOKEN, ...NOW], tokenOut: true },
  {
    args: ["token", "create", FIXTURE_TOKEN, "--string-data", "-o", "json", ...NOW],
    tokenOut: true,
  },
  { args: ["token", "create", FIXTURE_TOKEN, "--groups", "bad-group", ...NOW] },
  { args: ["token", "create", FIXTURE_TOKEN.toUpperCase(), ...NOW] },
  { args: ["token", "create", FIXTURE_TOKEN + "x", ...NOW] },
  { args: ["token", "list", F.secrets, ...NOW], tokenOut: true },
  // A token typed where a file name or another argument belongs.
  { args: ["ca", "hash", FIXTURE_TOKEN] },
  { args: ["token", "list", FIXTURE_TOKEN, ...NOW] },
  { args: ["kubeconfig", "bootstrap", "--server", FIXTURE_SERVER, "--ca", F.caCrt, FIXTURE_TOKEN] },
  {
    args: [
      "join-command",
      "--server",
      "10.0.0.1:6443",
      "--control-plane",
      FIXTURE_TOKEN,
      "--ca",
      F.caCrt,
    ],
  },
  {
    args: [
      "cluster-info",
      "verify",
      FIXTURE_TOKEN,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
  },
  { args: ["token", "generate", FIXTURE_TOKEN.toUpperCase()] },
  {
    args: [
      "init",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      FIXTURE_TOKEN,
      "--token",
      FIXTURE_TOKEN,
      ...NOW,
    ],
  },
  { args: ["token", "list", badSecretLen, ...NOW] },
  { args: ["token", "list", badSecretCase, ...NOW] },
  { args: ["token", "list", swapped, ...NOW] },
  { args: ["token", "list", swapped, "-o", "json", ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN, "--secrets", swapped, "-o", "json", ...NOW] },
  { args: ["cluster-info", "sign", F.clusterInfo, "--secrets", swapped, ...NOW] },
  {
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--secrets",
      swapped,
      ...NOW,
    ],
  },
  { args: ["token", "list", brokenYaml, ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN, "--secrets", F.secrets, ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN, "--secrets", F.secrets, "-o", "json", ...NOW] },
  { args: ["token", "check", "-", "--secrets", F.secrets, ...NOW], stdin: FIXTURE_TOKEN + "\n" },
  { args: ["token", "check", "abcdef.s3cr3tt0k3nv4lu4", "--secrets", F.secrets, ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN.toUpperCase(), "--secrets", F.secrets, ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN, "--secrets", badSecretLen, ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN, "--secrets", brokenYaml, ...NOW] },
  { args: ["token", "check", FIXTURE_TOKEN, "--secrets", badSecretCase, "-o", "yaml", ...NOW] },
  { args: ["ca", "hash", F.caKey] },
  { args: ["ca", "hash", keyAsCert] },
  { args: ["ca", "hash", F.caCrt, F.caKey] },
  { args: ["ca", "pin-check", F.caKey, "--ca-cert-hash", F.pin] },
  {
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
      ...NOW,
    ],
  },
  {
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--secrets",
      F.secrets,
      "-o",
      "json",
      ...NOW,
    ],
  },
  {
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caKey,
      "--token",
      FIXTURE_TOKEN,
      ...NOW,
    ],
  },
  {
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN.toUpperCase(),
    ],
  },
  { args: ["cluster-info", "sign", F.clusterInfo, "--secrets", F.secrets, ...NOW] },
  { args: ["cluster-info", "sign", F.clusterInfo, "--secrets", badSecretLen, ...NOW] },
  {
    args: [
      "cluster-info",
      "verify",
      F.clusterInfo,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
    tokenOut: true,
  },
  {
    args: [
      "cluster-info",
      "verify",
      clusterInfoTampered,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
  },
  {
    args: [
      "cluster-info",
      "verify",
      F.clusterInfo,
      "--token",
      "abcdef.s3cr3tt0k3nv4lu4",
      "--ca-cert-hash",
      F.pin,
    ],
  },
  {
    args: [
      "cluster-info",
      "verify",
      F.clusterInfo,
      "--token",
      FIXTURE_TOKEN + "x",
      "--ca-cert-hash",
      F.pin,
    ],
  },
  {
    args: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
    ],
    tokenOut: true,
  },
  {
    args: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caKey,
      "--token",
      FIXTURE_TOKEN,
    ],
  },
  {
    args: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_SECRET,
    ],
  },
  {
    args: [
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      clusterInfoTampered,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
  },
  {
    args: ["join-command", "--server", "10.0.0.1:6443", "--token", FIXTURE_TOKEN, "--ca", F.caCrt],
    tokenOut: true,
  },
  {
    args: [
      "join-command",
      "--server",
      "10.0.0.1:6443",
      "--token",
      FIXTURE_TOKEN + "x",
      "--ca",
      F.caCrt,
    ],
  },
  {
    args: ["join-command", "--server", "10.0.0.1:6443", "--token", FIXTURE_TOKEN, "--ca", F.caKey],
  },
  {
    args: ["init", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "--token", FIXTURE_TOKEN, ...NOW],
    tokenOut: true,
  },
  {
    args: [
      "init",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN.toUpperCase(),
      ...NOW,
    ],
  },
  { args: ["init", "--server", FIXTURE_SERVER, "--ca", F.caKey, "--token", FIXTURE_TOKEN, ...NOW] },
  { args: ["csr", "inspect", F.csrObject, F.nodeCsr] },
  { args: ["csr", "inspect", F.nodeKey] },
  { args: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", F.caKey, ...NOW] },
  {
    args: [
      "csr",
      "sign",
      F.csrObject,
      "--ca",
      F.caCrt,
      "--ca-key",
      F.caKey,
      "--approve",
      "-o",
      "json",
      ...NOW,
    ],
  },
  { args: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", flippedKey, ...NOW] },
  { args: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", truncatedKey, ...NOW] },
  { args: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", keyWithGarbage, ...NOW] },
  { args: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", F.nodeKey, ...NOW] },
  { args: ["csr", "sign", F.nodeKey, "--ca", F.caCrt, "--ca-key", F.caKey, ...NOW] },
  {
    args: [
      "cert",
      "verify",
      F.nodeCrt,
      "--ca",
      F.caCrt,
      "--key",
      F.nodeKey,
      "--node",
      "worker-1",
      ...NOW,
    ],
  },
  { args: ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "--key", F.caKey, ...NOW] },
  { args: ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "--key", flippedKey, ...NOW] },
  { args: ["cert", "verify", F.nodeKey, "--ca", F.caCrt, ...NOW] },
  { args: ["cert", "inspect", F.nodeCrt, F.caCrt, ...NOW] },
  { args: ["cert", "inspect", F.caKey, ...NOW] },
  { args: ["cert", "inspect", root.dir, "-o", "json", ...NOW] },
  {
    args: [
      "upload-certs",
      "--pki-dir",
      ucPki,
      "--certificate-key",
      CERT_KEY,
      "--token",
      FIXTURE_TOKEN,
    ],
    tokenOut: true,
  },
  { args: ["upload-certs", "--pki-dir", ucPki, "--certificate-key", CERT_KEY.slice(2)] },
  { args: ["upload-certs", "--pki-dir", ucPki, "--certificate-key", CERT_KEY + "0"] },
  { args: ["upload-certs", "--pki-dir", ucPki, "--certificate-key", "x" + CERT_KEY.slice(1)] },
  { args: ["upload-certs", "--pki-dir", ucPkiShort, "--certificate-key", CERT_KEY] },
  { args: ["upload-certs", "--pki-dir", ucPki, "--certificate-key", CERT_KEY, "--ttl", "0"] },
  { args: ["download-certs", ucSecret, "--certificate-key", CERT_KEY, "-o", "json"] },
  { args: ["download-certs", ucSecret, "--certificate-key", CERT_KEY, "--pki-dir", ucPkiShort] },
  { args: ["download-certs", ucSecret, "--certificate-key", CERT_KEY, "--out-dir", p("dl")] },
  { args: ["download-certs", ucSecret, "--certificate-key", "0".repeat(64)] },
  { args: ["download-certs", ucSecret, "--certificate-key", CERT_KEY.slice(1)] },
  { args: ["download-certs", F.caKey, "--certificate-key", CERT_KEY] },
  { args: ["node-payload", "--config", npJoin, "--node", "w-1"], tokenOut: true },
  {
    args: ["node-payload", "--config", npJoin, "--node", "w-1", "--format", "ignition"],
    tokenOut: true,
  },
  { args: ["node-payload", "--config", npJoin, "--node", "Bad_Name"] },
  { args: ["node-payload", "--config", npJoin, F.caKey] },
  { args: ["node-payload", "--config", npNoPins, "--node", "w-1"] },
  { args: ["node-payload", "--config", npBadKey, "--node", "cp-2"] },
  { args: ["node-payload", "--config", npControlPlane, "--node", "a", "--node", "b"] },
  {
    args: [
      "discovery-file",
      "--cluster-info",
      F.clusterInfo,
      "--discovery-token-ca-cert-hash",
      F.pin,
      "--token",
      FIXTURE_TOKEN,
    ],
    tokenOut: true,
  },
  {
    args: [
      "discovery-file",
      "--cluster-info",
      F.clusterInfo,
      "--discovery-token-ca-cert-hash",
      F.pin,
      "--token",
      "abcdef.s3cr3tt0k3nv4lu4",
    ],
  },
  {
    args: [
      "discovery-file",
      "--cluster-info",
      clusterInfoTampered,
      "--discovery-token-ca-cert-hash",
      F.pin,
      "--token",
      FIXTURE_TOKEN,
    ],
  },
  {
    args: ["discovery-file", "--server", FIXTURE_SERVER, "--ca", F.caKey, "--token", FIXTURE_TOKEN],
  },
  { args: ["discovery-file", "--server", FIXTURE_SERVER, "--ca", F.caCrt, FIXTURE_TOKEN] },
  ...[F.caKey, flippedKey, truncatedKey, F.nodeKey].map((key) => ({
    args: [
      "kubeconfig",
      "node",
      "--node",
      "worker-1",
      "--ca",
      F.caCrt,
      "--ca-key",
      key,
      "--server",
      FIXTURE_SERVER,
      "--out-dir",
      p(`kn-${path.basename(key)}`),
      ...NOW,
    ],
  })),
  {
    args: [
      "kubeconfig",
      "node",
      F.caKey,
      "--ca",
      F.caCrt,
      "--ca-key",
      F.caKey,
      "--server",
      FIXTURE_SERVER,
      "--out-dir",
      p("kn-list"),
    ],
  },
];

Deno.test(`CLI secrecy: ${RUNS.length} runs never show the token secret or a private key where not asked`, async () => {
  const failures: string[] = [];
  for (let i = 0; i < RUNS.length; i += BATCH) {
    await Promise.all(
      RUNS.slice(i, i + BATCH).map(async (run) => {
        const r = await runCli(run.args, run.stdin !== undefined ? { stdin: run.stdin } : {});
        const label = run.args.map((a) => a.replace(root.dir + "/", "")).join(" ");
        const e = leak(r.stderr, ALL);
        if (e) failures.push(`${label}: stderr shows ${e.slice(0, 6)}…: ${r.stderr.slice(0, 200)}`);
        const o = leak(r.stdout, run.tokenOut ? KEY_NEEDLES : ALL);
        if (o) failures.push(`${label}: stdout shows ${o.slice(0, 6)}… (exit ${r.code})`);
        if (/PRIVATE KEY/.test(r.stdout)) failures.push(`${label}: a private key on stdout`);
      }),
    );
  }
  assert.deepEqual(failures, []);
});

Deno.test("CLI init without --out-dir writes no file (no private key anywhere) and withholds the secret on stderr", async () => {
  const { dir, cleanup } = tempDir("joinkit-init-");
  try {
    const home = path.join(dir, "home");
    fs.mkdirSync(home);
    const tmp = path.join(dir, "tmp");
    fs.mkdirSync(tmp);
    const r = await runCli([
      "init",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
      ...NOW,
    ], {
      cwd: dir,
      env: { HOME: home, TMPDIR: tmp, XDG_CONFIG_HOME: home },
    });
    assert.equal(r.code, 0, r.stderr);
    // Only the runtime's own cache (deno run's DENO_DIR under HOME) may appear.
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const f = path.join(d, e.name);
        if (e.isDirectory()) walk(f);
        else files.push(f);
      }
    };
    walk(dir);
    const ours = files.filter((f) => !f.startsWith(path.join(home, ".cache", "deno") + "/"));
    assert.deepEqual(ours, [], "init without --out-dir wrote files");
    for (const f of files) {
      const text = fs.readFileSync(f, "latin1");
      // The runtime's cache holds joinkit's own compiled source, which names PEM block types.
      const isCache = f.startsWith(path.join(home, ".cache", "deno") + "/");
      assert.ok(
        (isCache || !/PRIVATE KEY/.test(text)) && !leak(text, ALL),
        `${f} holds a secret`,
      );
    }
    assert.doesNotMatch(r.stdout, /PRIVATE KEY/);
    assert.equal(leak(r.stderr, ALL), undefined);
    assert.match(r.stderr, /abcdef\.<value withheld>/);
  } finally {
    cleanup();
  }
});

Deno.test("constantTimeEqual() is node:crypto timingSafeEqual-based and exact", async () => {
  const { constantTimeEqual } = await import("../../lib/base/constant_time.ts");
  const src = fs.readFileSync(new URL("../../lib/base/constant_time.ts", import.meta.url), "utf8");
  const body = src.slice(src.indexOf("export function constantTimeEqual"));
  assert.match(body.slice(0, body.indexOf("\n}\n")), /timingSafeEqual\(/);
  assert.equal(constantTimeEqual(FIXTURE_SECRET, FIXTURE_SECRET), true);
  assert.equal(constantTimeEqual(FIXTURE_SECRET, FIXTURE_SECRET.slice(0, 15) + "4"), false);
  assert.equal(constantTimeEqual(FIXTURE_SECRET, FIXTURE_SECRET + "x"), false);
  assert.equal(constantTimeEqual("", ""), true);
  assert.equal(constantTimeEqual("é", "e\u0301"), false);
});

Deno.test("secrets and signatures are compared only in constant time (source audit)", () => {
  const lib = (f: string) => fs.readFileSync(new URL(`../../lib/${f}`, import.meta.url), "utf8");
  // The authenticator's token-secret check and discovery's JWS check use the helper.
  assert.match(
    lib("tokens/authenticator.ts"),
    /constantTimeEqual\(getData\(secret, KEYS\.secret\), tokenSecret\)/,
  );
  assert.match(
    lib("discovery/jws.ts"),
    /return constantTimeEqual\(detached, computeDetachedSignature\(/,
  );
  assert.match(lib("discovery/discovery.ts"), /detachedTokenIsValid\(/);
  // No other equality test on a secret, signature or digest, except those reviewed:
  const reviewed = [
    /before !== sig/, // the signer reporting which stored signatures it replaced (both its own)
  ];
  const risky =
    /\b\w*(secret|signature|detached|jws|hmac|digest)\w*\b\s*(===|!==)|(===|!==)\s*\w*(secret|signature|detached|jws|hmac|digest)\w*/i;
  const found: string[] = [];
  const files = fs.readdirSync(new URL("../../lib/", import.meta.url), { recursive: true })
    .map(String).filter((f) => f.endsWith(".ts"));
  for (const f of files) {
    lib(f).split("\n").forEach((line, i) => {
      if (!risky.test(line) || /^\s*(\*|\/\/)/.test(line)) return;
      if (
        /(===|!==)\s*((undefined|null|0)\b|"")|typeof |\.length\s*(===|!==)|\.(tag|type|name|oid)\s*(===|!==)/
          .test(line)
      ) return;
      if (reviewed.some((r) => r.test(line))) return;
      found.push(`lib/${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

Deno.test("CLI ca create, csr create and init --out-dir never print the keys and secrets they write", async () => {
  const { dir, cleanup } = tempDir("joinkit-keys-");
  try {
    const runs = await Promise.all([
      runCli([
        "ca",
        "create",
        "--out-dir",
        path.join(dir, "ca"),
        "--key-type",
        "ecdsa-p256",
        ...NOW,
      ]),
      runCli([
        "ca",
        "create",
        "--out-dir",
        path.join(dir, "rsa"),
        "--key-type",
        "rsa-2048",
        ...NOW,
      ]),
      runCli([
        "csr",
        "create",
        "--node",
        "w1",
        "--out-dir",
        path.join(dir, "csr"),
        "-o",
        "json",
        ...NOW,
      ]),
      runCli([
        "csr",
        "create",
        "--node",
        "w2",
        "--serving",
        "--ip",
        "10.0.0.2",
        "--out-dir",
        path.join(dir, "srv"),
        ...NOW,
      ]),
      runCli([
        "init",
        "--server",
        FIXTURE_SERVER,
        "--ca",
        F.caCrt,
        "--out-dir",
        path.join(dir, "init"),
        ...NOW,
      ]),
    ]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const keys = ["ca/ca.key", "rsa/ca.key", "csr/kubelet-client.key", "srv/kubelet-server.key"];
    const needles = keys.flatMap((k) => keyNeedles(fs.readFileSync(path.join(dir, k), "utf8")));
    // init generated its token: its secret is in the Secret it wrote, never on stdout/stderr.
    const stream = fs.readFileSync(path.join(dir, "init", "bootstrap-token.yaml"), "utf8");
    const secret = /token-secret: (\S+)/.exec(stream)![1]!;
    needles.push(Buffer.from(secret, "base64").toString());
    for (const r of runs) {
      assert.equal(leak(r.stdout + r.stderr, needles), undefined, r.stderr);
      assert.doesNotMatch(r.stdout, /PRIVATE KEY/);
    }
  } finally {
    cleanup();
  }
});

Deno.test("redactTokens() withholds token secrets in any diagnostic, in either case", async () => {
  const { oneLine, redactTokens } = await import("../../lib/base/errors.ts");
  assert.equal(
    redactTokens(`open ${FIXTURE_TOKEN}: no such file`),
    "open abcdef.<value withheld>: no such file",
  );
  assert.equal(redactTokens(`"${FIXTURE_TOKEN.toUpperCase()}"`), '"ABCDEF.<value withheld>"');
  assert.equal(oneLine(new Error(`x ${FIXTURE_TOKEN}\ny`)), "x abcdef.<value withheld>\\ny");
  // A cut-short or run-on ID part (a value quoted from a mangled file) is still withheld.
  assert.equal(redactTokens(`kind "Cdef.${FIXTURE_SECRET}"`), 'kind "Cdef.<value withheld>"');
  assert.equal(
    redactTokens(`kind "Configabcdef.${FIXTURE_SECRET}"`),
    'kind "Configabcdef.<value withheld>"',
  );
  // Not a token: a longer run, no ID part, hashes, host and file names stay as they are.
  for (
    const s of [
      "abcdef.s3cr3tt0k3nv4lu3x",
      ".s3cr3tt0k3nv4lu3",
      F.pin,
      "node-1.example.com",
      "ca.crt",
    ]
  ) {
    assert.equal(redactTokens(s), s);
  }
});
