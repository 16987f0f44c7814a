/**
 * A table of bad inputs through the real CLI: every case spawns joinkit (via
 * tests/_cli.ts) in its own copy of a fixture directory and checks the exit
 * code, a single stderr line naming the problem (and the file or flag),
 * empty stdout, and that no file was created or changed. A few inputs that
 * look odd but are valid (CRLF line endings, a byte-order mark, text around
 * PEM blocks) must work. Cases run concurrently in small batches.
 *
 * Unreadable files: the tests usually run as root, where chmod 000 does not
 * stop reads; the chmod case is then skipped (with a note on stderr) and
 * /proc/self/mem, which no one can read from offset 0 (EIO), stands in.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { runCli, tempDir } from "../_cli.ts";
import {
  FIXTURE_NOW,
  FIXTURE_SECRET,
  FIXTURE_SERVER,
  FIXTURE_TOKEN,
  makeFixtures,
  runInProcess,
} from "../_fuzz.ts";

const NOW = ["--now", FIXTURE_NOW];
const BATCH = Number(process.env.JOINKIT_TEST_BATCH ?? 4);

const root = tempDir("joinkit-bad-");
const FX = path.join(root.dir, "fixtures");
fs.mkdirSync(FX);
const F = await makeFixtures(FX);
fs.rmSync(path.join(FX, "node"), { recursive: true });
// An expired CA, a second unrelated CA, encrypted copies of the CA key.
for (
  const [sub, extra] of [
    ["expired", ["--now", "2000-01-01T00:00:00Z", "--validity", "48h"]],
    ["other", NOW],
  ] as const
) {
  const r = await runInProcess([
    "ca",
    "create",
    "--out-dir",
    path.join(FX, sub),
    "--key-type",
    "ecdsa-p256",
    ...extra,
  ]);
  assert.equal(r.code, 0, r.stderr);
}
execFileSync("openssl", [
  "pkey",
  "-in",
  F.caKey,
  "-aes256",
  "-passout",
  "pass:pw",
  "-out",
  path.join(FX, "ca-enc.key"),
]);
execFileSync("openssl", [
  "ec",
  "-in",
  F.caKey,
  "-aes128",
  "-passout",
  "pass:pw",
  "-out",
  path.join(FX, "ca-legacy-enc.key"),
], {
  stdio: "pipe",
});
const isRoot = process.getuid?.() === 0;
// A chain whose intermediate expires after 30 days; the leaf lives a year (openssl allows it).
const CHAIN = path.join(FX, "chain");
fs.mkdirSync(CHAIN);
{
  const c = (n: string) => path.join(CHAIN, n);
  const ssl = (...a: string[]) => execFileSync("openssl", a, { stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  fs.writeFileSync(
    c("ca.ext"),
    "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n",
  );
  fs.writeFileSync(
    c("leaf.ext"),
    "keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
  );
  ssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    c("root.key"),
    "-out",
    c("root.crt"),
    "-subj",
    "/CN=root",
    "-days",
    "3650",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
  );
  ssl(
    "req",
    "-new",
    ...ec,
    "-keyout",
    c("int.key"),
    "-out",
    c("int.csr"),
    "-subj",
    "/CN=intermediate",
  );
  ssl(
    "x509",
    "-req",
    "-in",
    c("int.csr"),
    "-CA",
    c("root.crt"),
    "-CAkey",
    c("root.key"),
    "-out",
    c("int.crt"),
    "-days",
    "30",
    "-extfile",
    c("ca.ext"),
  );
  ssl(
    "req",
    "-new",
    ...ec,
    "-keyout",
    c("leaf.key"),
    "-out",
    c("leaf.csr"),
    "-subj",
    "/O=system:nodes/CN=system:node:w1",
  );
  ssl(
    "x509",
    "-req",
    "-in",
    c("leaf.csr"),
    "-CA",
    c("int.crt"),
    "-CAkey",
    c("int.key"),
    "-out",
    c("leaf.crt"),
    "-days",
    "365",
    "-extfile",
    c("leaf.ext"),
  );
  fs.writeFileSync(
    c("bundle.crt"),
    fs.readFileSync(c("leaf.crt"), "utf8") + fs.readFileSync(c("int.crt"), "utf8"),
  );
}
const IN_60_DAYS = new Date(Date.now() + 60 * 86_400_000).toISOString().replace(/\.\d+Z$/, "Z");

globalThis.addEventListener("unload", root.cleanup);

const T = F.text;
const write = (dir: string, name: string, data: string | Uint8Array) =>
  fs.writeFileSync(path.join(dir, name), data);
const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");
const secretYaml = (name: string, id: string, secret = FIXTURE_SECRET) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: kube-system\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: ${id}\n  token-secret: ${secret}\n  usage-bootstrap-authentication: "true"\n  usage-bootstrap-signing: "true"\n`;

interface Case {
  name: string;
  args: string[];
  setup?: (dir: string) => void;
  stdin?: string;
  /** Expected exit code (several: a malformed flag value is 1 or 2 depending on the command). */
  code: number | number[];
  /** Progress lines may precede the final `error:` line. */
  progress?: boolean;
  /** For failures: what the one stderr line must match. */
  err?: RegExp;
  /** Text the stderr line must contain (the file or flag at fault). */
  names?: string;
  /** Why the case is skipped here, if it is. */
  skip?: string | undefined;
}

const CASES: Case[] = [
  // token generate / auth-file
  {
    name: "token generate --count 0",
    args: ["token", "generate", "--count", "0"],
    code: 2,
    names: "--count",
  },
  {
    name: "token generate --count huge",
    args: ["token", "generate", "--count", "99999999999"],
    code: 2,
    names: "--count",
  },
  {
    name: "token generate --count not a number",
    args: ["token", "generate", "--count", "1e3"],
    code: 2,
    names: "--count",
  },
  {
    name: "token generate extra argument",
    args: ["token", "generate", "x"],
    code: 2,
    err: /unexpected argument "x"/,
  },
  { name: "token auth-file extra argument", args: ["token", "auth-file", "x", "y", "z"], code: 2 },
  // token create
  {
    name: "token create malformed token",
    args: ["token", "create", "ABCDEF.S3CR3TT0K3NV4LU3", ...NOW],
    code: 2,
    err: /token/,
  },
  {
    name: "token create bad --ttl",
    args: ["token", "create", "--ttl", "1x", ...NOW],
    code: 2,
    names: "1x",
  },
  {
    name: "token create negative --ttl as a separate word",
    args: ["token", "create", "--ttl", "-1h", ...NOW],
    code: 2,
    err: /flag --ttl value starts with "-": write --ttl=<value>/,
  },
  {
    name: "token create negative --ttl",
    args: ["token", "create", "--ttl=-1h", ...NOW],
    code: 2,
    names: "-1h",
  },
  {
    name: "token create --ttl with --expires",
    args: ["token", "create", "--ttl", "1h", "--expires", FIXTURE_NOW, ...NOW],
    code: 2,
  },
  {
    name: "token create bad --expires",
    args: ["token", "create", "--expires", "tomorrow", ...NOW],
    code: 2,
    names: "--expires",
  },
  {
    name: "token create --count over the bound",
    args: ["token", "create", "--count", "100001", ...NOW],
    code: 2,
    names: "--count",
  },
  {
    name: "token create bad --groups",
    args: ["token", "create", "--groups", "admins", ...NOW],
    code: 2,
    names: "admins",
  },
  {
    name: "token create bad --usages",
    args: ["token", "create", "--usages", "root", ...NOW],
    code: 2,
    names: "root",
  },
  {
    name: "token create bad -o",
    args: ["token", "create", "-o", "xml", ...NOW],
    code: 2,
    names: "xml",
  },
  {
    name: "token create unknown flag",
    args: ["token", "create", "--tll", "1h"],
    code: 2,
    names: "--tll",
  },
  // token list
  {
    name: "token list missing file",
    args: ["token", "list", "nope.yaml", ...NOW],
    code: 1,
    err: /nope\.yaml: no such file/,
  },
  {
    name: "token list invalid YAML",
    args: ["token", "list", "bad.yaml", ...NOW],
    setup: (d) => write(d, "bad.yaml", "a: [\n"),
    code: 1,
    names: "bad.yaml",
  },
  {
    name: "token list bad file inside a directory",
    args: ["token", "list", "dir", ...NOW],
    setup: (d) => {
      fs.mkdirSync(path.join(d, "dir"));
      write(d, "dir/a.yaml", T["secrets.yaml"]!);
      write(d, "dir/b.yaml", "kind: Secret\n\tbad: [\n");
    },
    code: 1,
    names: "b.yaml",
  },
  {
    name: "token list JSON with trailing garbage",
    args: ["token", "list", "s.json", ...NOW],
    setup: (d) => write(d, "s.json", '{"kind":"Secret"} }}'),
    code: 1,
    names: "s.json",
  },
  {
    name: "token list YAML duplicate keys",
    args: ["token", "list", "dup.yaml", ...NOW],
    setup: (d) => write(d, "dup.yaml", "kind: Secret\nkind: Secret\n"),
    code: 1,
    names: "dup.yaml",
  },
  {
    name: "token list non-object document",
    args: ["token", "list", "s.yaml", ...NOW],
    setup: (d) => write(d, "s.yaml", "- a\n- b\n"),
    code: 1,
    names: "s.yaml",
  },
  {
    name: "token list bad base64 in data",
    args: ["token", "list", "s.yaml", ...NOW],
    setup: (d) => write(d, "s.yaml", T["secrets.yaml"]!.replace("YWJjZGVm", "YWJj!GVm")),
    code: 1,
    names: "s.yaml",
  },
  {
    name: "token list bad -o",
    args: ["token", "list", "secrets.yaml", "-o", "table"],
    code: 2,
    names: "table",
  },
  // token check
  {
    name: "token check without --secrets",
    args: ["token", "check", FIXTURE_TOKEN],
    code: 2,
    names: "--secrets",
  },
  {
    name: "token check wrong secret",
    args: ["token", "check", "abcdef.0000000000000000", "--secrets", "secrets.yaml", ...NOW],
    code: 3,
  },
  {
    name: "token check Secret name and token-id disagree",
    args: ["token", "check", FIXTURE_TOKEN, "--secrets", "s.yaml", ...NOW],
    setup: (d) => write(d, "s.yaml", secretYaml("bootstrap-token-abcdef", "zzzzzz")),
    code: 3,
  },
  {
    name: "token check duplicate token IDs in one input",
    args: ["token", "check", FIXTURE_TOKEN, "--secrets", "s.yaml", ...NOW],
    setup: (d) =>
      write(
        d,
        "s.yaml",
        secretYaml("bootstrap-token-abcdef", "abcdef") + "---\n" +
          secretYaml("bootstrap-token-abcdef", "abcdef", "00000000000000aa"),
      ),
    code: 3,
  },
  {
    name: "token check malformed token",
    args: ["token", "check", "not-a-token", "--secrets", "secrets.yaml", ...NOW],
    code: 3,
  },
  {
    name: "token check secrets is a directory of nothing",
    args: ["token", "check", FIXTURE_TOKEN, "--secrets", "empty", ...NOW],
    setup: (d) => fs.mkdirSync(path.join(d, "empty")),
    code: 3,
  },
  // ca create
  {
    name: "ca create --out-dir is a file",
    args: ["ca", "create", "--out-dir", "ca.crt", ...NOW],
    code: 1,
    names: "ca.crt",
  },
  {
    name: "ca create existing files without --force",
    args: ["ca", "create", "--out-dir", ".", ...NOW],
    code: 1,
    err: /already exists/,
  },
  {
    name: "ca create bad --key-type",
    args: ["ca", "create", "--out-dir", "new", "--key-type", "rsa-1024"],
    code: 2,
    names: "rsa-1024",
  },
  {
    name: "ca create negative --validity",
    args: ["ca", "create", "--out-dir", "new", "--validity", "-1h"],
    code: 2,
    names: "validity",
  },
  { name: "ca create without --out-dir", args: ["ca", "create"], code: 2, names: "--out-dir" },
  // ca hash / pin-check
  {
    name: "ca hash wrong PEM type",
    args: ["ca", "hash", "ca.key"],
    code: 1,
    err: /ca\.key: no certificate found/,
  },
  {
    // Go's pem.Decode skips a block without an END line: only the whole one is read.
    name: "ca hash truncated PEM after a valid one hashes the valid one, as Go reads it",
    args: ["ca", "hash", "c.pem"],
    setup: (d) => write(d, "c.pem", T["ca.crt"]! + T["ca.crt"]!.slice(0, 100)),
    code: 0,
  },
  {
    name: "ca hash bad base64 in PEM",
    args: ["ca", "hash", "c.pem"],
    setup: (d) => write(d, "c.pem", T["ca.crt"]!.replace(/\n([A-Za-z0-9+/]{10})/, "\n!$1")),
    code: 1,
    names: "c.pem",
  },
  {
    name: "ca hash certificate with flipped DER",
    args: ["ca", "hash", "c.pem"],
    setup: (d) => write(d, "c.pem", T["ca.crt"]!.replace(/\nMII/, "\nMIJ")),
    code: 1,
    names: "c.pem",
  },
  {
    name: "ca hash a directory",
    args: ["ca", "hash", "emptydir"],
    setup: (d) => fs.mkdirSync(path.join(d, "emptydir")),
    code: 1,
    names: "emptydir",
  },
  {
    name: "ca hash missing file",
    args: ["ca", "hash", "nope.crt"],
    code: 1,
    err: /nope\.crt: no such file/,
  },
  {
    name: "ca hash empty file",
    args: ["ca", "hash", "empty.crt"],
    setup: (d) => write(d, "empty.crt", ""),
    code: 1,
    names: "empty.crt",
  },
  {
    name: "ca hash binary garbage",
    args: ["ca", "hash", "g.crt"],
    setup: (d) => write(d, "g.crt", new Uint8Array([0x30, 0x82, 0xff, 0xff, 0, 1, 2])),
    code: 1,
    names: "g.crt",
  },
  {
    name: "ca hash dangling symlink",
    args: ["ca", "hash", "link.crt"],
    setup: (d) => fs.symlinkSync("gone.crt", path.join(d, "link.crt")),
    code: 1,
    names: "link.crt",
  },
  {
    name: "ca hash unreadable file (chmod 000)",
    args: ["ca", "hash", "locked.crt"],
    setup: (d) => {
      write(d, "locked.crt", T["ca.crt"]!);
      fs.chmodSync(path.join(d, "locked.crt"), 0);
    },
    code: 1,
    err: /locked\.crt: permission denied/,
    skip: isRoot ? "running as root: chmod 000 does not stop reads" : undefined,
  },
  // As root (chmod 000 cannot stop root), a file no one can read: /proc/self/mem gives EIO.
  {
    name: "ca hash unreadable file (/proc/self/mem, EIO)",
    args: ["ca", "hash", "/proc/self/mem"],
    code: 1,
    names: "/proc/self/mem",
  },
  {
    name: "token list unreadable file (/proc/self/mem, EIO)",
    args: ["token", "list", "/proc/self/mem"],
    code: 1,
    names: "/proc/self/mem",
  },
  {
    name: "ca pin-check wrong pin",
    args: ["ca", "pin-check", "ca.crt", "--ca-cert-hash", "sha256:" + "0".repeat(64)],
    code: 3,
  },
  {
    name: "ca pin-check malformed pin",
    args: ["ca", "pin-check", "ca.crt", "--ca-cert-hash", "md5:abc"],
    code: 2,
    names: "md5",
  },
  // cluster-info create / sign / verify
  {
    name: "cluster-info create http server",
    args: [
      "cluster-info",
      "create",
      "--server",
      "http://10.0.0.1:6443",
      "--ca",
      "ca.crt",
      "--token",
      FIXTURE_TOKEN,
    ],
    code: 2,
    names: "--server",
  },
  {
    name: "cluster-info create --ca is a key",
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "ca.key",
      "--token",
      FIXTURE_TOKEN,
    ],
    code: 1,
    names: "ca.key",
  },
  {
    name: "cluster-info create missing --ca file",
    args: ["cluster-info", "create", "--server", FIXTURE_SERVER, "--ca", "nope.crt"],
    code: 1,
    names: "nope.crt",
  },
  {
    name: "cluster-info create malformed --token",
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "ca.crt",
      "--token",
      "abcdef.SECRET",
    ],
    code: 2,
    names: "--token",
  },
  {
    name: "cluster-info create one token ID with two secrets",
    args: [
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "ca.crt",
      "--token",
      FIXTURE_TOKEN,
      "--token",
      "abcdef.00000000000000aa",
    ],
    code: 2,
    err: /token ID "abcdef" given twice with different secrets/,
  },
  {
    name: "cluster-info sign input is a Secret",
    args: ["cluster-info", "sign", "secrets.yaml", "--secrets", "secrets.yaml", ...NOW],
    code: 1,
    names: "secrets.yaml",
  },
  {
    name: "cluster-info sign secrets not YAML",
    args: ["cluster-info", "sign", "cluster-info.yaml", "--secrets", "ca.crt", ...NOW],
    code: 1,
    names: "ca.crt",
  },
  {
    name: "cluster-info verify wrong token secret",
    args: [
      "cluster-info",
      "verify",
      "cluster-info.yaml",
      "--token",
      "abcdef.0000000000000000",
      "--ca-cert-hash",
      F.pin,
    ],
    code: 3,
  },
  {
    name: "cluster-info verify tampered kubeconfig",
    args: ["cluster-info", "verify", "ci.yaml", "--token", FIXTURE_TOKEN, "--ca-cert-hash", F.pin],
    setup: (d) =>
      write(
        d,
        "ci.yaml",
        T["cluster-info.yaml"]!.replace("https://10.0.0.1:6443", "https://10.6.6.6:6443"),
      ),
    code: 3,
  },
  {
    name: "cluster-info verify other CA pin",
    args: [
      "cluster-info",
      "verify",
      "cluster-info.yaml",
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      "sha256:" + "a".repeat(64),
    ],
    code: 3,
  },
  {
    name: "cluster-info verify without --token",
    args: ["cluster-info", "verify", "cluster-info.yaml"],
    code: 2,
    names: "--token",
  },
  {
    name: "cluster-info verify a kubeconfig instead",
    args: [
      "cluster-info",
      "verify",
      "kubeconfig",
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
    code: 1,
    names: "kubeconfig",
  },
  // kubeconfig bootstrap / join-command / rbac / init
  {
    name: "kubeconfig bootstrap --ca wrong PEM type",
    args: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "node.csr",
      "--token",
      FIXTURE_TOKEN,
    ],
    code: 1,
    names: "node.csr",
  },
  {
    name: "kubeconfig bootstrap malformed token",
    args: ["kubeconfig", "bootstrap", "--server", FIXTURE_SERVER, "--ca", "ca.crt", "--token", "x"],
    code: 2,
    names: "--token",
  },
  {
    name: "kubeconfig bootstrap --out exists",
    args: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "ca.crt",
      "--token",
      FIXTURE_TOKEN,
      "--out",
      "kubeconfig",
    ],
    code: 1,
    err: /kubeconfig: already exists/,
  },
  {
    name: "kubeconfig bootstrap --out is a directory",
    args: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "ca.crt",
      "--token",
      FIXTURE_TOKEN,
      "--out",
      "expired",
      "--force",
    ],
    code: 1,
    names: "expired",
  },
  {
    name: "join-command short --certificate-key",
    args: [
      "join-command",
      "--server",
      "10.0.0.1:6443",
      "--token",
      FIXTURE_TOKEN,
      "--ca",
      "ca.crt",
      "--control-plane",
      "--certificate-key",
      "abc",
    ],
    code: 2,
    names: "--certificate-key",
  },
  {
    name: "join-command --ca is a CSR",
    args: [
      "join-command",
      "--server",
      "10.0.0.1:6443",
      "--token",
      FIXTURE_TOKEN,
      "--ca",
      "node.csr",
    ],
    code: 1,
    names: "node.csr",
  },
  {
    name: "join-command bad --server",
    args: ["join-command", "--server", "10.0.0.1", "--token", FIXTURE_TOKEN, "--ca", "ca.crt"],
    code: 2,
    names: "--server",
  },
  {
    name: "rbac bad --groups",
    args: ["rbac", "--groups", "system:masters"],
    code: 2,
    names: "system:masters",
  },
  {
    name: "init missing --ca file",
    args: [
      "init",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "nope.crt",
      "--token",
      FIXTURE_TOKEN,
      ...NOW,
    ],
    code: 1,
    names: "nope.crt",
  },
  {
    name: "init bad --ttl",
    args: ["init", "--server", FIXTURE_SERVER, "--ca", "ca.crt", "--ttl", "forever", ...NOW],
    code: 2,
    names: "forever",
  },
  {
    name: "init --out-dir with existing files, no --force",
    args: [
      "init",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      "ca.crt",
      "--token",
      FIXTURE_TOKEN,
      "--out-dir",
      "out",
      ...NOW,
    ],
    setup: (d) => {
      fs.mkdirSync(path.join(d, "out"), { mode: 0o700 });
      write(d, "out/bootstrap-kubelet.conf", "old\n");
    },
    code: 1,
    err: /already exists/,
  },
  // csr create / inspect / sign
  {
    name: "csr create invalid node name",
    args: ["csr", "create", "--node", "Bad_Name!", "--out-dir", "new", ...NOW],
    code: 2,
    names: "Bad_Name!",
  },
  {
    name: "csr create bad --key-type",
    args: ["csr", "create", "--node", "w1", "--out-dir", "new", "--key-type", "dsa"],
    code: 2,
    names: "dsa",
  },
  {
    name: "csr create --expiration-seconds too small",
    args: ["csr", "create", "--node", "w1", "--out-dir", "new", "--expiration-seconds", "10"],
    code: 2,
    names: "--expiration-seconds",
  },
  {
    name: "csr create --out-dir is a file",
    args: ["csr", "create", "--node", "w1", "--out-dir", "ca.crt", ...NOW],
    code: 1,
    names: "ca.crt",
  },
  {
    name: "csr inspect a certificate",
    args: ["csr", "inspect", "node.crt"],
    code: 1,
    names: "node.crt",
  },
  {
    name: "csr inspect truncated CSR",
    args: ["csr", "inspect", "t.csr"],
    setup: (d) => write(d, "t.csr", T["node.csr"]!.slice(0, 200)),
    code: 1,
    names: "t.csr",
  },
  {
    name: "csr inspect object with bad base64",
    args: ["csr", "inspect", "o.yaml"],
    setup: (d) => write(d, "o.yaml", T["csr.yaml"]!.replace("request: LS0t", "request: %%LS0t")),
    code: 1,
    names: "o.yaml",
  },
  {
    name: "csr sign key does not match CA certificate",
    args: ["csr", "sign", "node.csr", "--ca", "ca.crt", "--ca-key", "other/ca.key", ...NOW],
    code: 1,
    names: "other/ca.key",
  },
  {
    name: "csr sign encrypted CA key (PKCS#8)",
    args: ["csr", "sign", "node.csr", "--ca", "ca.crt", "--ca-key", "ca-enc.key", ...NOW],
    code: 1,
    err: /ca-enc\.key: encrypted/,
  },
  {
    name: "csr sign encrypted CA key (legacy PEM)",
    args: ["csr", "sign", "node.csr", "--ca", "ca.crt", "--ca-key", "ca-legacy-enc.key", ...NOW],
    code: 1,
    err: /ca-legacy-enc\.key: encrypted/,
  },
  {
    name: "csr sign expired CA",
    args: [
      "csr",
      "sign",
      "node.csr",
      "--ca",
      "expired/ca.crt",
      "--ca-key",
      "expired/ca.key",
      ...NOW,
    ],
    code: 3,
    err: /signer has expired/,
  },
  {
    name: "csr sign --ca-key is a certificate",
    args: ["csr", "sign", "node.csr", "--ca", "ca.crt", "--ca-key", "ca.crt", ...NOW],
    code: 1,
    names: "ca.crt",
  },
  {
    name: "csr sign bad --duration",
    args: [
      "csr",
      "sign",
      "node.csr",
      "--ca",
      "ca.crt",
      "--ca-key",
      "ca.key",
      "--duration",
      "1y",
      ...NOW,
    ],
    code: 2,
    names: "1y",
  },
  {
    name: "csr sign --out exists",
    args: [
      "csr",
      "sign",
      "node.csr",
      "--ca",
      "ca.crt",
      "--ca-key",
      "ca.key",
      "--out",
      "node.crt",
      ...NOW,
    ],
    code: 1,
    err: /node\.crt: already exists/,
  },
  {
    name: "csr sign CA key is a directory",
    args: ["csr", "sign", "node.csr", "--ca", "ca.crt", "--ca-key", "expired", ...NOW],
    code: 1,
    names: "expired",
  },
  // cert verify / inspect
  {
    name: "cert verify against another CA",
    args: ["cert", "verify", "node.crt", "--ca", "other/ca.crt", ...NOW],
    code: 3,
  },
  {
    name: "cert verify key does not match",
    args: ["cert", "verify", "node.crt", "--ca", "ca.crt", "--key", "ca.key", ...NOW],
    code: 3,
  },
  {
    name: "cert verify bad --at",
    args: ["cert", "verify", "node.crt", "--ca", "ca.crt", "--at", "now"],
    code: 2,
    names: "--at",
  },
  {
    name: "cert verify expired CA",
    args: ["cert", "verify", "expired/ca.crt", "--ca", "expired/ca.crt", ...NOW],
    code: 3,
  },
  {
    name: "cert verify expired intermediate (openssl: error 10)",
    args: ["cert", "verify", "chain/bundle.crt", "--ca", "chain/root.crt", "--now", IN_60_DAYS],
    code: 3,
    err: /chain: x509: certificate has expired or is not yet valid: current time \S+ is after /,
  },
  {
    name: "cert inspect a private key",
    args: ["cert", "inspect", "node.key"],
    code: 1,
    names: "node.key",
  },
  {
    name: "cert inspect missing file",
    args: ["cert", "inspect", "nope.pem"],
    code: 1,
    names: "nope.pem",
  },
  {
    name: "global --now malformed",
    args: ["token", "list", "secrets.yaml", "--now", "yesterday"],
    code: 2,
    names: "--now",
  },
  { name: "unknown command", args: ["tokens", "list"], code: 2, names: "tokens" },
  // stdin ('-')
  {
    name: "token list garbage on stdin",
    args: ["token", "list", "-", ...NOW],
    stdin: "\u0000\u00ff: [",
    code: 1,
    names: "stdin",
  },
  {
    name: "token check token and secrets both stdin",
    args: ["token", "check", "-", "--secrets", "-"],
    stdin: FIXTURE_TOKEN,
    code: 2,
    names: "'-'",
  },
  {
    name: "token check empty token on stdin",
    args: ["token", "check", "-", "--secrets", "secrets.yaml", ...NOW],
    stdin: "",
    code: [1, 2, 3],
  },
  {
    name: "csr inspect a certificate on stdin",
    args: ["csr", "inspect", "-"],
    stdin: T["node.crt"]!,
    code: 1,
    names: "stdin",
  },
  {
    name: "ca hash a key on stdin",
    args: ["ca", "hash", "-"],
    stdin: T["ca.key"]!,
    code: 1,
    err: /stdin: no certificate found/,
  },
  // Valid inputs that look odd: they must work.
  {
    name: "token check CRLF token on stdin works",
    args: ["token", "check", "-", "--secrets", "secrets.yaml", ...NOW],
    stdin: FIXTURE_TOKEN + "\r\n",
    code: 0,
  },
  {
    name: "token check BOM token on stdin works",
    args: ["token", "check", "-", "--secrets", "secrets.yaml", ...NOW],
    stdin: "\uFEFF" + FIXTURE_TOKEN + "\n",
    code: 0,
  },
  {
    name: "ca hash BOM + CRLF kubeconfig works",
    args: ["ca", "hash", "k"],
    setup: (d) => write(d, "k", "\uFEFF" + crlf(T["kubeconfig"]!)),
    code: 0,
  },
  {
    name: "csr inspect CRLF CSR object works",
    args: ["csr", "inspect", "o.yaml", ...NOW],
    setup: (d) => write(d, "o.yaml", crlf(T["csr.yaml"]!)),
    code: 0,
  },
  {
    name: "cluster-info sign BOM + CRLF inputs work (signatures unchanged)",
    args: ["cluster-info", "sign", "ci.yaml", "--secrets", "s.yaml", ...NOW],
    setup: (d) => {
      write(d, "ci.yaml", "\uFEFF" + crlf(T["cluster-info.yaml"]!));
      write(d, "s.yaml", "\uFEFF" + crlf(T["secrets.yaml"]!));
    },
    code: 0,
  },
  {
    name: "kubeconfig bootstrap --cluster-info BOM + CRLF works",
    args: [
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      "ci.yaml",
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
    setup: (d) => write(d, "ci.yaml", "\uFEFF" + crlf(T["cluster-info.yaml"]!)),
    code: 0,
  },
  {
    // Go's pem.Decode needs BEGIN at the start of a line: a BOM hides the block (as in openssl).
    name: "cert verify BOM before a PEM key is refused, as Go reads PEM",
    args: ["cert", "verify", "node.crt", "--ca", "ca.crt", "--key", "k.key", ...NOW],
    setup: (d) => write(d, "k.key", "\uFEFF" + crlf(T["node.key"]!)),
    code: 1,
    err: /k\.key: no private key found/,
  },
  {
    name: "ca hash CRLF line endings work",
    args: ["ca", "hash", "c.crt"],
    setup: (d) => write(d, "c.crt", crlf(T["ca.crt"]!)),
    code: 0,
  },
  {
    name: "ca hash BOM before a PEM certificate is refused, as Go reads PEM",
    args: ["ca", "hash", "c.crt"],
    setup: (d) => write(d, "c.crt", "\uFEFF" + T["ca.crt"]!),
    code: 1,
    err: /c\.crt: no certificate found/,
  },
  {
    name: "ca hash text after a valid PEM works",
    args: ["ca", "hash", "c.crt"],
    setup: (d) => write(d, "c.crt", T["ca.crt"]! + "subject=CN=kubernetes\n"),
    code: 0,
  },
  {
    name: "token list CRLF works",
    args: ["token", "list", "s.yaml", ...NOW],
    setup: (d) => write(d, "s.yaml", crlf(T["secrets.yaml"]!)),
    code: 0,
  },
  {
    name: "token list BOM works",
    args: ["token", "list", "s.yaml", ...NOW],
    setup: (d) => write(d, "s.yaml", "\uFEFF" + T["secrets.yaml"]!),
    code: 0,
  },
  {
    name: "csr sign CRLF CSR and key work",
    args: ["csr", "sign", "c.csr", "--ca", "ca.crt", "--ca-key", "k.key", ...NOW],
    setup: (d) => {
      write(d, "c.csr", crlf(T["node.csr"]!));
      write(d, "k.key", crlf(T["ca.key"]!));
    },
    code: 0,
  },
  {
    name: "cluster-info verify CRLF + BOM works",
    args: ["cluster-info", "verify", "ci.yaml", "--token", FIXTURE_TOKEN, "--ca-cert-hash", F.pin],
    setup: (d) => write(d, "ci.yaml", "\uFEFF" + crlf(T["cluster-info.yaml"]!)),
    code: 0,
  },
  {
    name: "cert verify BOM before a PEM certificate is refused, as Go reads PEM",
    args: ["cert", "verify", "c.crt", "--ca", "ca.crt", "--node", "worker-1", ...NOW],
    setup: (d) => write(d, "c.crt", "\uFEFF" + T["node.crt"]!),
    code: 1,
    err: /c\.crt: no certificate found/,
  },
];

/** path -> mode:size:sha256 for everything under `dir`. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (e.isDirectory()) {
        out.set(rel + "/", `dir:${(st.mode & 0o777).toString(8)}`);
        walk(p);
      } else if (e.isSymbolicLink()) {
        out.set(rel, `link:${fs.readlinkSync(p)}`);
      } else {
        let hash = "?";
        try {
          hash = createHash("sha256").update(fs.readFileSync(p)).digest("hex");
        } catch { /* unreadable: size and mode still count */ }
        out.set(rel, `${(st.mode & 0o777).toString(8)}:${st.size}:${hash}`);
      }
    }
  };
  walk(dir);
  return out;
}

function diff(a: Map<string, string>, b: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [k, v] of b) {
    if (a.get(k) !== v) changes.push(a.has(k) ? `changed ${k}` : `created ${k}`);
  }
  for (const k of a.keys()) if (!b.has(k)) changes.push(`removed ${k}`);
  return changes;
}

async function runCase(c: Case, index: number): Promise<string | undefined> {
  const dir = path.join(root.dir, `case-${index}`);
  fs.cpSync(FX, dir, { recursive: true });
  c.setup?.(dir);
  const before = snapshot(dir);
  const r = await runCli(c.args, {
    cwd: dir,
    ...(c.stdin !== undefined ? { stdin: c.stdin } : {}),
  });
  const after = snapshot(dir);
  const problems: string[] = [];
  const codes = Array.isArray(c.code) ? c.code : [c.code];
  if (!codes.includes(r.code)) problems.push(`exit ${r.code}, want ${codes.join(" or ")}`);
  const changes = diff(before, after);
  if (changes.length) problems.push(`files touched: ${changes.join(", ")}`);
  if (r.stderr.includes(FIXTURE_SECRET)) problems.push("token secret on stderr");
  if (codes.includes(0)) {
    if (r.stdout === "") problems.push("no output");
    if (/error/.test(r.stderr)) problems.push(`error on stderr: ${r.stderr}`);
  } else {
    // A check that says no (3) may print its report; other failures print nothing.
    if (r.code !== 3 && r.stdout !== "") {
      problems.push(`stdout not empty: ${r.stdout.slice(0, 100)}`);
    }
    if (r.code !== 3) {
      const lines = r.stderr.split("\n");
      const last = c.progress ? lines.slice(-2) : lines;
      if (last.length !== 2 || last[1] !== "") problems.push(`stderr is not one line`);
      if (!/^error: \S/.test(last[0] ?? "")) {
        problems.push(`stderr does not end in one "error: " line`);
      }
      if (/internal error|TypeError|RangeError|at file:/.test(r.stderr)) {
        problems.push("internal error");
      }
    } else if (r.stderr.trim() === "") {
      problems.push("no reason on stderr");
    }
    if (c.err && !c.err.test(r.stderr)) problems.push(`stderr does not match ${c.err}`);
    if (c.names && !r.stderr.includes(c.names)) problems.push(`stderr does not name ${c.names}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return problems.length
    ? `${c.name}: ${problems.join("; ")}\n    stderr: ${r.stderr.trim().slice(0, 300)}`
    : undefined;
}

Deno.test(`CLI bad inputs: ${CASES.length} cases exit with one named error line, no output, no files touched`, async () => {
  assert.ok(CASES.length >= 60);
  const failures: string[] = [];
  const skipped: string[] = [];
  const todo = CASES.map((c, i) => [c, i] as const).filter(([c]) => {
    if (c.skip) skipped.push(`${c.name} (${c.skip})`);
    return !c.skip;
  });
  for (let i = 0; i < todo.length; i += BATCH) {
    const results = await Promise.all(todo.slice(i, i + BATCH).map(([c, n]) => runCase(c, n)));
    for (const r of results) if (r) failures.push(r);
  }
  if (skipped.length) process.stderr.write(`skipped: ${skipped.join("; ")}\n`);
  assert.deepEqual(failures, [], `\n${failures.join("\n")}`);
});
