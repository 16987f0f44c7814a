/**
 * `joinkit node-payload` through the real CLI: one payload per node from a
 * JoinConfiguration, kubeadm's judgement per node, file discovery's
 * kubeconfig carried along, and refusals as one line with nothing written.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
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
  // A kubeconfig as --config: kubeadm's SplitYAMLDocuments refuses its core v1 object first.
  const c = await runCli(["node-payload", "--config", DISCOVERY_KUBECONFIG, "--node", "a"]);
  assert.equal(c.code, 1);
  assert.match(
    c.stderr,
    /invalid configuration for GroupVersionKind \/v1, Kind=Config: kind and apiVersion is mandatory information that must be specified\n$/,
  );
});

const FIXTURES = "tests/fixtures/node_payload";

Deno.test("CLI node-payload renders the judged fixtures byte for byte (cloud-init's and Ignition's verdicts apply to today's output)", async () => {
  const runs: [string, string[]][] = [
    ["typical.cloud-config", ["--config", `${FIXTURES}/join.yaml`]],
    ["typical.ign", ["--config", `${FIXTURES}/join.yaml`, "--format", "ignition"]],
    ["hostile.cloud-config", ["--config", `${FIXTURES}/hostile-join.yaml`]],
    ["hostile.ign", ["--config", `${FIXTURES}/hostile-join.yaml`, "--format", "ignition"]],
    ["jinja.cloud-config", ["--config", `${FIXTURES}/jinja-join.yaml`]],
    ["control-plane.cloud-config", ["--config", `${FIXTURES}/control-plane-join.yaml`]],
    [
      "control-plane.ign",
      ["--config", `${FIXTURES}/control-plane-join.yaml`, "--format", "ignition"],
    ],
    [
      "hostile-file.cloud-config",
      [
        "--config",
        `${FIXTURES}/hostile-file.yaml`,
        "--discovery-kubeconfig",
        `${FIXTURES}/hostile-discovery.conf`,
      ],
    ],
    [
      "hostile-file.ign",
      [
        "--config",
        `${FIXTURES}/hostile-file.yaml`,
        "--discovery-kubeconfig",
        `${FIXTURES}/hostile-discovery.conf`,
        "--format",
        "ignition",
      ],
    ],
  ];
  for (const [fixture, args] of runs) {
    const r = await runCli(["node-payload", ...args, "--node", "worker-1"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, fs.readFileSync(`${FIXTURES}/${fixture}`, "utf8"), fixture);
    assert.ok(!r.stdout.includes("## template"), fixture);
  }
});

Deno.test("CLI node-payload refuses a discovery path that is unclean or collides (exit 2, one line, nothing written), per format", async () => {
  const cfg = (kubeConfigPath: string, extra = "") =>
    put(
      `path-${n++}.yaml`,
      fs.readFileSync(FILE_DISCOVERY, "utf8").replace(
        "/etc/kubernetes/discovery.conf",
        JSON.stringify(kubeConfigPath),
      ) + extra,
    );
  // [kubeConfigPath, format, stderr pattern]; each would have been rendered before.
  const rows: [string, string, RegExp][] = [
    [
      "/run/kubeadm/kubeadm-join-config.yaml",
      "cloud-config",
      /also writes the JoinConfiguration there: cloud-init would silently keep only the later write_files entry/,
    ],
    ["/run/cluster-api/placeholder", "cloud-config", /also writes CABPK's placeholder file there/],
    ["/run/cluster-api/bootstrap-success.complete", "cloud-config", /the bootstrap sentinel/],
    [
      "/run/kubeadm",
      "cloud-config",
      /\/run\/kubeadm\/kubeadm-join-config\.yaml \(the JoinConfiguration\) needs this path to be a directory/,
    ],
    ["/", "ignition", /needs this path to be a directory/],
    [
      "/etc/kubeadm.yml",
      "ignition",
      /also writes the JoinConfiguration there: Ignition refuses duplicate paths/,
    ],
    ["/etc/systemd/system/kubeadm.service", "ignition", /the kubeadm\.service unit/],
    [
      "/etc/kubeadm.sh/discovery.conf",
      "ignition",
      /\/etc\/kubeadm\.sh \(the join script\) is a file, not a directory/,
    ],
    ["/tmp/kubeadm.yml", "ignition", /moved after the join/],
    [
      "/etc/kubernetes//discovery.conf",
      "cloud-config",
      /path is not fully simplified \(Ignition refuses it; cloud-init writes \/etc\/kubernetes\/discovery\.conf\)/,
    ],
    ["/etc/kubernetes/discovery.conf/", "ignition", /path is not fully simplified/],
    ["/etc/kubernetes/./x/../discovery.conf", "ignition", /path is not fully simplified/],
    [
      "/etc/kubernetes/kubelet.conf",
      "cloud-config",
      /preflight check FileAvailable--etc-kubernetes-kubelet\.conf fails when this file exists/,
    ],
    ["/etc/kubernetes/pki/ca.crt", "ignition", /FileAvailable--etc-kubernetes-pki-ca\.crt/],
    ["/etc/kubernetes/pki", "cloud-config", /needs this path to be a directory/],
  ];
  for (const [p, format, want] of rows) {
    const out = fresh();
    const r = await runCli([
      "node-payload",
      "--config",
      cfg(p),
      "--node",
      "w-1",
      "--discovery-kubeconfig",
      DISCOVERY_KUBECONFIG,
      "--format",
      format,
      "--out-dir",
      out,
    ]);
    assert.equal(r.code, 2, `${p}: ${r.stderr}`);
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
    assert.match(r.stderr, /^error: .*discovery\.file\.kubeConfigPath "/, p);
    assert.match(r.stderr, want, p);
    assert.equal(fs.existsSync(out), false, p);
  }
  // The same path passes where the other format does not write it, and a waived preflight check
  // passes as kubeadm lets it.
  const ok: [string, string, string][] = [
    ["/etc/kubeadm.yml", "cloud-config", ""],
    ["/run/kubeadm/kubeadm-join-config.yaml", "ignition", ""],
    [
      "/etc/kubernetes/kubelet.conf",
      "cloud-config",
      "  ignorePreflightErrors:\n  - FileAvailable--etc-kubernetes-kubelet.conf\n",
    ],
  ];
  for (const [p, format, extra] of ok) {
    const text = fs.readFileSync(FILE_DISCOVERY, "utf8").replace(
      "/etc/kubernetes/discovery.conf",
      JSON.stringify(p),
    ).replace("nodeRegistration:\n", `nodeRegistration:\n${extra}`);
    const r = await runCli([
      "node-payload",
      "--config",
      put(`ok-${n++}.yaml`, text),
      "--node",
      "w-1",
      "--discovery-kubeconfig",
      DISCOVERY_KUBECONFIG,
      "--format",
      format,
    ]);
    assert.equal(r.code, 0, `${p}: ${r.stderr}`);
  }
});

Deno.test("CLI node-payload places a file:// kubeConfigPath at its path, as kubeadm's defaulting reads it", async () => {
  const cfg = put(
    "file-url.yaml",
    fs.readFileSync(FILE_DISCOVERY, "utf8").replace(
      "/etc/kubernetes/discovery.conf",
      "file:///etc/kubernetes/disc%20overy.conf",
    ),
  );
  const r = await runCli([
    "node-payload",
    "--config",
    cfg,
    "--node",
    "w-1",
    "--discovery-kubeconfig",
    DISCOVERY_KUBECONFIG,
    "--format",
    "ignition",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const ign = JSON.parse(r.stdout);
  assert.equal(ign.storage.files[0].path, "/etc/kubernetes/disc overy.conf");
  const missing = await runCli(["node-payload", "--config", cfg, "--node", "w-1"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /reads \/etc\/kubernetes\/disc overy\.conf on the node/);
});

/** The JoinConfiguration a cloud-config carries (block scalar or base64). */
function carriedJoin(cloudConfig: string): string {
  const m =
    /- {3}path: \/run\/kubeadm\/kubeadm-join-config\.yaml\n(?: {4}encoding: "base64"\n)?(?: {4}.*\n)*? {4}content: \|\n((?: {6}.*\n| *\n)*)/
      .exec(cloudConfig);
  assert.ok(m, cloudConfig);
  const body = m[1]!.replace(/^ {6}/gm, "");
  return cloudConfig.includes('encoding: "base64"')
    ? Buffer.from(body.trim(), "base64").toString("utf8")
    : body;
}

Deno.test("CLI node-payload carries DEL, NEL and U+2028 values as go-yaml writes them (kubeadm reads them back; fixture verdicts)", async () => {
  // [fixture, the value's line as go-yaml v2 writes it, base64 (raw U+2028 is not block-safe)]
  const rows: [string, string, boolean][] = [
    ["unreadable-join.yaml", '    value: "a\\x7Fb"\n', false],
    ["unreadable-nel-join.yaml", '    value: "a\\Nb"\n', false],
    ["u2028-join.yaml", "    value: 'c\u2028      d'\n", true],
  ];
  for (const [fixture, line, base64] of rows) {
    const r = await runCli(["node-payload", "--config", `${FIXTURES}/${fixture}`, "--node", "w-1"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.includes('encoding: "base64"'), base64, fixture);
    assert.ok(carriedJoin(r.stdout).includes(line), fixture);
    assert.doesNotMatch(
      r.stdout,
      /[\x7f-\x9f\u2028\u2029]/,
      "nothing raw in the cloud-config itself",
    );
  }
});

Deno.test("CLI node-payload refuses a JSON config with an unpaired surrogate escape as kubeadm's loader does (exit 1, its text, nothing written)", async () => {
  const cfg = put(
    "surrogate.json",
    JSON.stringify({
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "JoinConfiguration",
      discovery: {
        bootstrapToken: {
          apiServerEndpoint: "192.168.122.100:6443",
          token: TOKEN,
          caCertHashes: [PIN],
        },
      },
      nodeRegistration: { kubeletExtraArgs: [{ name: "node-labels", value: "a\ud800b" }] },
    }).replace("\ud800", "\\ud800"),
  );
  const out = fresh();
  const r = await runCli(["node-payload", "--config", cfg, "--node", "w-1", "--out-dir", out]);
  // kubeadm v1.32.5 `config validate` on the same file: exit 1, this text.
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^error: .*surrogate\.json: could not interpret GroupVersionKind; unmarshal error: error converting YAML to JSON: yaml: found invalid Unicode character escape code\n$/,
  );
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI node-payload refuses file discovery with neither a TLS bootstrap token nor credentials in --discovery-kubeconfig (exit 3, kubeadm's text)", async () => {
  const noToken = put(
    "file-no-token.yaml",
    fs.readFileSync(FILE_DISCOVERY, "utf8").replace(/ {2}tlsBootstrapToken: .*\n/, ""),
  );
  const out = fresh();
  const r = await runCli([
    "node-payload",
    "--config",
    noToken,
    "--discovery-kubeconfig",
    DISCOVERY_KUBECONFIG,
    "--node",
    "w-1",
    "--out-dir",
    out,
  ]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stderr,
    /^error: .*file-no-token\.yaml \(node w-1\): could not find authentication credentials for the TLS bootstrap process\. Please use Token discovery, a discovery file with embedded authentication credentials or a discovery file without authentication credentials but with the TLSBootstrapToken flag\n$/,
  );
  assert.equal(fs.existsSync(out), false);
  // The same file with a user in its current context: kubeadm join would TLS-bootstrap with it.
  const withUser = put(
    "discovery-user.conf",
    fs.readFileSync(DISCOVERY_KUBECONFIG, "utf8")
      .replace("contexts: []", 'contexts:\n- context:\n    cluster: ""\n    user: u\n  name: c')
      .replace('current-context: ""', "current-context: c")
      .replace("users: []", "users:\n- name: u\n  user:\n    token: abcdef.0123456789abcdef"),
  );
  const ok = await runCli([
    "node-payload",
    "--config",
    noToken,
    "--discovery-kubeconfig",
    withUser,
    "--node",
    "w-1",
  ]);
  assert.equal(ok.code, 0, ok.stderr);
  // With the TLS bootstrap token, the file needs no credentials.
  const token = await runCli([
    "node-payload",
    "--config",
    FILE_DISCOVERY,
    "--discovery-kubeconfig",
    DISCOVERY_KUBECONFIG,
    "--node",
    "w-1",
  ]);
  assert.equal(token.code, 0, token.stderr);
});

Deno.test("CLI node-payload refuses a discovery kubeconfig that is not UTF-8 (exit 1): it could not be carried byte for byte", async () => {
  const bad = path.join(root.dir, "latin1.conf");
  fs.writeFileSync(
    bad,
    Buffer.concat([fs.readFileSync(DISCOVERY_KUBECONFIG), Buffer.from([0x23, 0xe9, 0x0a])]),
  );
  const r = await runCli([
    "node-payload",
    "--config",
    FILE_DISCOVERY,
    "--node",
    "w-1",
    "--discovery-kubeconfig",
    bad,
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /latin1\.conf: not UTF-8 text/);
});
