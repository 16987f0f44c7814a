import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { FIXTURE_NOW, FIXTURE_SERVER, makeFixtures } from "../_fuzz.ts";

const NOW = ["--now", FIXTURE_NOW];
const T1 = "abcdef.0123456789abcdef";
const T2 = "zyxwvu.zyxwvutsrqponmlk";
const root = tempDir("joinkit-doctor-");
const F = await makeFixtures(path.join(root.dir, "fx"));
const out = path.join(root.dir, "out");
const made = await runCli([
  "init",
  "--server",
  FIXTURE_SERVER,
  "--ca",
  F.caCrt,
  "--token",
  T1,
  "--token",
  T2,
  "--out-dir",
  out,
  ...NOW,
]);
if (made.code !== 0) throw new Error(`init failed: ${made.stderr}`);

Deno.test("CLI doctor passes a directory written by init --out-dir", async () => {
  const r = await runCli(["doctor", out, ...NOW]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.stderr, "");
  // Every file init writes is read, its objects all validated, its tokens all referenced.
  assert.match(
    r.stdout,
    /^doctor: (\d+) files, (\d+) objects \((\d+) validated against the schema\), 2 token Secrets, (\d+) token references, 2 certificates: 0 findings, 0 files skipped\n$/,
  );
  assert.equal(
    Number(/^doctor: (\d+) files/.exec(r.stdout)![1]),
    fs.readdirSync(out).length,
  );
});

Deno.test("CLI doctor finds a tampered copy: a line per finding, a summary, exit 3 with one error line", async () => {
  const bad = path.join(root.dir, "bad");
  fs.cpSync(out, bad, { recursive: true });
  const stream = path.join(bad, "bootstrap-token.yaml");
  fs.writeFileSync(
    stream,
    fs.readFileSync(stream, "utf8").replace(
      /(jws-kubeconfig-zyxwvu: )\S+/,
      "$1eyJhbGciOiJIUzI1NiIsImtpZCI6Inp5eHd2dSJ9..AAAA",
    ),
  );
  const r = await runCli(["doctor", bad, ...NOW]);
  assert.equal(r.code, 3);
  assert.equal(r.stderr, "error: doctor: 1 inconsistency found\n");
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2, r.stdout);
  assert.equal(
    lines[0],
    `${stream}: ConfigMap kube-public/cluster-info: data.jws-kubeconfig-zyxwvu: signature: the JWS does not verify with token zyxwvu: discovery with it fails`,
  );
  assert.match(lines[1]!, /^doctor: .*: 1 findings, 0 files skipped$/);
  const json = await runCli(["doctor", bad, "-o", "json", ...NOW]);
  assert.equal(json.code, 3);
  const report = JSON.parse(json.stdout);
  assert.deepEqual(report.findings, [{
    check: "signature",
    field: "data.jws-kubeconfig-zyxwvu",
    file: stream,
    message: "the JWS does not verify with token zyxwvu: discovery with it fails",
    object: "ConfigMap kube-public/cluster-info",
  }]);
  assert.deepEqual(Object.keys(report), [
    "certificates",
    "files",
    "findings",
    "kubeadmCertsSecrets",
    "kubeadmConfigs",
    "objects",
    "payloadOtherFiles",
    "payloads",
    "skipped",
    "tokenReferences",
    "tokenSecrets",
    "unvalidatedKinds",
    "validated",
  ]);
});

Deno.test("CLI doctor reads stdin, skips foreign and dangling files with a warning, checks the rest, and does not pass (exit 1)", async () => {
  const mixed = path.join(root.dir, "mixed");
  fs.cpSync(out, mixed, { recursive: true });
  fs.writeFileSync(path.join(mixed, "notes.txt"), "remember the milk\n");
  fs.symlinkSync("does-not-exist", path.join(mixed, "dangling.yaml"));
  const r = await runCli(["doctor", mixed, ...NOW]);
  assert.equal(r.code, 1, r.stderr);
  const warnings = r.stderr.trimEnd().split("\n");
  assert.equal(warnings.length, 3, r.stderr);
  assert.equal(warnings[2], "error: doctor: 2 files not checked (skipped): the run does not pass");
  assert.match(warnings[0]!, /^warning: .*dangling\.yaml: skipped: dangling link or unreadable$/);
  assert.match(warnings[1]!, /^warning: .*notes\.txt: skipped: /);
  assert.match(r.stdout, /0 findings, 2 files skipped\n$/);
  const stdin = await runCli(["doctor", "-", ...NOW], {
    stdin: fs.readFileSync(path.join(out, "bootstrap-token.yaml")),
  });
  assert.equal(stdin.code, 0, stdin.stdout + stdin.stderr);
});

Deno.test("CLI doctor refuses bad usage (2) and a missing named file (1)", async () => {
  for (const argv of [["doctor"], ["doctor", out, "-o", "xml"], ["doctor", out, "--bogus"]]) {
    const r = await runCli(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.trimEnd().split("\n").length, 1);
  }
  const r = await runCli(["doctor", path.join(root.dir, "nope.yaml")]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: .*nope\.yaml: no such file or directory\n$/);
});

globalThis.addEventListener("unload", () => root.cleanup());
