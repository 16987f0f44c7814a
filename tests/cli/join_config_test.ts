import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { validateJoinConfiguration } from "../../lib/kubeadm/join_config.ts";
import { certificatesFromPem } from "../../lib/pki/certsource.ts";
import { caCertHash } from "../../lib/pki/pin.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const PIN = caCertHash(certificatesFromPem(fs.readFileSync(CA, "utf8"), "ca")[0]!);
const T = "abcdef.0123456789abcdef";
const SECRET = "0123456789abcdef";
const KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";
const BASE = ["join-config", "--server", "10.0.0.1:6443", "--token", T, "--ca", CA];

Deno.test("CLI join-config renders a minimal worker JoinConfiguration that kubeadm's rules accept", async () => {
  const r = await runCli([
    ...BASE,
    "--node",
    "worker-1",
    "--kubelet-arg",
    "node-ip=10.0.0.21",
    "--cri-socket",
    "/run/containerd/containerd.sock",
    "--taint",
    "dedicated=gpu:NoSchedule",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(
    r.stdout,
    `apiVersion: kubeadm.k8s.io/v1beta4
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.0.0.1:6443
    caCertHashes:
    - ${PIN}
    token: ${T}
kind: JoinConfiguration
nodeRegistration:
  criSocket: unix:///run/containerd/containerd.sock
  kubeletExtraArgs:
  - name: node-ip
    value: 10.0.0.21
  name: worker-1
  taints:
  - effect: NoSchedule
    key: dedicated
    value: gpu
`,
  );
  assert.deepEqual(validateJoinConfiguration(parseManifests(r.stdout)[0]), []);
});

Deno.test("CLI join-config control plane, v1beta3, JSON; the key and token never on stderr", async () => {
  const r = await runCli([
    ...BASE,
    "--control-plane",
    "--certificate-key",
    KEY,
    "--apiserver-advertise-address",
    "10.0.0.12",
    "--apiserver-bind-port",
    "7443",
    "--api-version",
    "v1beta3",
    "--kubelet-arg",
    "v=1",
    "--kubelet-arg",
    "v=4",
    "-o",
    "json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.apiVersion, "kubeadm.k8s.io/v1beta3");
  assert.deepEqual(o.controlPlane, {
    certificateKey: KEY,
    localAPIEndpoint: { advertiseAddress: "10.0.0.12", bindPort: 7443 },
  });
  assert.deepEqual(o.nodeRegistration, { kubeletExtraArgs: { v: "4" }, taints: null });
  // Refusals: one line, exit 2, no secret.
  const bad: [string[], RegExp][] = [
    [["--control-plane"], /^error: --control-plane needs --certificate-key/],
    [["--certificate-key", KEY.slice(1)], /odd length hex string/],
    [["--certificate-key", "x" + KEY.slice(1)], /invalid byte: U\+0078 'x'/],
    [["--node", "worker_1"], /nodeRegistration\.name: Invalid value: "worker_1"/],
    [["--taint", "k:Sometimes"], /effect must be one of/],
    [["--kubelet-arg=--v=2"], /NAME without leading dashes/],
    [["--apiserver-bind-port", "7443"], /need --control-plane/],
    [["--discovery-file", "/etc/d.conf"], /--discovery-file is file discovery/],
  ];
  for (const [extra, re] of bad) {
    const b = await runCli([...BASE, ...extra]);
    assert.equal(b.code, 2, `${extra.join(" ")}: ${b.stderr}`);
    assert.equal(b.stdout, "");
    assert.match(b.stderr, re);
    assert.equal(b.stderr.trimEnd().split("\n").length, 1, b.stderr);
    assert.ok(!b.stderr.includes(SECRET) && !b.stderr.includes(KEY.slice(2, 60)), b.stderr);
  }
});

Deno.test("CLI join-config FILE re-judges, converts, and refuses with kubeadm's text", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const v3 = path.join(dir, "v3.yaml");
    const w = await runCli([
      ...BASE,
      "--api-version",
      "v1beta3",
      "--out",
      v3,
      "--kubelet-arg",
      "a=1",
    ]);
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stderr, `wrote ${v3} (0600)\n`);
    assert.equal(fs.statSync(v3).mode & 0o777, 0o600);
    const again = await runCli([...BASE, "--out", v3]);
    assert.equal(again.code, 1, "no overwrite without --force");
    const c = await runCli(["join-config", v3, "--api-version", "v1beta4"]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /^apiVersion: kubeadm\.k8s\.io\/v1beta4\n/);
    assert.ok(c.stdout.includes('kubeletExtraArgs:\n  - name: a\n    value: "1"\n'), c.stdout);
    assert.equal(c.stderr, `ok: ${v3}: a valid kubeadm.k8s.io/v1beta3 JoinConfiguration\n`);
    const same = await runCli(["join-config", v3]);
    assert.match(same.stderr, /v1beta3 is deprecated/);

    const bad = path.join(dir, "bad.yaml");
    fs.writeFileSync(
      bad,
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ncolour: red\ndiscovery:\n  bootstrapToken:\n    token: abcdef.0123456789ABCDEF\n    apiServerEndpoint: 10.0.0.1\n`,
    );
    const r = await runCli(["join-config", bad]);
    assert.equal(r.code, 3);
    assert.equal(
      r.stderr,
      `error: ${bad}: [discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue, discovery.bootstrapToken.token: Invalid value: "<value withheld>": the bootstrap token is invalid, discovery.bootstrapToken.apiServerEndpoint: Invalid value: "10.0.0.1": address 10.0.0.1: missing port in address, discovery.tlsBootstrapToken: Invalid value: "<value withheld>": the bootstrap token is invalid]\n`,
    );
    const mixed = await runCli(["join-config", bad, "--node", "n"]);
    assert.equal(mixed.code, 2);
  } finally {
    cleanup();
  }
});

Deno.test("CLI init --config takes tokens and endpoint from an InitConfiguration; join-config.yaml agrees", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const cfg = path.join(dir, "kubeadm.yaml");
    fs.writeFileSync(
      cfg,
      `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: "${T}"
  description: "rack 7"
  ttl: 2h
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
controlPlaneEndpoint: cp.example.com
`,
    );
    const out = path.join(dir, "out");
    const r = await runCli([
      "init",
      "--config",
      cfg,
      "--ca",
      CA,
      "--out-dir",
      out,
      "--now",
      "2026-01-01T00:00:00Z",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stderr.includes(SECRET));
    const join = fs.readFileSync(path.join(out, "join-config.yaml"), "utf8");
    const doc = parseManifests(join)[0]!;
    assert.deepEqual(validateJoinConfiguration(doc), []);
    assert.deepEqual((doc.discovery as Record<string, unknown>).bootstrapToken, {
      apiServerEndpoint: "cp.example.com:6443",
      caCertHashes: [PIN],
      token: T,
    });
    assert.equal(fs.statSync(path.join(out, "join-config.yaml")).mode & 0o777, 0o600);
    const secret = parseManifests(fs.readFileSync(path.join(out, "bootstrap-token.yaml"), "utf8"))
      .find((o) => o.kind === "Secret")!;
    const data = secret.data as Record<string, string>;
    assert.equal(atob(data.description!), "rack 7");
    assert.equal(atob(data.expiration!), "2026-01-01T02:00:00Z");
    assert.match(
      fs.readFileSync(path.join(out, "join-command.txt"), "utf8"),
      /^kubeadm join cp\.example\.com:6443 --token /,
    );
    const mixed = await runCli(["init", "--config", cfg, "--ca", CA, "--token", T]);
    assert.equal(mixed.code, 2);
    assert.equal(mixed.stderr, "error: can not mix '--config' with arguments [token]\n");
  } finally {
    cleanup();
  }
});

Deno.test("CLI token create --config renders one Secret per bootstrapTokens entry", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const cfg = path.join(dir, "kubeadm.yaml");
    fs.writeFileSync(
      cfg,
      `apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
bootstrapTokens:
- token: "9a08jv.c0izixklcxtmnze7"
  ttl: "0"
  usages: [authentication]
  groups: [system:bootstrappers:ci]
- {}
`,
    );
    const r = await runCli(["token", "create", "--config", cfg, "--string-data"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^warning: .*deprecated API spec: "kubeadm\.k8s\.io\/v1beta3"/);
    const secrets = parseManifests(r.stdout);
    assert.equal(secrets.length, 2);
    assert.deepEqual(secrets[0]!.stringData, {
      "auth-extra-groups": "system:bootstrappers:ci",
      "token-id": "9a08jv",
      "token-secret": "c0izixklcxtmnze7",
      "usage-bootstrap-authentication": "true",
    });
    const second = secrets[1]!.stringData as Record<string, string>;
    assert.match(second["token-id"]!, /^[a-z0-9]{6}$/, "a token the file leaves out is generated");
    assert.ok(second.expiration, "24h by default");
  } finally {
    cleanup();
  }
});

/** A discovery kubeconfig for the demo CA; `token` gives its user credentials. */
function discoveryKubeconfig(dir: string, name: string, token?: string): string {
  const ca = fs.readFileSync(CA).toString("base64");
  const user = token
    ? `contexts:\n- context: {cluster: kubernetes, user: u}\n  name: c\ncurrent-context: c\nusers:\n- name: u\n  user: {token: ${token}}\n`
    : `contexts: []\ncurrent-context: ""\nusers: []\n`;
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: ${ca}\n    server: https://10.0.0.1:6443\n  name: ${
      token ? "kubernetes" : '""'
    }\n${user}`,
  );
  return file;
}

Deno.test("CLI join-config FILE refuses what kubeadm join refuses: a malformed caCertHashes entry (exit 3)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const cases: [string, RegExp][] = [
      [
        "sha256:zz",
        /invalid discovery token CA certificate hash: invalid hash "sha256:zz", expected a 32 byte SHA-256 hash, found 1 bytes$/,
      ],
      [
        "md5:" + "ab".repeat(16),
        /invalid discovery token CA certificate hash: unknown hash format "md5"/,
      ],
      [
        PIN.slice(7),
        /invalid discovery token CA certificate hash: invalid hash, expected "format:hex-value"/,
      ],
    ];
    for (const [hash, want] of cases) {
      const f = path.join(dir, "join.yaml");
      fs.writeFileSync(
        f,
        `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken: {apiServerEndpoint: "10.0.0.1:6443", token: ${T}, caCertHashes: ["${hash}"]}\n`,
      );
      const r = await runCli(["join-config", f]);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr.trim(), want);
      assert.ok(!r.stderr.includes(SECRET));
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI join-config file discovery needs a TLS bootstrap token or credentials in the discovery file", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const bare = discoveryKubeconfig(dir, "bare.conf");
    const withToken = discoveryKubeconfig(dir, "creds.conf", T);
    const flags = ["join-config", "--discovery-file", "/etc/kubernetes/discovery.conf"];
    let r = await runCli(flags);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /--discovery-file without --tls-bootstrap-token: kubeadm join then needs credentials/,
    );
    r = await runCli([...flags, "--discovery-kubeconfig", bare]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /could not find authentication credentials for the TLS bootstrap process/,
    );
    r = await runCli([...flags, "--discovery-kubeconfig", withToken]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /kubeConfigPath: \/etc\/kubernetes\/discovery\.conf/);
    assert.ok(!r.stderr.includes(SECRET));

    // The same rule for a FILE: unproven credentials are not called valid.
    const f = path.join(dir, "file.yaml");
    fs.writeFileSync(f, r.stdout);
    r = await runCli(["join-config", f]);
    assert.equal(r.code, 3);
    assert.match(
      r.stderr,
      /file discovery without discovery\.tlsBootstrapToken: kubeadm join needs credentials/,
    );
    r = await runCli(["join-config", f, "--discovery-kubeconfig", bare]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /could not find authentication credentials/);
    r = await runCli(["join-config", f, "--discovery-kubeconfig", withToken]);
    assert.equal(r.code, 0, r.stderr);
  } finally {
    cleanup();
  }
});

Deno.test("CLI join-config FILE names nodeRegistration.kubeletExtraArgs in its refusal (the redactor keeps field paths)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const f = path.join(dir, "join.yaml");
    fs.writeFileSync(
      f,
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs: [{name: "", value: x}]\ndiscovery:\n  bootstrapToken: {apiServerEndpoint: "10.0.0.1:6443", token: ${T}, caCertHashes: ["${PIN}"]}\n`,
    );
    const r = await runCli(["join-config", f]);
    assert.equal(r.code, 3);
    assert.equal(
      r.stderr,
      `error: ${f}: nodeRegistration.kubeletExtraArgs: Invalid value: "index 0": argument has no name\n`,
    );
  } finally {
    cleanup();
  }
});

// Real kubeadm v1.32.5 (`kubeadm config validate`, whose split and decoding `kubeadm join
// --config` shares) refuses each of these with exit 1; the recorded corpus holds the verdicts.
Deno.test("CLI join-config FILE refuses as kubeadm does: a piece of the stream with no document, a bad separator, a document without group/version/kind, a kind twice, a bad taint timeAdded (exit 1)", async () => {
  const { dir, cleanup } = tempDir();
  const join =
    `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration: {name: w, criSocket: unix:///x}\ndiscovery:\n  bootstrapToken: {apiServerEndpoint: "10.0.0.1:6443", token: ${T}, caCertHashes: ["${PIN}"]}\n`;
  const NO_DOC = /kind and apiVersion is mandatory information that must be specified$/;
  try {
    const cases: [string, string, RegExp | null][] = [
      ["trailing comment after ---", `${join}---\n# end\n`, NO_DOC],
      ["blank lines before the first ---", `\n\n---\n${join}`, NO_DOC],
      ["two --- in a row", `---\n---\n${join}`, NO_DOC],
      ["an empty {} piece", `${join}---\n{}\n`, NO_DOC],
      ["text after ---", `${join}--- |\n`, /invalid Yaml document separator: \|$/],
      [
        "taint timeAdded not RFC 3339",
        join.replace(
          "criSocket: unix:///x}",
          "criSocket: unix:///x, taints: [{key: a, effect: NoSchedule, timeAdded: '2020-01-01'}]}",
        ),
        /nodeRegistration\.taints\[0\]\.timeAdded: parsing time "2020-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"$/,
      ],
      // SplitYAMLDocuments needs a group, a version and a kind even in documents join ignores.
      [
        "a core v1 object",
        `${join}---\napiVersion: v1\nkind: ConfigMap\n`,
        /invalid configuration for GroupVersionKind \/v1, Kind=ConfigMap: kind and apiVersion is mandatory information that must be specified$/,
      ],
      [
        "a document without apiVersion",
        `${join}---\nkind: Foo\n`,
        /GroupVersionKind \/, Kind=Foo: /,
      ],
      [
        "a kind twice",
        `${join}---\napiVersion: x.io/v1\nkind: Foo\n---\napiVersion: y.io/v1\nkind: Foo\n`,
        /invalid configuration: kind "Foo" is specified twice in YAML file$/,
      ],
      [
        "a JSON document with a key twice",
        `{"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "JoinConfiguration",\n "nodeRegistration": {"name": "w", "name": "x"},\n "discovery": {"bootstrapToken": {"apiServerEndpoint": "10.0.0.1:6443", "token": "${T}", "caCertHashes": ["${PIN}"]}}}\n`,
        /join\.yaml: line 2: key "name" already set in map$/,
      ],
      // A piece starting with `{` is JSON to kubeadm (IsJSONBuffer): a YAML flow mapping there is
      // a JSON parse error; after `---` or a comment it is YAML.
      [
        "a YAML flow mapping as the first thing",
        `{apiVersion: kubeadm.k8s.io/v1beta4, kind: JoinConfiguration, discovery: {bootstrapToken: {apiServerEndpoint: '10.0.0.1:6443', token: ${T}, caCertHashes: ['${PIN}']}}}\n`,
        /couldn't get version\/kind; json parse error: /,
      ],
      [
        "a JSON bindPort with a fraction",
        `{"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "JoinConfiguration", "controlPlane": {"localAPIEndpoint": {"advertiseAddress": "10.0.0.2", "bindPort": 6443.0}},\n "discovery": {"bootstrapToken": {"apiServerEndpoint": "10.0.0.1:6443", "token": "${T}", "caCertHashes": ["${PIN}"]}}}\n`,
        /json: cannot unmarshal number 6443\.0 into Go struct field APIEndpoint\.bindPort of type int32$/,
      ],
      [
        "a YAML flow mapping after ---",
        `---\n{apiVersion: kubeadm.k8s.io/v1beta4, kind: JoinConfiguration, discovery: {bootstrapToken: {apiServerEndpoint: '10.0.0.1:6443', token: ${T}, caCertHashes: ['${PIN}']}}}\n`,
        null,
      ],
      ["leading --- and a trailing ---", `---\n${join}---\n`, null],
      [
        "taint timeAdded RFC 3339",
        join.replace(
          "criSocket: unix:///x}",
          "criSocket: unix:///x, taints: [{key: a, effect: NoSchedule, timeAdded: '2020-01-01T00:00:00Z'}]}",
        ),
        null,
      ],
    ];
    for (const [name, text, want] of cases) {
      const f = path.join(dir, "join.yaml");
      fs.writeFileSync(f, text);
      const r = await runCli(["join-config", f]);
      if (want === null) {
        assert.equal(r.code, 0, `${name}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /warning/, name);
        assert.match(r.stdout, /kind: JoinConfiguration/);
        continue;
      }
      assert.equal(r.code, 1, `${name}: ${r.stderr}`);
      assert.equal(r.stdout, "", name);
      assert.equal(r.stderr.trim().split("\n").length, 1, name);
      assert.match(r.stderr.trim(), want, name);
      assert.ok(r.stderr.includes("join.yaml"), name);
    }
  } finally {
    cleanup();
  }
});
