import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { repoPath, runCli, tempDir } from "../_cli.ts";
import { FIXTURE_NOW, FIXTURE_SERVER, makeFixtures } from "../_fuzz.ts";

// Issue 19 classes 4 and 5: doctor reads the files inside node payloads (cloud-config with or
// without CABPK's template header, Ignition data URLs), judges their JoinConfiguration with
// kubeadm's rules, checks upload-certs' Secret without a false finding, and never passes a run
// that checked nothing.
const NOW = ["--now", FIXTURE_NOW];
const T1 = "abcdef.0123456789abcdef";
const root = tempDir("joinkit-doctor-payload-");
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
  "--out-dir",
  out,
  ...NOW,
]);
if (made.code !== 0) throw new Error(`init failed: ${made.stderr}`);
const JOIN = fs.readFileSync(path.join(out, "join-config.yaml"), "utf8");
const JOIN_PATH = "/run/kubeadm/kubeadm-join-config.yaml";

/** A cloud-config carrying `files` (path → text) the way CABPK writes them. */
function cloudConfig(files: [string, string][], header = ""): string {
  let s = `${header}#cloud-config\n\nwrite_files:\n`;
  for (const [p, text] of files) {
    s +=
      `-   path: ${p}\n    owner: root:root\n    permissions: '0600'\n    encoding: "base64"\n    content: |\n      ${
        Buffer.from(text).toString("base64")
      }\n`;
  }
  return s + `runcmd:\n  - kubeadm join --config ${JOIN_PATH}\n`;
}

/** An Ignition config carrying `files` as percent-encoded data URLs. */
function ignition(files: [string, string][]): string {
  return JSON.stringify({
    ignition: { version: "3.4.0" },
    storage: {
      files: files.map(([p, text]) => ({
        path: p,
        mode: 384,
        contents: { source: "data:," + encodeURIComponent(text) },
      })),
    },
  });
}

function dirWith(name: string, files: Record<string, string>, withInit = true): string {
  const d = path.join(root.dir, name);
  if (withInit) fs.cpSync(out, d, { recursive: true });
  else fs.mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(d, f), text);
  return d;
}

Deno.test("CLI doctor reads node payloads: cloud-config (with and without the jinja header) and Ignition pass with init's output", async () => {
  const d = dirWith("payloads-ok", {
    "w1.cloud-config": cloudConfig([[JOIN_PATH, JOIN], [
      "/run/cluster-api/placeholder",
      "This placeholder file is used to create the /run/cluster-api sub directory",
    ]]),
    "w2.cloud-config": cloudConfig([[JOIN_PATH, JOIN]], "## template: jinja\n"),
    "w3.ign": ignition([[JOIN_PATH, JOIN], [
      "/etc/kubeadm.sh",
      "#!/bin/bash\nset -e\nkubeadm join --config /etc/kubeadm.yml\n",
    ]]),
    // An entry whose path says it is YAML must read as YAML.
    "w4.ign": ignition([["/etc/kubernetes/broken.yaml", "kind: [unclosed\n"]]),
  });
  const r = await runCli(["doctor", d, "-o", "json", ...NOW]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.payloads, 4);
  assert.equal(report.kubeadmConfigs, 4, "join-config.yaml and the three inside the payloads");
  assert.equal(
    report.payloadOtherFiles,
    2,
    "the placeholder and the script: read, nothing to check",
  );
  assert.deepEqual(report.findings, []);
  assert.deepEqual(report.skipped.map((s: { file: string }) => path.relative(d, s.file)), [
    "w4.ign:/etc/kubernetes/broken.yaml",
  ]);
  fs.rmSync(path.join(d, "w4.ign"));
  const ok = await runCli(["doctor", d, ...NOW]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.equal(ok.stderr, "");
});

Deno.test("CLI doctor judges a payload's JoinConfiguration as kubeadm join does (exit 3)", async () => {
  const badPin = JOIN.replace(/- sha256:[0-9a-f]{64}/, "- sha256:zz");
  assert.notEqual(badPin, JOIN);
  const typo = JOIN.replace("nodeRegistration:", "nodeRegistration:\n  nmae: worker-1");
  const bareDiscovery =
    `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: ${
      fs.readFileSync(F.caCrt).toString("base64")
    }\n    server: https://${
      FIXTURE_SERVER.replace(/^https:\/\//, "")
    }\n  name: ""\ncontexts: []\ncurrent-context: ""\nusers: []\n`;
  const fileJoin =
    `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  file:\n    kubeConfigPath: /etc/kubernetes/discovery.conf\nnodeRegistration:\n  name: w\n`;
  const d = dirWith("payloads-bad", {
    "pin.cloud-config": cloudConfig([[JOIN_PATH, badPin]]),
    "typo.ign": ignition([[JOIN_PATH, typo]]),
    "file.cloud-config": cloudConfig([
      ["/etc/kubernetes/discovery.conf", bareDiscovery],
      [JOIN_PATH, fileJoin],
    ], "## template: jinja\n"),
  });
  const r = await runCli(["doctor", d, "-o", "json", ...NOW]);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const findings = JSON.parse(r.stdout).findings as Record<string, string>[];
  const at = (f: string) => findings.filter((x) => x.file === path.join(d, f) + ":" + JOIN_PATH);
  assert.match(
    at("pin.cloud-config").map((f) => f.message).join("\n"),
    /invalid hash "sha256:zz", expected a 32 byte SHA-256 hash, found 1 bytes/,
  );
  assert.deepEqual(at("typo.ign").map((f) => [f.check, f.field, f.message]), [[
    "kubeadm",
    "nodeRegistration.nmae",
    `strict decoding error: unknown field "nodeRegistration.nmae": kubeadm join ignores it ('kubeadm config validate' refuses it)`,
  ]]);
  assert.deepEqual(at("file.cloud-config").map((f) => f.message), [
    "could not find authentication credentials for the TLS bootstrap process. Please use Token discovery, a discovery file with embedded authentication credentials or a discovery file without authentication credentials but with the TLSBootstrapToken flag",
  ]);
});

Deno.test("CLI doctor checks upload-certs' kubeadm-certs Secret without parsing ciphertext as certificates", async () => {
  const blob = Buffer.alloc(60, 7).toString("base64");
  const secret = (ca: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: kubeadm-certs\n  namespace: kube-system\ndata:\n  ca.crt: ${ca}\n  ca.key: ${blob}\n  etcd-ca.crt: ""\n`;
  const ok = dirWith("upload-ok", { "kubeadm-certs.yaml": secret(blob) }, false);
  let r = await runCli(["doctor", ok, ...NOW]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /: 0 findings, 0 files skipped\n$/);
  const bad = dirWith("upload-bad", { "kubeadm-certs.yaml": secret("AAAA") }, false);
  r = await runCli(["doctor", bad, ...NOW]);
  assert.equal(r.code, 3);
  assert.match(r.stdout, /data\.ca\.crt: upload-certs: 3 bytes: too short for AES-GCM/);
});

Deno.test("CLI doctor never passes a run that checked nothing (exit 1)", async () => {
  const empty = dirWith("empty", {}, false);
  const r = await runCli(["doctor", empty, ...NOW]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "error: doctor: nothing to check in the input\n");
});

Deno.test("CLI doctor passes upload-certs' recorded output (tests/fixtures/upload_certs/kubeadm-certs.yaml)", async () => {
  const r = await runCli([
    "doctor",
    repoPath("tests/fixtures/upload_certs/kubeadm-certs.yaml"),
    ...NOW,
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /: 0 findings, 0 files skipped\n$/);
});
