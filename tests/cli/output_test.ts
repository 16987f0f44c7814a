/**
 * `-o json|yaml` on every command that prints data: the shapes each
 * command's help documents, with sorted keys (stable output), and YAML
 * holding the same data as JSON.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { runCli, tempDir } from "../_cli.ts";
import { FIXTURE_NOW, FIXTURE_SERVER, FIXTURE_TOKEN, makeFixtures } from "../_fuzz.ts";

const NOW = ["--now", FIXTURE_NOW];
const root = tempDir("joinkit-output-");
const F = await makeFixtures(root.dir);
globalThis.addEventListener("unload", () => root.cleanup());

/** Runs joinkit, expects exit 0, returns stdout parsed as JSON, with its keys checked sorted. */
async function json(argv: string[]): Promise<unknown> {
  const r = await runCli(argv);
  assert.equal(r.code, 0, `${argv.join(" ")}: ${r.stderr}`);
  const value = JSON.parse(r.stdout);
  assertSorted(value, argv.join(" "));
  assert.ok(r.stdout.endsWith("}\n") || r.stdout.endsWith("]\n"));
  return value;
}

function assertSorted(value: unknown, where: string): void {
  if (Array.isArray(value)) return value.forEach((v) => assertSorted(v, where));
  if (value === null || typeof value !== "object") return;
  const keys = Object.keys(value);
  assert.deepEqual(keys, [...keys].sort(), `${where}: keys not sorted`);
  for (const v of Object.values(value)) assertSorted(v, where);
}

/** The same command with -o yaml gives the same data as -o json. */
async function sameAsYaml(argv: string[], fromJson: unknown): Promise<void> {
  const r = await runCli([...argv, "-o", "yaml"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(parseYaml(r.stdout), fromJson);
}

Deno.test("CLI ca create -o json describes the CA it wrote", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "a", "pki");
    const v = await json([
      "ca",
      "create",
      "--out-dir",
      out,
      "--key-type",
      "ecdsa-p256",
      "-o",
      "json",
      ...NOW,
    ]);
    const o = v as Record<string, string>;
    assert.deepEqual(Object.keys(o), [
      "caCertHash",
      "certFile",
      "key",
      "keyFile",
      "notAfter",
      "notBefore",
      "serial",
      "subject",
    ]);
    assert.match(o.caCertHash!, /^sha256:[0-9a-f]{64}$/);
    assert.equal(o.certFile, path.join(out, "ca.crt"));
    assert.equal(o.keyFile, path.join(out, "ca.key"));
    assert.equal(o.notBefore, "2026-11-21T23:55:00Z");
    assert.equal(o.notAfter, "2036-11-19T00:00:00Z");
    assert.equal(o.subject, "CN=kubernetes");
    const hash = await runCli(["ca", "hash", o.certFile!]);
    assert.equal(hash.stdout.trim(), o.caCertHash);
    // Without -o, nothing on stdout (as before).
    const quiet = await runCli(["ca", "create", "--out-dir", path.join(dir, "b"), ...NOW]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, "");
  } finally {
    cleanup();
  }
});

Deno.test("CLI ca hash -o json|yaml: one row per certificate", async () => {
  const bundle = path.join(root.dir, "bundle.crt");
  fs.writeFileSync(bundle, F.text["ca.crt"]! + F.text["node.crt"]!);
  const argv = ["ca", "hash", F.caCrt, bundle];
  const v = await json([...argv, "-o", "json"]) as Record<string, unknown>[];
  assert.deepEqual(v.map((r) => [r.file, r.index]), [[F.caCrt, 0], [bundle, 0], [bundle, 1]]);
  assert.equal(v[0]!.caCertHash, F.pin);
  assert.equal(v[1]!.caCertHash, F.pin);
  assert.match(String(v[2]!.caCertHash), /^sha256:[0-9a-f]{64}$/);
  await sameAsYaml(argv, v);
});

Deno.test("CLI ca pin-check -o json names the matching certificate", async () => {
  const argv = ["ca", "pin-check", "--discovery-token-ca-cert-hash", F.pin, F.caCrt];
  const v = await json([...argv, "-o", "json"]);
  assert.deepEqual(v, { caCertHash: F.pin, certificates: 1, file: F.caCrt, index: 0, ok: true });
  await sameAsYaml(argv, v);
});

Deno.test("CLI join-command -o json holds the line and its parts", async () => {
  const argv = [
    "join-command",
    "--server",
    FIXTURE_SERVER,
    "--token",
    FIXTURE_TOKEN,
    "--ca",
    F.caCrt,
  ];
  const line = await runCli(argv);
  assert.equal(line.code, 0, line.stderr);
  const v = await json([...argv, "-o", "json"]);
  assert.deepEqual(v, {
    caCertHashes: [F.pin],
    command: line.stdout.replace(/\n$/, ""),
    controlPlane: false,
    server: "10.0.0.1:6443",
    token: FIXTURE_TOKEN,
  });
  await sameAsYaml(argv, v);
  // HOST:PORT and https://HOST:PORT are one --server.
  const bare = await runCli(["join-command", "--server", "10.0.0.1:6443", ...argv.slice(3)]);
  assert.equal(bare.stdout, line.stdout);
});

Deno.test("CLI kubeconfig bootstrap -o json is the same kubeconfig, also through --out", async () => {
  const argv = [
    "kubeconfig",
    "bootstrap",
    "--server",
    FIXTURE_SERVER,
    "--ca",
    F.caCrt,
    "--token",
    FIXTURE_TOKEN,
  ];
  const v = await json([...argv, "-o", "json"]) as Record<string, unknown>;
  assert.equal(v.kind, "Config");
  assert.equal(v["current-context"], "tls-bootstrap-token-user@kubernetes");
  assert.deepEqual(parseYaml(F.text["kubeconfig"]!), v);
  const { dir, cleanup } = tempDir();
  try {
    // --out creates missing directories, as --out-dir does.
    const out = path.join(dir, "etc", "kubernetes", "bootstrap-kubelet.conf");
    const r = await runCli([...argv, "-o", "json", "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(out, "utf8")), v);
    assert.equal(fs.statSync(out).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(out)).mode & 0o777, 0o700);
  } finally {
    cleanup();
  }
});

Deno.test("CLI token generate -o json|yaml: id and token per row", async () => {
  const v = await json(["token", "generate", "--count", "3", "-o", "json"]) as Record<
    string,
    string
  >[];
  assert.equal(v.length, 3);
  for (const row of v) {
    assert.deepEqual(Object.keys(row), ["id", "token"]);
    assert.match(row.token!, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    assert.equal(row.id, row.token!.slice(0, 6));
  }
  const y = await runCli(["token", "generate", "-o", "yaml"]);
  const rows = parseYaml(y.stdout) as Record<string, string>[];
  assert.equal(rows.length, 1);
  assert.match(rows[0]!.token!, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
});

Deno.test("CLI token auth-file -o json: the line and its fields", async () => {
  const v = await json(["token", "auth-file", "--groups", "a,b", "-o", "json"]) as Record<
    string,
    unknown
  >;
  assert.deepEqual(Object.keys(v), ["groups", "line", "token", "uid", "user"]);
  assert.deepEqual(v.groups, ["a", "b"]);
  assert.match(String(v.token), /^[0-9a-f]{32}$/);
  assert.equal(v.line, `${v.token},kubelet-bootstrap,10001,"a,b"`);
});

Deno.test("CLI cert inspect, cert verify and csr inspect -o yaml hold what -o json holds", async () => {
  for (
    const argv of [
      ["cert", "inspect", F.nodeCrt, F.caCrt, ...NOW],
      ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, ...NOW],
      ["csr", "inspect", F.nodeCsr],
    ]
  ) {
    const v = await json([...argv, "-o", "json"]);
    await sameAsYaml(argv, v);
  }
});

Deno.test("CLI cert verify --at is the old name of --now", async () => {
  const base = ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "-o", "json"];
  const a = await runCli([...base, "--at", FIXTURE_NOW]);
  const b = await runCli([...base, "--now", FIXTURE_NOW]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  // Given with --now, --at still judges the certificate, as it always did.
  const later = new Date(Date.parse(FIXTURE_NOW) + 400 * 86_400_000).toISOString().replace(
    ".000Z",
    "Z",
  );
  const both = await runCli([...base, "--now", FIXTURE_NOW, "--at", later]);
  assert.equal(both.code, 3, both.stderr);
  assert.match(both.stdout, /expired/);
});
