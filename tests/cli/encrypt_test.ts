import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { createDecipheriv, createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, tempDir } from "../_cli.ts";
import { sopsDecryptObject } from "../../lib/gitops/sops.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { ageOpen, FIXTURES, hasTool } from "../gitops/_helpers.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];
const TOKEN = "abcdef.0123456789abcdef";
const R1 = "age1f7q34mhfnuf7vyp9t57ght97c0mjdchj0lmfsgcx3hwptf7wqd3qmkd2af";
const R2 = "age1e2j95m5k8d0rlp5fmhesplc79haljmuhyucjy7qzf7cnxxwp0qwquz4n4w";

Deno.test("CLI encrypt writes token create's Secret as SOPS/age that each recipient opens, MAC included", async () => {
  const created = await runCli(["token", "create", TOKEN, ...NOW]);
  const r = await runCli(["encrypt", "--age-recipient", R1, "--age-recipient", R2, ...NOW], {
    stdin: created.stdout,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.ok(!r.stdout.includes("0123456789abcdef"));
  assert.match(
    r.stdout,
    /\nsops:\n {2}age:\n {2}- enc: \|\n {6}-----BEGIN AGE ENCRYPTED FILE-----\n/,
  );
  assert.match(
    r.stdout,
    /\n {2}encrypted_regex: \^\(data\|stringData\)\$\n {2}lastmodified: "2026-01-01T00:00:00Z"\n {2}mac: ENC\[AES256_GCM,/,
  );
  const [doc] = parseManifests(r.stdout, "out");
  const meta = doc!.metadata as { name: string };
  assert.equal(meta.name, "bootstrap-token-abcdef", "metadata stays in clear");
  const [secret] = parseManifests(created.stdout, "in");
  for (const [i, id] of ["age.key", "age2.key"].entries()) {
    const enc = (doc!.sops as { age: { enc: string }[] }).age[i]!.enc;
    const key = await ageOpen(`${FIXTURES}/${id}`, enc);
    assert.deepEqual(sopsDecryptObject(doc!, key), secret);
  }
});

Deno.test({
  name: "CLI encrypt --out-dir: one file per Secret; the age CLI opens each data key (judge)",
  ignore: !hasTool("age"),
  fn: async () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = path.join(dir, "git");
      const r = await runCli([
        "encrypt",
        "--age-recipient",
        R1,
        "--out-dir",
        out,
        `${FIXTURES}/input.yaml`,
        ...NOW,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const files = fs.readdirSync(out).sort();
      assert.deepEqual(files, [
        "kube-system.bootstrap-token-abcdef.sops.yaml",
        "kustomization.yaml",
        "prod.app.sops.yaml",
        "prod.typed.sops.yaml",
        "resources.yaml",
      ]);
      for (const f of files.filter((f) => f.endsWith(".sops.yaml"))) {
        const [doc] = parseManifests(fs.readFileSync(path.join(out, f), "utf8"), f);
        const enc = (doc!.sops as { age: { enc: string }[] }).age[0]!.enc;
        const key = execFileSync("age", ["-d", "-i", `${FIXTURES}/age.key`], { input: enc });
        assert.equal(key.length, 32, f);
        assert.ok(sopsDecryptObject(doc!, new Uint8Array(key)), f);
      }
    } finally {
      cleanup();
    }
  },
});

Deno.test("CLI encrypt refusals: a malformed recipient is exit 2 naming it, missing flag exit 2, --out with --out-dir exit 2; nothing written", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "x.yaml");
    const rows: [string[], number, RegExp][] = [
      [
        ["--age-recipient", R1.slice(0, -1) + "x"],
        2,
        /^error: malformed recipient "age1.*": invalid checksum/,
      ],
      [["--age-recipient", "age1pq1abc"], 2, /^error: malformed recipient "age1pq1abc"/],
      [[], 2, /missing required flag --age-recipient/],
      // a point of small order: the age CLI refuses to wrap for it (was: exit 1, "internal error")
      [
        ["--age-recipient", "age1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq5cu47z"],
        2,
        /^error: malformed recipient "age1q+5cu47z": bad input point: low order point/,
      ],
      [
        [
          "--age-recipient",
          R1,
          "--age-recipient",
          "age1t7wft09r2zxzfvwsk92eeql0tvzyghxytqwgapkcyf8dm5ylz9ts6wm9s8",
        ],
        2,
        /low order point/,
      ],
      [["--age-recipient", R1, "--out", out, "--out-dir", dir], 2, /--out and --out-dir/],
    ];
    for (const [flags, code, want] of rows) {
      const outFlag = flags.includes("--out") ? [] : ["--out", out];
      const r = await runCli(["encrypt", ...flags, ...outFlag, `${FIXTURES}/input.yaml`, ...NOW]);
      assert.equal(r.code, code, `${flags}: ${r.stderr}`);
      assert.match(r.stderr, want);
      assert.equal(r.stderr.trim().split("\n").length, 1);
      assert.ok(!fs.existsSync(out));
    }
  } finally {
    cleanup();
  }
});

/**
 * `sops --decrypt` of a whole multi-document file, written here apart from lib/gitops: the
 * first document's metadata (stores.ExtractMetadata), its data key opened with age's reference
 * implementation, every `data`/`stringData` value decrypted with its key path, and ONE SHA-512
 * over every document's leaves in file order, compared with the first document's MAC.
 */
async function sopsFileMacOk(text: string, identity: string): Promise<boolean> {
  const docs = parseManifests(text, "out");
  const meta = docs[0]!.sops as { age: { enc: string }[]; lastmodified: string; mac: string };
  const key = await ageOpen(identity, meta.age[0]!.enc);
  const open = (v: string, aad: string): string => {
    if (v === "") return "";
    const m = /^ENC\[AES256_GCM,data:(.*),iv:(.*),tag:(.*),type:str\]$/.exec(v)!;
    const d = createDecipheriv("aes-256-gcm", key, Buffer.from(m[2]!, "base64"));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(Buffer.from(m[3]!, "base64"));
    return Buffer.concat([d.update(Buffer.from(m[1]!, "base64")), d.final()]).toString();
  };
  const h = createHash("sha512");
  const walk = (v: unknown, path: string[], enc: boolean): void => {
    if (Array.isArray(v)) { for (const x of v) walk(x, path, enc); }
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (path.length === 0 && k === "sops") continue;
        walk(x, [...path, k], enc || /^(data|stringData)$/.test(k));
      }
    } else if (typeof v === "string") h.update(enc ? open(v, path.join(":") + ":") : v);
    else if (typeof v === "boolean") h.update(v ? "True" : "False");
    else if (v !== null) h.update(String(v));
  };
  for (const d of docs) walk(d, [], false);
  return open(meta.mac, meta.lastmodified) === h.digest("hex").toUpperCase();
}

Deno.test("CLI a stream of SOPS Secrets has one MAC over all documents, as sops writes a multi-document file", async () => {
  // Before, each document carried its own MAC, and `sops --decrypt` of the stream (metadata of
  // the first document, one MAC over all) failed; the Python judge of the same rule agreed.
  const id = `${FIXTURES}/age.key`;
  const three = await runCli(["token", "create", "--count", "3", "--age-recipient", R1, ...NOW]);
  assert.equal(three.code, 0, three.stderr);
  assert.equal(parseManifests(three.stdout, "out").length, 3);
  assert.ok(await sopsFileMacOk(three.stdout, id));
  const macs = new Set(
    parseManifests(three.stdout, "out").map((d) => (d.sops as { mac: string }).mac),
  );
  assert.equal(macs.size, 1);
  // upload-certs: two Secrets then Role and RoleBinding in clear (hashed too, as sops does)
  const uc = await runCli([
    "upload-certs",
    "--pki-dir",
    repoPath("tests/fixtures/upload_certs/pki"),
    "--certificate-key",
    "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204",
    "--age-recipient",
    R1,
    ...NOW,
  ]);
  assert.equal(uc.code, 0, uc.stderr);
  assert.deepEqual(parseManifests(uc.stdout, "out").map((d) => d.kind), [
    "Secret",
    "Secret",
    "Role",
    "RoleBinding",
  ]);
  assert.ok(await sopsFileMacOk(uc.stdout, id));
  // encrypt --out-dir: each file holds one document with its own MAC
  const { dir, cleanup } = tempDir();
  try {
    const r = await runCli(["encrypt", "--age-recipient", R1, "--out-dir", dir, ...NOW], {
      stdin: (await runCli(["token", "create", "--count", "2", ...NOW])).stdout,
    });
    assert.equal(r.code, 0, r.stderr);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".sops.yaml"));
    assert.equal(files.length, 2);
    for (const f of files) {
      const doc = parseManifests(fs.readFileSync(path.join(dir, f), "utf8"), f)[0]!;
      const key = await ageOpen(id, (doc.sops as { age: { enc: string }[] }).age[0]!.enc);
      assert.ok(sopsDecryptObject(doc, key));
      assert.ok(await sopsFileMacOk(fs.readFileSync(path.join(dir, f), "utf8"), id));
    }
  } finally {
    cleanup();
  }
});

/** `n` Secrets (and what else `extra` puts where) as a `---` stream. */
function secretStream(n: number, extra: (i: number) => string = () => ""): string {
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = i.toString(36).padStart(6, "0");
    docs.push(
      extra(i) +
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-${id}\n  namespace: kube-system\n` +
        `stringData:\n  token-id: ${id}\n  token-secret: ${id}0123456789\n  usage-bootstrap-signing: "true"\n` +
        `  empty: ""\ntype: bootstrap.kubernetes.io/token\n`,
    );
  }
  return docs.join("---\n");
}

const ROLE =
  "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n  namespace: kube-system\nrules: []\n---\n";
const CONFIG_MAP = "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: c\n---\n";

Deno.test("encrypt streams its output as renderStream writes the whole input, byte for byte, for the same randomness", async () => {
  const { encryptStream } = await import("../../commands/encrypt.ts");
  const { renderStream } = await import("../../commands/_secret_output.ts");
  const { newSopsDataKey, sopsEncryptObject } = await import("../../lib/gitops/sops.ts");
  const { withoutLastApplied } = await import("../../lib/gitops/sealed_secret.ts");
  const { seededRandom } = await import("../gitops/_helpers.ts");
  const dataKey = await newSopsDataKey([R1]);
  const now = new Date("2026-01-01T00:00:00Z");
  const protection = (seed: string) => {
    const random = seededRandom(seed);
    return {
      kind: "sops" as const,
      protect: (s: Parameters<typeof withoutLastApplied>[0]) =>
        sopsEncryptObject(withoutLastApplied(s), dataKey, now, random),
    };
  };
  const { dir, cleanup } = tempDir();
  const cases: [string, string, boolean][] = [
    // Over 1 MiB (read in pieces), a Role in clear midway: one MAC for the stream.
    ["pieces", secretStream(4500, (i) => (i === 2000 ? ROLE : "")), true],
    ["one", secretStream(1), true],
    // Each document keeps its own MAC: a first document in clear; a clear object with data.
    ["clear-first", ROLE + secretStream(300), false],
    ["config-map", secretStream(300, (i) => (i === 100 ? CONFIG_MAP : "")), false],
  ];
  for (const [name, text, shared] of cases) {
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(file, text);
    if (name === "pieces") assert.ok(text.length > 1 << 20, "more than one piece of input");
    const p = protection(name);
    const whole = renderStream(
      parseManifests(text, file).map((o) => o.kind === "Secret" ? p.protect(o) : o),
    );
    let streamed = "";
    const count = await encryptStream(file, file, protection(name), undefined, false, (t) => {
      streamed += t;
    });
    assert.equal(streamed, whole, name);
    const macs = new Set(streamed.match(/\n {2}mac: .*\n/g));
    assert.equal(macs.size === 1, shared || count === 1, `${name}: ${macs.size} MACs`);
    const out = path.join(dir, `${name}.out.yaml`);
    await encryptStream(file, file, protection(name), out, false, () => {
      throw new Error("stdout written with --out");
    });
    assert.equal(fs.readFileSync(out, "utf8"), whole, `${name} --out`);
  }
  cleanup();
});
