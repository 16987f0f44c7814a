/**
 * `joinkit node-payload` through the real CLI: one payload per node from a
 * JoinConfiguration, kubeadm's judgement per node, file discovery's
 * kubeconfig carried along, and refusals as one line with nothing written.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";

const TOKEN = "abcdef.0123456789abcdef";
const SECRET = "0123456789abcdef";
const PIN = "sha256:7173b809ca12ec5dee4506cd86be934c4596dd234ee82c0662eac04a8c2c71dc";
const KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";

const root = tempDir("joinkit-node-payload-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;
const fresh = () => path.join(root.dir, `t${n++}`);
const put = (name: string, text: string) => {
  const p = path.join(root.dir, name);
  fs.writeFileSync(p, text);
  return p;
};

const WORKER = put(
  "worker.yaml",
  `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "192.168.122.100:6443"
    token: "${TOKEN}"
    caCertHashes:
    - "${PIN}"
nodeRegistration:
  criSocket: "unix:///var/run/containerd/containerd.sock"
`,
);
const CONTROL_PLANE = put(
  "cp.yaml",
  fs.readFileSync(WORKER, "utf8") +
    `controlPlane:\n  localAPIEndpoint:\n    advertiseAddress: "192.168.122.12"\n  certificateKey: "${KEY}"\n`,
);
const FILE_DISCOVERY = put(
  "file.yaml",
  `apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
discovery:
  file:
    kubeConfigPath: /etc/kubernetes/discovery.conf
  tlsBootstrapToken: "${TOKEN}"
nodeRegistration:
  criSocket: "unix:///var/run/containerd/containerd.sock"
`,
);
const DISCOVERY_KUBECONFIG = put(
  "discovery.conf",
  `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${btoa("not checked here")}
    server: https://192.168.122.100:6443
  name: ""
contexts: []
current-context: ""
kind: Config
preferences: {}
users: []
`,
);

/** The JoinConfiguration inside a cloud-config payload. */
function joinOf(cloudConfig: string): Record<string, unknown> {
  const m =
    /- {3}path: \/run\/kubeadm\/kubeadm-join-config\.yaml\n(?: {4}.*\n)*? {4}content: \|\n((?: {6}.*\n)+)/
      .exec(cloudConfig);
  assert.ok(m, cloudConfig);
  const body = m[1]!.split("\n").map((l) => l.slice(6)).join("\n");
  return parseManifests(body, "payload")[0]!;
}

Deno.test("CLI node-payload writes one cloud-config per node, each with its name, 0600 in a 0700 dir", async () => {
  const out = fresh();
  const nodes = put("nodes.txt", "# rack 1\nworker-2\n\nworker-3  # spare\n");
  const r = await runCli([
    "node-payload",
    "--config",
    WORKER,
    "--node",
    "worker-1",
    nodes,
    "--out-dir",
    out,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
  assert.ok(!r.stderr.includes(SECRET));
  assert.deepEqual(fs.readdirSync(out).sort(), [
    "worker-1.cloud-config",
    "worker-2.cloud-config",
    "worker-3.cloud-config",
  ]);
  assert.equal((fs.statSync(out).mode & 0o777).toString(8), "700");
  for (const node of ["worker-1", "worker-2", "worker-3"]) {
    const file = path.join(out, `${node}.cloud-config`);
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), "600");
    const text = fs.readFileSync(file, "utf8");
    assert.ok(text.startsWith("#cloud-config\n\nwrite_files:\n"));
    const join = joinOf(text);
    assert.equal((join.nodeRegistration as { name: string }).name, node);
    assert.equal(
      (join.discovery as { bootstrapToken: { token: string } }).bootstrapToken.token,
      TOKEN,
    );
  }
});

Deno.test("CLI node-payload --format ignition: CABPK's files and unit, the node's config in a data: URL", async () => {
  const r = await runCli([
    "node-payload",
    "--config",
    WORKER,
    "--node",
    "worker-1",
    "--format",
    "ignition",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const ign = JSON.parse(r.stdout);
  assert.equal(ign.ignition.version, "3.0.0");
  const yml = ign.storage.files.find((f: { path: string }) => f.path === "/etc/kubeadm.yml");
  assert.equal(yml.mode, 384);
  const text = decodeURIComponent(yml.contents.source.slice("data:,".length));
  assert.ok(text.startsWith("---\napiVersion: kubeadm.k8s.io/v1beta4\n"));
  assert.ok(text.includes("  name: worker-1\n"));
  assert.equal(ign.systemd.units[0].name, "kubeadm.service");
  assert.equal(ign.systemd.units[0].enabled, true);
});

Deno.test("CLI node-payload for a control plane: CABPK's control-plane template, the certificate key inside", async () => {
  const r = await runCli(["node-payload", "--config", CONTROL_PLANE, "--node", "cp-2"]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes("    content: |\n      apiVersion: kubeadm.k8s.io/v1beta4\n"));
  const join = joinOf(r.stdout) as { controlPlane: { certificateKey: string } };
  assert.equal(join.controlPlane.certificateKey, KEY);
  assert.ok(!r.stderr.includes(KEY));
});

Deno.test("CLI node-payload with file discovery carries the kubeconfig to its path (0640, as CABPK)", async () => {
  const missing = await runCli(["node-payload", "--config", FILE_DISCOVERY, "--node", "w-1"]);
  assert.equal(missing.code, 2);
  assert.match(
    missing.stderr,
    /^error: .*file discovery reads \/etc\/kubernetes\/discovery\.conf on the node: give --discovery-kubeconfig FILE/,
  );
  const r = await runCli([
    "node-payload",
    "--config",
    FILE_DISCOVERY,
    "--node",
    "w-1",
    "--discovery-kubeconfig",
    DISCOVERY_KUBECONFIG,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.includes(
      "write_files:\n-   path: /etc/kubernetes/discovery.conf\n    owner: root:root\n    permissions: '0640'\n    content: |\n      apiVersion: v1\n",
    ),
  );
  // The v1beta3 input stays v1beta3.
  assert.equal(joinOf(r.stdout).apiVersion, "kubeadm.k8s.io/v1beta3");
});

Deno.test("CLI node-payload refuses a bad node name (exit 2; 1 in NODES), nothing written", async () => {
  const out = fresh();
  const a = await runCli([
    "node-payload",
    "--config",
    WORKER,
    "--node",
    "Worker_1",
    "--out-dir",
    out,
  ]);
  assert.equal(a.code, 2);
  assert.equal(a.stderr.split("\n").length, 2, a.stderr);
  assert.match(a.stderr, /^error: --node "Worker_1" cannot be a Node name: /);
  const list = put("bad-nodes.txt", "worker-1\nbad..name\n");
  const b = await runCli(["node-payload", "--config", WORKER, list, "--out-dir", out]);
  assert.equal(b.code, 1);
  assert.match(b.stderr, /^error: .*bad-nodes\.txt:2: not a Node name: /);
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI node-payload says no (exit 3, kubeadm's text) to a config kubeadm would refuse", async () => {
  const noPins = put(
    "nopins.yaml",
    fs.readFileSync(WORKER, "utf8").replace(/ {4}caCertHashes:\n.*\n/, ""),
  );
  const out = fresh();
  const r = await runCli(["node-payload", "--config", noPins, "--node", "w-1", "--out-dir", out]);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr,
    /discovery\.bootstrapToken\.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe/,
  );
  assert.ok(!r.stderr.includes(SECRET));
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI node-payload refuses usage errors: several nodes without --out-dir, unknown --format, not a JoinConfiguration", async () => {
  const a = await runCli(["node-payload", "--config", WORKER, "--node", "a", "--node", "b"]);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /^error: 2 nodes: give --out-dir DIR/);
  const b = await runCli(["node-payload", "--config", WORKER, "--node", "a", "--format", "xml"]);
  assert.equal(b.code, 2);
  const relative = put(
    "relative.yaml",
    fs.readFileSync(FILE_DISCOVERY, "utf8").replace("/etc/kubernetes/discovery.conf", "d.conf"),
  );
  const r = await runCli([
    "node-payload",
    "--config",
    relative,
    "--node",
    "a",
    "--discovery-kubeconfig",
    DISCOVERY_KUBECONFIG,
  ]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /kubeConfigPath "d\.conf": path not absolute\n$/);
  const c = await runCli(["node-payload", "--config", DISCOVERY_KUBECONFIG, "--node", "a"]);
  assert.equal(c.code, 1);
  assert.match(c.stderr, /no JoinConfiguration found/);
});
