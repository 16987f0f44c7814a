import assert from "node:assert/strict";
import * as fs from "node:fs";
import { goSplitHostPort } from "../../lib/go/net.ts";
import { goUrlParse } from "../../lib/go/url.ts";
import { parseManifests, toYaml } from "../../lib/k8s/manifest.ts";
import {
  decodeJoinConfiguration,
  type JoinConfig,
  joinConfigObject,
  NO_DISCOVERY_CREDENTIALS,
  NODE_NAME_REQUIRED,
  nodeDefaultedFields,
  renderJoinConfiguration,
  validateCertificateKey,
  validateDiscoveryKubeConfigPath,
  validateDiscoveryTokenAPIServer,
  validateExtraArgs,
  validateIgnorePreflightErrors,
  validateJoinConfig,
  validateJoinConfiguration,
  validateSocketPath,
} from "../../lib/kubeadm/join_config.ts";
import { repoPath } from "../_cli.ts";

// Reference vectors (join-material.md §7) and values.
const TOKEN = "abcdef.1234567890123456";
const HASH = "sha256:7173b809ca12ec5dee4506cd86be934c4596dd234ee82c0662eac04a8c2c71dc";
const KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";
const EP = "192.168.122.100:6443";
const SOCK = "unix:///var/run/containerd/containerd.sock";
const UNSAFE =
  `discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue`;

/** Go 1.23 outputs of url.Parse, net.SplitHostPort, hex.DecodeString, net.ParseIP (tests/fixtures/kubeadm/go_vectors.go.txt). */
const GO = JSON.parse(
  fs.readFileSync(repoPath("tests/fixtures/kubeadm/go_vectors.json"), "utf8"),
) as Record<string, (string | boolean)[][]>;

Deno.test("goUrlParse() matches Go's url.Parse on the recorded vectors", () => {
  for (const [input, scheme, host, path] of GO.url! as string[][]) {
    const r = goUrlParse(input!);
    if (scheme === "ERR") assert.deepEqual(r, { ok: false, error: host }, input);
    else {
      assert.ok(r.ok, `${input}: ${JSON.stringify(r)}`);
      assert.deepEqual([r.scheme, r.host, r.path], [scheme, host, path], input);
    }
  }
});

Deno.test("goSplitHostPort() matches Go's net.SplitHostPort on the recorded vectors", () => {
  for (const [input, host, port] of GO.hostport! as string[][]) {
    const r = goSplitHostPort(input!);
    if (host === "ERR") assert.deepEqual(r, { ok: false, error: port }, input);
    else assert.deepEqual(r, { ok: true, host, port }, input);
  }
});

Deno.test("validateCertificateKey() gives Go's hex.DecodeString texts and withholds the key", () => {
  for (const [input, n, err] of GO.hex! as string[][]) {
    const errs = validateCertificateKey(input!, "controlPlane.certificateKey");
    if (n === "ERR") {
      assert.deepEqual(errs, [
        `controlPlane.certificateKey: Invalid value: "<value withheld>": certificate key decoding error: ${err}`,
      ]);
    } else if (n === "32") assert.deepEqual(errs, []);
    else {
      assert.deepEqual(errs, [
        `controlPlane.certificateKey: Invalid value: "<value withheld>": invalid certificate key size ${n}, the key must be an AES key of size 32`,
      ]);
    }
    for (const e of errs) assert.ok(!e.includes(input!) || input!.length < 3, e);
  }
  assert.deepEqual(validateCertificateKey("", "k"), [], "empty is allowed");
  assert.deepEqual(validateCertificateKey(KEY.toUpperCase(), "k"), [], "either case");
});

Deno.test("validateJoinConfig() takes the advertise address as Go's net.ParseIP does", () => {
  for (const [ip, ok] of GO.ip! as [string, boolean][]) {
    if (ip === "") continue; // absent: the node's default-route address
    const cfg = worker();
    cfg.controlPlane = { localAPIEndpoint: { advertiseAddress: ip }, certificateKey: KEY };
    const errs = validateJoinConfig(cfg);
    assert.deepEqual(
      errs,
      ok
        ? []
        : [`couldn't use "${ip}" as "apiserver-advertise-address", must be ipv4 or ipv6 address`],
      ip,
    );
  }
});

/** A valid worker config (the reference's minimal v1beta4 example). */
function worker(): JoinConfig {
  return {
    nodeRegistration: { name: "worker-1", criSocket: SOCK },
    discovery: { bootstrapToken: { token: TOKEN, apiServerEndpoint: EP, caCertHashes: [HASH] } },
  };
}

Deno.test("validateJoinConfig() on TestValidateDiscoveryBootstrapToken's table", () => {
  const cases: [string, NonNullable<JoinConfig["discovery"]["bootstrapToken"]>, string[]][] = [
    ["no endpoint", { token: TOKEN, caCertHashes: [HASH] }, [
      "discovery.bootstrapToken: Required value: APIServerEndpoint is not set",
      `discovery.bootstrapToken.apiServerEndpoint: Invalid value: "": missing port in address`,
    ]],
    ["no hashes, not unsafe", { token: TOKEN, apiServerEndpoint: EP }, [UNSAFE]],
    ["hash", { token: TOKEN, apiServerEndpoint: EP, caCertHashes: [HASH] }, []],
    ["hash and unsafe", {
      token: TOKEN,
      apiServerEndpoint: EP,
      caCertHashes: [HASH],
      unsafeSkipCAVerification: true,
    }, []],
    ["unsafe alone", { token: TOKEN, apiServerEndpoint: EP, unsafeSkipCAVerification: true }, []],
  ];
  for (const [name, bt, want] of cases) {
    const cfg = worker();
    cfg.discovery = { bootstrapToken: bt };
    assert.deepEqual(validateJoinConfig(cfg), want, name);
  }
});

Deno.test("validateDiscoveryTokenAPIServer() on TestValidateDiscoveryTokenAPIServer", () => {
  assert.deepEqual(validateDiscoveryTokenAPIServer("192.168.122.100", "p"), [
    `p: Invalid value: "192.168.122.100": address 192.168.122.100: missing port in address`,
  ]);
  assert.deepEqual(validateDiscoveryTokenAPIServer("192.168.122.100:6443", "p"), []);
});

Deno.test("validateDiscoveryKubeConfigPath() on TestValidateDiscoveryKubeConfigPath", () => {
  const existing = new Set(["/tmp/existing-file.conf"]);
  const exists = (p: string) => existing.has(p);
  const bad = "not a valid HTTPS URL or a file on disk";
  const cases: [string, string | undefined][] = [
    ["foo", bad],
    ["/foo/bar/file_which_i_believe_not_existing.conf", bad],
    ["/tmp/existing-file.conf", undefined],
    ["http://[::1]a", bad],
    ["http://url/file.conf", "if a URL is used, the scheme must be https"],
    ["https://u r l/file.conf", bad],
    ["https://url/file.conf", undefined],
  ];
  for (const [path, detail] of cases) {
    assert.deepEqual(
      validateDiscoveryKubeConfigPath(path, "f", exists),
      detail ? [`f: Invalid value: ${JSON.stringify(path)}: ${detail}`] : [],
      path,
    );
  }
  // Offline, a path names a file on the node: not checked here.
  assert.deepEqual(validateDiscoveryKubeConfigPath("foo", "f"), []);
});

Deno.test("validateJoinConfig() on TestValidateDiscovery: both set, neither set", () => {
  const both = worker();
  both.discovery.file = { kubeConfigPath: "https://url/file.conf" };
  assert.deepEqual(validateJoinConfig(both), [
    `discovery: Invalid value: "": bootstrapToken and file cannot both be set`,
  ]);
  const none = worker();
  none.discovery = {};
  assert.deepEqual(validateJoinConfig(none), [
    `discovery: Invalid value: "": bootstrapToken or file must be set`,
  ]);
});

Deno.test("validateSocketPath() on TestValidateSocketPath", () => {
  const cases: [string, string | undefined][] = [
    ["unix:///some/path", undefined],
    ["bla:///some/path", `only URL scheme "unix" is supported, got "bla"`],
    ["/some/path", `only URL scheme "unix" is supported, got ""`],
    [":::", `URL parsing error: parse ":::": missing protocol scheme`],
    ["", "empty CRI socket"],
  ];
  for (const [socket, detail] of cases) {
    assert.deepEqual(
      validateSocketPath(socket, "criSocket"),
      detail ? [`criSocket: Invalid value: ${JSON.stringify(socket)}: ${detail}`] : [],
      socket,
    );
  }
});

Deno.test("validateExtraArgs() on TestValidateExtraArgs", () => {
  assert.equal(validateExtraArgs([{ name: "foo", value: "bar" }], "a").length, 0);
  assert.deepEqual(validateExtraArgs([{ name: "", value: "bar" }], "a"), [
    `a: Invalid value: "index 0": argument has no name`,
  ]);
  assert.equal(
    validateExtraArgs([{ name: "", value: "a" }, { name: "", value: "b" }], "a").length,
    2,
  );
});

Deno.test("validateJoinConfig() node registration: name rules, dynamic defaults, socket, pull policy", () => {
  const named = (name: string | undefined) => {
    const c = worker();
    if (name === undefined) delete c.nodeRegistration.name;
    else c.nodeRegistration.name = name;
    return validateJoinConfig(c);
  };
  assert.deepEqual(named("worker-1.rack7"), []);
  assert.deepEqual(named("Worker-1"), [], "kubeadm lower-cases the name (GetHostname)");
  assert.deepEqual(named(undefined), [], "absent: the node's hostname");
  assert.deepEqual(named("  "), ["empty hostname is invalid"]);
  const bad = named("worker_1");
  assert.equal(bad.length, 1);
  assert.match(
    bad[0]!,
    /^nodeRegistration\.name: Invalid value: "worker_1": a lowercase RFC 1123 subdomain/,
  );
  assert.match(named("a".repeat(254))[0]!, /must be no more than 253 characters$/);
  // The text kubeadm gives when no name can be found at all.
  assert.match(NODE_NAME_REQUIRED, /^--node-name or \.nodeRegistration\.name/);

  const sock = (s: string) => {
    const c = worker();
    c.nodeRegistration.criSocket = s;
    return validateJoinConfig(c);
  };
  assert.deepEqual(sock("/run/containerd/containerd.sock"), [], "a bare path gets unix://");
  const c = worker();
  c.nodeRegistration.imagePullPolicy = "Sometimes";
  assert.deepEqual(validateJoinConfig(c), [
    `nodeRegistration.imagePullPolicy: Invalid value: "Sometimes": invalid pull policy`,
  ]);
  const d = worker();
  delete d.nodeRegistration.criSocket;
  assert.deepEqual(nodeDefaultedFields(d), ["nodeRegistration.criSocket (detected)"]);
});

Deno.test("validateJoinConfig() control plane: endpoint, port, key; caCertPath", () => {
  const cp = (ep: { advertiseAddress?: string; bindPort?: number }, key?: string) => {
    const c = worker();
    c.controlPlane = {
      localAPIEndpoint: ep,
      ...(key !== undefined ? { certificateKey: key } : {}),
    };
    return validateJoinConfig(c);
  };
  assert.deepEqual(cp({ advertiseAddress: "192.168.122.12", bindPort: 6443 }, KEY), []);
  assert.deepEqual(cp({}, KEY), [], "address from the node, port defaulted to 6443");
  assert.deepEqual(cp({}), [], "kubeadm itself accepts a control-plane join without a key");
  assert.deepEqual(cp({ bindPort: 70000 }, KEY), [
    "controlPlane.localAPIEndpoint.bindPort: Invalid value: 70000: port number is not valid",
  ]);
  assert.deepEqual(cp({}, KEY.slice(2)), [
    `controlPlane.certificateKey: Invalid value: "<value withheld>": invalid certificate key size 31, the key must be an AES key of size 32`,
  ]);
  const rel = worker();
  rel.caCertPath = "pki/ca.crt";
  assert.deepEqual(validateJoinConfig(rel), [
    `caCertPath: Invalid value: "pki/ca.crt": the ca certificate path must be an absolute path`,
  ]);
  const pem = worker();
  pem.caCertPath = "/etc/kubernetes/pki/ca.pem";
  assert.equal(validateJoinConfig(pem).length, 1, "must end in .crt");
});

Deno.test("validateJoinConfig() withholds token values and aggregates in kubeadm's order", () => {
  const c = worker();
  c.discovery.bootstrapToken!.token = "abcdef.0123456789ABCDEF";
  c.discovery.tlsBootstrapToken = "nope";
  c.nodeRegistration.name = "bad_name";
  const errs = validateJoinConfig(c);
  assert.deepEqual(errs.map((e) => e.split(":")[0]), [
    "discovery.bootstrapToken.token",
    "discovery.tlsBootstrapToken",
    "nodeRegistration.name",
  ]);
  for (const e of errs) assert.ok(!/0123456789ABCDEF|nope/.test(e), e);
  // The TLS bootstrap token defaults to the discovery token.
  const d = worker();
  d.discovery.bootstrapToken!.token = "bad";
  assert.equal(validateJoinConfig(d).length, 2, "both token and the defaulted tlsBootstrapToken");
});

Deno.test("joinConfigObject() marshals as CAPI's TestMarshalJoinConfigurationForVersion expects", () => {
  const cfg: JoinConfig = {
    nodeRegistration: { ignorePreflightErrors: ["some-preflight-check"] },
    discovery: {},
  };
  assert.equal(
    toYaml(joinConfigObject(cfg, "v1beta3")),
    "apiVersion: kubeadm.k8s.io/v1beta3\ndiscovery: {}\nkind: JoinConfiguration\nnodeRegistration:\n  ignorePreflightErrors:\n  - some-preflight-check\n  taints: null\n",
  );
  cfg.timeouts = { controlPlaneComponentHealthCheck: "50s" };
  assert.equal(
    toYaml(joinConfigObject(cfg, "v1beta4")),
    "apiVersion: kubeadm.k8s.io/v1beta4\ndiscovery: {}\nkind: JoinConfiguration\nnodeRegistration:\n  ignorePreflightErrors:\n  - some-preflight-check\n  taints: null\ntimeouts:\n  controlPlaneComponentHealthCheck: 50s\n",
  );
});

// The reference's minimal examples (§1.6), as written there.
const V4_WORKER = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "192.168.122.100:6443"
    token: "abcdef.1234567890123456"
    caCertHashes:
    - "${HASH}"
nodeRegistration:
  name: "worker-1"
  criSocket: "${SOCK}"
  kubeletExtraArgs:
  - name: "node-ip"
    value: "192.168.122.21"
`;
const V4_CP = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "192.168.122.100:6443"
    token: "abcdef.1234567890123456"
    caCertHashes:
    - "${HASH}"
nodeRegistration:
  name: "cp-2"
  criSocket: "${SOCK}"
controlPlane:
  localAPIEndpoint:
    advertiseAddress: "192.168.122.12"
    bindPort: 6443
  certificateKey: "${KEY}"
timeouts:
  discovery: "5m0s"
`;
const V3_WORKER = `apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "192.168.122.100:6443"
    token: "abcdef.1234567890123456"
    caCertHashes:
    - "${HASH}"
  timeout: "5m0s"
nodeRegistration:
  name: "worker-1"
  criSocket: "${SOCK}"
  kubeletExtraArgs:
    node-ip: "192.168.122.21"
`;
const DOC_EXAMPLE = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: some-address:6443
    token: abcdef.0123456789abcdef
    unsafeSkipCAVerification: true
  tlsBootstrapToken: abcdef.0123456789abcdef
`;

Deno.test("validateJoinConfiguration() accepts the reference's examples and upstream's doc example", () => {
  for (
    const [name, text] of [
      ["v1beta4 worker", V4_WORKER],
      ["v1beta4 control plane", V4_CP],
      ["v1beta3 worker", V3_WORKER],
      [
        "v1beta3 control plane",
        V3_WORKER.replace('"worker-1"', '"cp-2"') +
        V4_CP.slice(V4_CP.indexOf("controlPlane:"), V4_CP.indexOf("timeouts:")),
      ],
      ["doc.go example", DOC_EXAMPLE],
    ]
  ) {
    const [doc] = parseManifests(text!, name);
    assert.deepEqual(validateJoinConfiguration(doc, name), [], name);
    assert.deepEqual(decodeJoinConfiguration(doc, name).warnings, [], name);
  }
});

Deno.test("renderJoinConfiguration() gives the reference's examples, minimal, in kubectl's YAML", () => {
  const w = renderJoinConfiguration({
    token: TOKEN,
    apiServerEndpoint: EP,
    caCertHashes: [HASH],
    nodeName: "worker-1",
    criSocket: SOCK,
    kubeletExtraArgs: [{ name: "node-ip", value: "192.168.122.21" }],
  });
  const ref = decodeJoinConfiguration(parseManifests(V4_WORKER)[0]).config;
  assert.deepEqual(decodeJoinConfiguration(w).config, {
    ...ref,
    nodeRegistration: { ...ref.nodeRegistration, taints: null },
  });
  assert.equal(
    toYaml(w),
    `apiVersion: kubeadm.k8s.io/v1beta4
discovery:
  bootstrapToken:
    apiServerEndpoint: 192.168.122.100:6443
    caCertHashes:
    - ${HASH}
    token: ${TOKEN}
kind: JoinConfiguration
nodeRegistration:
  criSocket: ${SOCK}
  kubeletExtraArgs:
  - name: node-ip
    value: 192.168.122.21
  name: worker-1
  taints: null
`,
  );
  const cp = renderJoinConfiguration({
    version: "v1beta3",
    token: TOKEN,
    apiServerEndpoint: EP,
    caCertHashes: [HASH],
    nodeName: "cp-2",
    controlPlane: { advertiseAddress: "192.168.122.12", certificateKey: KEY },
    taints: [],
  });
  assert.deepEqual(validateJoinConfiguration(cp), []);
  assert.deepEqual(cp.controlPlane, {
    localAPIEndpoint: { advertiseAddress: "192.168.122.12" },
    certificateKey: KEY,
  }, "bindPort left to kubeadm's default");
  assert.deepEqual((cp.nodeRegistration as Record<string, unknown>).taints, []);
  const file = renderJoinConfiguration({
    discoveryFile: "/etc/kubernetes/discovery.conf",
    tlsBootstrapToken: TOKEN,
  });
  assert.deepEqual(file.discovery, {
    file: { kubeConfigPath: "/etc/kubernetes/discovery.conf" },
    tlsBootstrapToken: TOKEN,
  });
  assert.deepEqual(validateJoinConfiguration(file), []);
  assert.deepEqual(
    renderJoinConfiguration({ token: TOKEN, apiServerEndpoint: EP, tlsBootstrapToken: TOKEN })
      .discovery,
    { bootstrapToken: { token: TOKEN, apiServerEndpoint: EP } },
    "a tlsBootstrapToken equal to the token is kubeadm's default: left out",
  );
});

Deno.test("joinConfigObject() converts kubeletExtraArgs and the discovery timeout between versions", () => {
  const v3 = decodeJoinConfiguration(
    parseManifests(`apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
discovery:
  bootstrapToken: {token: ${TOKEN}, apiServerEndpoint: "${EP}", unsafeSkipCAVerification: true}
  timeout: 2m
nodeRegistration:
  kubeletExtraArgs: {v: "2", node-ip: 10.0.0.1, a: x}
`)[0],
  );
  assert.deepEqual(v3.config.nodeRegistration.kubeletExtraArgs, [
    { name: "a", value: "x" },
    { name: "node-ip", value: "10.0.0.1" },
    { name: "v", value: "2" },
  ], "convertToArgs sorts by name");
  const v4 = joinConfigObject(v3.config, "v1beta4");
  assert.deepEqual(v4.timeouts, { discovery: "2m0s" });
  assert.equal((v4.discovery as Record<string, unknown>).timeout, undefined);
  // Back to v1beta3: duplicates collapse, the later one winning (convertFromArgs); the
  // earlier ones are reported as dropped (a list flag given twice holds both).
  const dup = v3.config;
  dup.nodeRegistration.kubeletExtraArgs = [{ name: "v", value: "1" }, { name: "v", value: "4" }];
  dup.dryRun = true;
  const dropped: string[] = [];
  const back = joinConfigObject(dup, "v1beta3", dropped);
  assert.deepEqual((back.nodeRegistration as Record<string, unknown>).kubeletExtraArgs, { v: "4" });
  assert.deepEqual((back.discovery as Record<string, unknown>).timeout, "2m0s");
  assert.deepEqual(dropped, ["dryRun", "nodeRegistration.kubeletExtraArgs[0] (v repeated)"]);
});

Deno.test("decodeJoinConfiguration() refuses other kinds, old and unknown versions, wrong types", () => {
  const bad: [string, RegExp][] = [
    [
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n",
      /kind "InitConfiguration" is not a JoinConfiguration/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta2\nkind: JoinConfiguration\n",
      /old API spec: "kubeadm.k8s.io\/v1beta2"\. Please use kubeadm v1\.22 instead/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1\nkind: JoinConfiguration\n",
      /unknown configuration API "kubeadm.k8s.io\/v1"/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration: {name: 12}\n",
      /nodeRegistration\.name: cannot unmarshal number into a string/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ntimeouts: {discovery: soon}\n",
      /timeouts\.discovery: time: invalid duration "soon"/,
    ],
  ];
  for (const [text, re] of bad) {
    assert.throws(() => decodeJoinConfiguration(parseManifests(text)[0], "f.yaml"), re, text);
  }
  const w = decodeJoinConfiguration(
    parseManifests(
      "apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndryRun: true\nnodeRegistration: {colour: red}\n",
    )[0],
  );
  assert.deepEqual(w.warnings, [
    `strict decoding error: unknown field "dryRun"`,
    `strict decoding error: unknown field "nodeRegistration.colour"`,
  ]);
});

Deno.test("decodeJoinConfiguration() takes any mistyped field as bad input or a finding, never a crash", () => {
  const values: unknown[] = [
    null,
    1,
    1.5,
    true,
    "x",
    "",
    [],
    [1],
    ["a"],
    {},
    { a: 1 },
    [{}],
    70000,
  ];
  const paths = [
    "nodeRegistration",
    "nodeRegistration.name",
    "nodeRegistration.taints",
    "nodeRegistration.kubeletExtraArgs",
    "discovery",
    "discovery.bootstrapToken",
    "discovery.bootstrapToken.caCertHashes",
    "discovery.file",
    "discovery.timeout",
    "controlPlane",
    "controlPlane.localAPIEndpoint.bindPort",
    "timeouts",
    "timeouts.discovery",
    "patches",
    "skipPhases",
    "dryRun",
  ];
  let refused = 0;
  for (const version of ["v1beta3", "v1beta4"]) {
    for (const p of paths) {
      for (const v of values) {
        const doc: Record<string, unknown> = {
          apiVersion: `kubeadm.k8s.io/${version}`,
          kind: "JoinConfiguration",
        };
        const keys = p.split(".");
        let cur = doc;
        for (const k of keys.slice(0, -1)) cur = (cur[k] = {}) as Record<string, unknown>;
        cur[keys[keys.length - 1]!] = v;
        try {
          validateJoinConfig(decodeJoinConfiguration(doc, "f").config);
        } catch (e) {
          assert.equal(
            (e as Error).name,
            "InputError",
            `${version} ${p}=${JSON.stringify(v)}: ${e}`,
          );
          refused++;
        }
      }
    }
  }
  assert.ok(refused > 100, `only ${refused} refused`);
});

Deno.test("validateIgnorePreflightErrors() on TestValidateIgnorePreflightErrors", () => {
  assert.deepEqual(validateIgnorePreflightErrors(["c", "b"], ["a", "b", "a"]), {
    names: ["a", "b", "c"],
    errors: [],
  });
  assert.deepEqual(validateIgnorePreflightErrors(["SWAP"], []).names, ["swap"]);
  for (const [cli, cfg] of [[["all"], ["a"]], [["a"], ["all"]], [["all", "b"], []]]) {
    assert.deepEqual(validateIgnorePreflightErrors(cli!, cfg!).errors.length, 1, `${cli} ${cfg}`);
  }
  assert.deepEqual(validateIgnorePreflightErrors([], ["all", "Swap"]).errors, [
    `ignore-preflight-errors: Invalid value: "all,swap": don't specify individual checks if 'all' is used`,
  ]);
  // In a config file: judged once the config itself is valid.
  const c = worker();
  c.nodeRegistration.ignorePreflightErrors = ["all", "swap"];
  assert.equal(validateJoinConfig(c).length, 1);
  c.nodeRegistration.name = "bad_name";
  assert.match(validateJoinConfig(c)[0]!, /^nodeRegistration\.name/);
});

Deno.test("validateJoinConfig() adds kubeadm join's own refusals: malformed pins, file discovery without credentials", () => {
  const base: JoinConfig = {
    nodeRegistration: { name: "w" },
    discovery: {
      bootstrapToken: {
        token: "abcdef.0123456789abcdef",
        apiServerEndpoint: "10.0.0.1:6443",
        caCertHashes: ["sha256:zz"],
      },
    },
  };
  assert.deepEqual(validateJoinConfig(base), [
    'invalid discovery token CA certificate hash: invalid hash "sha256:zz", expected a 32 byte SHA-256 hash, found 1 bytes',
  ]);
  assert.deepEqual(
    validateJoinConfig(base, { joinTime: false }),
    [],
    "config validate does not check pins",
  );
  const file: JoinConfig = {
    nodeRegistration: { name: "w" },
    discovery: { file: { kubeConfigPath: "/etc/kubernetes/d.conf" } },
  };
  assert.deepEqual(validateJoinConfig(file), [], "the file is not at hand");
  assert.deepEqual(validateJoinConfig(file, { discoveryFileHasCredentials: true }), []);
  assert.deepEqual(validateJoinConfig(file, { discoveryFileHasCredentials: false }), [
    NO_DISCOVERY_CREDENTIALS,
  ]);
  file.discovery.tlsBootstrapToken = "abcdef.0123456789abcdef";
  assert.deepEqual(validateJoinConfig(file, { discoveryFileHasCredentials: false }), []);
});
