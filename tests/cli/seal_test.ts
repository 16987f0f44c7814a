import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { fixture, FIXTURES, unsealBlob } from "../gitops/_helpers.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];
const CERT = `${FIXTURES}/controller-2048.crt`;
const KEY = fixture("controller-2048.key");
const TOKEN = "abcdef.0123456789abcdef";

function labelOf(meta: { name: string; namespace?: string; annotations?: Record<string, string> }) {
  const a = meta.annotations ?? {};
  if (a["sealedsecrets.bitnami.com/cluster-wide"] === "true") return "";
  if (a["sealedsecrets.bitnami.com/namespace-wide"] === "true") return meta.namespace ?? "";
  return `${meta.namespace ?? ""}/${meta.name}`;
}

/** Every value of every SealedSecret in `text`, opened with OpenSSL: name -> key -> plaintext. */
function unsealAll(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const o of parseManifests(text, "out").filter((o) => o.kind === "SealedSecret")) {
    const meta = o.metadata as { name: string; namespace?: string };
    const data = (o.spec as { encryptedData: Record<string, string> }).encryptedData;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) {
      values[k] = Buffer.from(unsealBlob(KEY, v, labelOf(meta))).toString();
    }
    out[`${meta.namespace}/${meta.name}`] = values;
  }
  return out;
}

Deno.test("CLI seal turns token create's Secret into a SealedSecret that opens to the same values", async () => {
  const created = await runCli(["token", "create", TOKEN, ...NOW]);
  assert.equal(created.code, 0, created.stderr);
  const r = await runCli(["seal", "--cert", CERT, ...NOW], { stdin: created.stdout });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.ok(!r.stdout.includes("0123456789abcdef"));
  assert.ok(!r.stdout.includes(Buffer.from("0123456789abcdef").toString("base64")));
  const [sealed] = parseManifests(r.stdout, "out");
  assert.equal(sealed!.apiVersion, "bitnami.com/v1alpha1");
  assert.equal(sealed!.kind, "SealedSecret");
  const tmpl = (sealed!.spec as { template: { type: string } }).template;
  assert.equal(tmpl.type, "bootstrap.kubernetes.io/token");
  assert.deepEqual(unsealAll(r.stdout)["kube-system/bootstrap-token-abcdef"], {
    "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
    expiration: "2026-01-02T00:00:00Z",
    "token-id": "abcdef",
    "token-secret": "0123456789abcdef",
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
  });
});

Deno.test("CLI seal --scope cluster-wide -o json --out-dir: one file per SealedSecret, others and a kustomization", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const input = path.join(dir, "in.yaml");
    fs.copyFileSync(`${FIXTURES}/input.yaml`, input);
    const json = await runCli([
      "seal",
      "--cert",
      CERT,
      "--scope",
      "cluster-wide",
      "-o",
      "json",
      input,
      ...NOW,
    ]);
    assert.equal(json.code, 0, json.stderr);
    const list = JSON.parse(json.stdout);
    assert.equal(list.kind, "List");
    assert.deepEqual(list.items.map((i: { kind: string }) => i.kind), [
      "SealedSecret",
      "ConfigMap",
      "SealedSecret",
      "SealedSecret",
    ]);
    assert.equal(unsealAll(json.stdout)["prod/app"]!.user, "admin ü");
    const out = path.join(dir, "git");
    const r = await runCli(["seal", "--cert", CERT, "--out-dir", out, input, ...NOW]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(fs.readdirSync(out).sort(), [
      "kube-system.bootstrap-token-abcdef.sealedsecret.yaml",
      "kustomization.yaml",
      "prod.app.sealedsecret.yaml",
      "prod.typed.sealedsecret.yaml",
      "resources.yaml",
    ]);
    assert.match(
      fs.readFileSync(path.join(out, "kustomization.yaml"), "utf8"),
      /resources:\n- resources.yaml\n- prod.app.sealedsecret.yaml\n/,
    );
    // a second run refuses to overwrite
    const again = await runCli(["seal", "--cert", CERT, "--out-dir", out, input, ...NOW]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
  } finally {
    cleanup();
  }
});

const BAD_CERTS: [string, string, RegExp][] = [
  ["ec.crt", "P-256", /ec\.crt: expected RSA public key but found ECDSA P-256 key$/],
  [
    "expired.crt",
    "",
    /expired\.crt: failed to encrypt using an expired certificate on March 4, 2021$/,
  ],
  ["controller-2048.key", "", /controller-2048\.key: .*(no certificate|does not contain)/],
];

for (const [file, , want] of BAD_CERTS) {
  Deno.test(`CLI seal refuses --cert ${file}: one line, exit 1, nothing written`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = path.join(dir, "out.yaml");
      const r = await runCli([
        "seal",
        "--cert",
        `${FIXTURES}/${file}`,
        "--out",
        out,
        `${FIXTURES}/input.yaml`,
        ...NOW,
      ]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr.trim(), want);
      assert.ok(!fs.existsSync(out));
    } finally {
      cleanup();
    }
  });
}

Deno.test("CLI seal refusals of input and flags: kubeseal's texts, exit codes, no value on stderr", async () => {
  const noNs =
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: nn\ndata:\n  p: c2VjcmV0LXZhbHVl\n";
  const rows: [string[], string, number, RegExp][] = [
    [
      [],
      noNs,
      1,
      /stdin: Secret "nn": input secret has no namespace and cannot infer the namespace automatically when no kube config is available/,
    ],
    [["--scope", "namespace-wide"], noNs, 1, /input secret has no namespace/],
    [["--scope", "global"], noNs, 2, /--scope must be one of strict\|namespace-wide\|cluster-wide/],
    [["-o", "xml"], noNs, 2, /-o|--output/],
    [
      [],
      "apiVersion: v1\nkind: Secret\nmetadata: {name: n, namespace: x}\n",
      1,
      /secret\.data is empty in input Secret/,
    ],
    [
      [],
      "apiVersion: v1\nkind: Secret\nmetadata: {name: n, namespace: x}\ndata: {p: 'c2VjcmV0LXZhbHVl!'}\n",
      1,
      /data\["p"\]: illegal base64 data/,
    ],
  ];
  for (const [flags, stdin, code, want] of rows) {
    const r = await runCli(["seal", "--cert", CERT, ...flags, ...NOW], { stdin });
    assert.equal(r.code, code, `${flags} ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, want);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.ok(!/c2VjcmV0LXZhbHVl|secret-value/.test(r.stderr));
  }
  // cluster-wide needs no namespace
  const ok = await runCli(["seal", "--cert", CERT, "--scope", "cluster-wide", ...NOW], {
    stdin: noNs,
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(unsealAll(ok.stdout)["undefined/nn"]!.p, "secret-value");
});

Deno.test("CLI seal and encrypt refuse an input with no object (a failed step upstream) and --cert - with stdin input", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "out.yaml");
    const recipient = "age1f7q34mhfnuf7vyp9t57ght97c0mjdchj0lmfsgcx3hwptf7wqd3qmkd2af";
    for (const stdin of ["", "\n", "---\n---\n", "# nothing\n"]) {
      const s = await runCli(["seal", "--cert", CERT, "--out", out], { stdin });
      assert.equal(s.code, 1, s.stderr);
      assert.equal(
        s.stderr,
        "error: stdin: no secrets found. Ensure the input is valid and UTF-8 encoded\n",
      );
      const e = await runCli(["encrypt", "--age-recipient", recipient, "--out", out, ...NOW], {
        stdin,
      });
      assert.equal(e.code, 1, e.stderr);
      assert.equal(e.stderr, "error: stdin: no objects found: nothing to encrypt\n");
      assert.equal(s.stdout + e.stdout, "");
      assert.ok(!fs.existsSync(out));
    }
    // objects but no Secret: passed through with a warning, as before
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n";
    const passed = await runCli(["seal", "--cert", CERT], { stdin: cm });
    assert.equal(passed.code, 0, passed.stderr);
    assert.equal(passed.stderr, "warning: stdin: no Secret to seal\n");
    assert.match(passed.stdout, /kind: ConfigMap/);
    // --cert - and the Secrets on stdin: the certificate would swallow the Secrets
    const created = await runCli(["token", "create", TOKEN, ...NOW]);
    const both = await runCli(["seal", "--cert", "-"], {
      stdin: fs.readFileSync(CERT, "utf8") + created.stdout,
    });
    assert.equal(both.code, 2, both.stderr);
    assert.equal(both.stderr, "error: --cert - and the input both read stdin: give one a file\n");
    assert.equal(both.stdout, "");
    const fromFile = path.join(dir, "token.yaml");
    fs.writeFileSync(fromFile, created.stdout);
    const ok = await runCli(["seal", "--cert", "-", fromFile], {
      stdin: fs.readFileSync(CERT, "utf8"),
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(
      unsealAll(ok.stdout)["kube-system/bootstrap-token-abcdef"]!["token-secret"],
      "0123456789abcdef",
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI seal reads an input over 1 MiB in pieces and writes every object in order, as a stream or one List", async () => {
  // Large ConfigMaps (passed through) make the input long without many RSA operations.
  const docs: string[] = [];
  const names: string[] = [];
  for (let i = 0; i < 24; i++) {
    docs.push(
      `apiVersion: v1\ndata:\n  big: ${
        "x".repeat(60_000)
      }\nkind: ConfigMap\nmetadata:\n  name: c${i}\n`,
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s${i}\n  namespace: kube-system\nstringData:\n  v: "${i}"\n`,
    );
    names.push(`c${i}`, `s${i}`);
  }
  const input = docs.join("---\n");
  assert.ok(input.length > 1 << 20);
  const { dir, cleanup } = tempDir();
  const file = path.join(dir, "in.yaml");
  fs.writeFileSync(file, input);
  const inObjects = parseManifests(input, "in");
  for (const format of ["yaml", "json"]) {
    const r = await runCli(["seal", "--cert", CERT, ...NOW, "-o", format, file]);
    assert.equal(r.code, 0, r.stderr);
    const out = format === "json"
      ? (JSON.parse(r.stdout) as { items: Record<string, unknown>[] }).items
      : parseManifests(r.stdout, "out");
    assert.deepEqual(out.map((o) => (o.metadata as { name: string }).name), names, format);
    for (const [i, o] of out.entries()) {
      if (i % 2 === 0) assert.deepEqual(o, inObjects[i], `${format}: ConfigMap unchanged`);
      else assert.equal(o.kind, "SealedSecret");
    }
    if (format === "yaml") {
      const opened = unsealAll(r.stdout);
      assert.equal(opened["kube-system/s23"]?.v, "23");
      assert.equal(Object.keys(opened).length, 24);
    }
  }
  const outFile = path.join(dir, "sealed.yaml");
  const r = await runCli(["seal", "--cert", CERT, ...NOW, "--out", outFile, file]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(parseManifests(fs.readFileSync(outFile, "utf8"), "out").length, 48);
  cleanup();
});
