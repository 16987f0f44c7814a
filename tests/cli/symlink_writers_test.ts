/**
 * Writers never follow a symbolic link they did not make (issue 19, class 7):
 * every command that writes files is run once to learn what it writes, then
 * again (with --force) where one of those files, or a directory below the
 * out dir, is a link to somewhere else. It must refuse with one line, exit 1,
 * and leave the link's target untouched. The out dir the user names may
 * itself be a link (docs/hardening.md): the files land in its target.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, runInProcess, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { generateX25519Identity, identityToRecipient } from "age-encryption";
import { refuseLinks } from "../../commands/_io.ts";
import { COMMANDS } from "../../commands/_table.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];
const TOKEN = "abcdef.0123456789abcdef";
const CERT_KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";
const PKI = repoPath("tests/fixtures/upload_certs/pki");

const root = tempDir("joinkit-symlinks-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;
const fresh = () => path.join(root.dir, `t${n++}`);

const ca = opensslCa(root.dir, "ca");

/** Shared inputs, made once with joinkit itself (each checked to succeed). */
async function inputs() {
  const dir = fresh();
  fs.mkdirSync(dir);
  const up = await runInProcess([
    "upload-certs",
    "--pki-dir",
    PKI,
    "--certificate-key",
    CERT_KEY,
    "--token",
    TOKEN,
    ...NOW,
  ]);
  assert.equal(up.code, 0, up.stderr);
  const secret = path.join(dir, "certs.yaml");
  fs.writeFileSync(secret, up.stdout);
  const jc = await runInProcess([
    "join-config",
    "--server",
    "10.0.0.1:6443",
    "--token",
    TOKEN,
    "--ca",
    ca.crt,
  ]);
  assert.equal(jc.code, 0, jc.stderr);
  const join = path.join(dir, "join.yaml");
  fs.writeFileSync(join, jc.stdout);
  const cc = await runInProcess(["csr", "create", "--node", "w1", "--out-dir", dir]);
  assert.equal(cc.code, 0, cc.stderr);
  const csrObj = path.join(dir, "csr.yaml");
  fs.writeFileSync(csrObj, cc.stdout);
  // External CA: the CSRs of certs generate-csr (ECDSA: quick) and CAs valid at NOW.
  const csrDir = path.join(dir, "csrs");
  const gc = await runInProcess([
    "certs",
    "generate-csr",
    ...["--node-name", "cp1", "--apiserver-advertise-address", "10.0.0.1"],
    ...["--encryption-algorithm", "ECDSA-P256", "--out-dir", csrDir, ...NOW],
  ]);
  assert.equal(gc.code, 0, gc.stderr);
  const cas = path.join(dir, "cas");
  const cg = await runInProcess([
    "certs",
    "generate",
    ...["--node-name", "cp1", "--apiserver-advertise-address", "10.0.0.1"],
    ...["--encryption-algorithm", "ECDSA-P256", "--out-dir", cas, ...NOW],
  ]);
  assert.equal(cg.code, 0, cg.stderr);
  return { secret, join, csrPem: path.join(dir, "kubelet-client.csr"), csrObj, csrDir, cas };
}
const IN = await inputs();
const AGE_RECIPIENT = await identityToRecipient(await generateX25519Identity());

interface Writer {
  command: string;
  /** What the test names it by, when one command has several rows. */
  label?: string;
  /** The arguments that write into `dir` (an out dir, or `dir/<file>` for --out). */
  args: (dir: string) => string[];
  /** Exit codes of a successful write (csr approve writes and says 3 for a refusal). */
  ok?: number[];
  /** A directory below the out dir that the command writes into. */
  subdir?: string;
  /** The command's own out dir flag (the user's directory may be a link). */
  outDir?: boolean;
  /** false: not run with each written file a link (see its row). */
  fileLinks?: boolean;
  /** Files it keeps when they are there (read, never written): not tried as links. */
  keeps?: string[];
}

const SERVER = ["--server", "https://10.0.0.1:6443"];
/** The three CA flags of sign-csr (with keys) or assemble (certificates only) from a certs generate tree. */
const CA_FLAGS = (cas: string, keys: boolean) =>
  (["ca", "front-proxy-ca", "etcd-ca"] as const).flatMap((n) => {
    const base = path.join(cas, "pki", n === "etcd-ca" ? "etcd/ca" : n);
    return [`--${n}`, `${base}.crt`, ...(keys ? [`--${n}-key`, `${base}.key`] : [])];
  });
const WRITERS: Writer[] = [
  { command: "ca create", args: (d) => ["ca", "create", "--out-dir", d], outDir: true },
  {
    command: "csr create",
    args: (d) => ["csr", "create", "--node", "w1", "--out-dir", d],
    outDir: true,
  },
  {
    command: "init",
    args: (d) => ["init", ...SERVER, "--ca", ca.crt, "--out-dir", d, ...NOW],
    outDir: true,
  },
  {
    // With a protected Secret, init writes a kustomize directory: credentials under private/.
    command: "init",
    label: "init --age-recipient",
    args: (d) => [
      "init",
      ...SERVER,
      "--ca",
      ca.crt,
      "--age-recipient",
      AGE_RECIPIENT,
      "--token",
      TOKEN,
      "--out-dir",
      d,
      ...NOW,
    ],
    subdir: "private",
    outDir: true,
  },
  {
    command: "token create",
    args: (d) => ["token", "create", TOKEN, "--out-dir", d, ...NOW],
    outDir: true,
  },
  {
    command: "kubeconfig node",
    args: (d) => [
      "kubeconfig",
      "node",
      "--node",
      "w1",
      "--ca",
      ca.crt,
      "--ca-key",
      ca.key,
      ...SERVER,
      "--out-dir",
      d,
      ...NOW,
    ],
    subdir: "w1",
    outDir: true,
  },
  {
    command: "download-certs",
    args: (d) => ["download-certs", IN.secret, "--certificate-key", CERT_KEY, "--out-dir", d],
    subdir: "etcd",
    outDir: true,
  },
  {
    command: "certs generate",
    args: (d) => [
      "certs",
      "generate",
      "--node-name",
      "cp1",
      "--apiserver-advertise-address",
      "10.0.0.1",
      "--encryption-algorithm",
      "ECDSA-P256",
      "--out-dir",
      d,
      ...NOW,
    ],
    subdir: "pki/etcd",
    outDir: true,
    // It reads the files already there (kept when valid): a linked file is read, not written.
    fileLinks: false,
  },
  {
    command: "certs generate-csr",
    args: (d) => [
      "certs",
      "generate-csr",
      ...["--node-name", "cp1", "--apiserver-advertise-address", "10.0.0.1"],
      ...["--encryption-algorithm", "ECDSA-P256", "--out-dir", d, ...NOW],
    ],
    subdir: "pki/etcd",
    outDir: true,
    // An existing sa.key is kept (read and checked, never replaced, even with --force).
    keeps: ["pki/sa.key"],
  },
  {
    command: "certs sign-csr",
    args: (d) => [
      "certs",
      "sign-csr",
      IN.csrDir,
      ...CA_FLAGS(IN.cas, true),
      "--out-dir",
      d,
      ...NOW,
    ],
    subdir: "pki/etcd",
    outDir: true,
  },
  {
    command: "upload-certs",
    args: (d) => [
      "upload-certs",
      "--pki-dir",
      PKI,
      "--certificate-key",
      CERT_KEY,
      "--token",
      TOKEN,
      "--out",
      path.join(d, "certs.yaml"),
      ...NOW,
    ],
  },
  {
    command: "upload-certs",
    // A generated certificate key goes to private/ (0600).
    label: "upload-certs --out-dir --age-recipient",
    args: (d) => [
      "upload-certs",
      "--pki-dir",
      PKI,
      "--token",
      TOKEN,
      "--age-recipient",
      AGE_RECIPIENT,
      "--out-dir",
      d,
      ...NOW,
    ],
    subdir: "private",
    outDir: true,
  },
  {
    command: "discovery-file",
    args: (d) => [
      "discovery-file",
      ...SERVER,
      "--ca",
      ca.crt,
      "--token",
      TOKEN,
      "--out",
      path.join(d, "discovery.conf"),
    ],
  },
  {
    command: "node-payload",
    args: (d) => ["node-payload", "--config", IN.join, "--node", "w1", "--out-dir", d],
    outDir: true,
  },
  {
    command: "join-config",
    args: (d) => [
      "join-config",
      "--server",
      "10.0.0.1:6443",
      "--token",
      TOKEN,
      "--ca",
      ca.crt,
      "--out",
      path.join(d, "join.yaml"),
    ],
  },
  {
    command: "kubeconfig bootstrap",
    args: (d) => [
      "kubeconfig",
      "bootstrap",
      ...SERVER,
      "--ca",
      ca.crt,
      "--token",
      TOKEN,
      "--out",
      path.join(d, "bootstrap.conf"),
    ],
  },
  {
    command: "csr sign",
    args: (
      d,
    ) => [
      "csr",
      "sign",
      IN.csrPem,
      "--ca",
      ca.crt,
      "--ca-key",
      ca.key,
      "--out",
      path.join(d, "c.crt"),
      ...NOW,
    ],
  },
  {
    command: "csr approve",
    args: (d) => ["csr", "approve", IN.csrObj, "--out", path.join(d, "approved.yaml"), ...NOW],
    ok: [0, 3],
  },
];

/** Every path under `dir` (relative), links and directories included, sorted. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      out.push(r);
      if (e.isDirectory()) walk(r);
    }
  };
  walk("");
  return out.sort();
}

/** The files a writer writes (what one run into an empty place left there). */
async function writes(w: Writer): Promise<string[]> {
  const d = fresh();
  fs.mkdirSync(d);
  const r = await runInProcess(w.args(d));
  assert.ok((w.ok ?? [0]).includes(r.code), `${w.command}: ${r.stderr}`);
  return tree(d).filter((p) => fs.lstatSync(path.join(d, p)).isFile());
}

/**
 * Asserts a refusal for a link at `link`: exit 1, the refusal one line and
 * the last (a command's progress lines or other CSRs' verdicts may precede it).
 */
function assertLinkRefused(
  r: { code: number; stderr: string },
  what: string,
  link: string,
): void {
  assert.equal(r.code, 1, `${what}: ${r.stderr}`);
  const lines = r.stderr.split("\n").filter(Boolean);
  assert.equal(
    lines.at(-1),
    `error: ${link}: is a symbolic link; joinkit never writes through a link it did not make (remove it, or name its target)`,
    what,
  );
  assert.equal(lines.filter((l) => l.includes("symbolic link")).length, 1, r.stderr);
}

const HAS = new Set(COMMANDS.map((e) => e.name));

for (const w of WRITERS.filter((w) => w.fileLinks !== false)) {
  Deno.test(`run() ${w.label ?? w.command} refuses to write through a linked file; the target is untouched`, async () => {
    if (!HAS.has(w.command)) return;
    const entry = COMMANDS.find((e) => e.name === w.command)!;
    const { command } = await entry.load();
    // A command that lacks the flag this test needs (token create --out-dir) is not a writer.
    const flag = w.args("x").find((a) => a === "--out-dir" || a === "--out")!.slice(2);
    if (!(flag in command.options)) return;
    const files = await writes(w);
    assert.ok(files.length > 0, w.command);
    for (const rel of files.filter((f) => !w.keeps?.includes(f))) {
      const d = fresh();
      const victim = `${d}-victim`;
      fs.writeFileSync(victim, "victim\n");
      fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
      fs.symlinkSync(victim, path.join(d, rel));
      const r = await runInProcess([...w.args(d), "--force"]);
      assertLinkRefused(r, `${w.command} ${rel}`, path.join(d, rel));
      assert.equal(fs.readFileSync(victim, "utf8"), "victim\n", `${w.command} ${rel}`);
      assert.ok(fs.lstatSync(path.join(d, rel)).isSymbolicLink());
      // Nothing else was written: the refusal comes before any file moves into place.
      const left = tree(d).filter((p) => !fs.lstatSync(path.join(d, p)).isDirectory());
      assert.deepEqual(left, [rel], `${w.command} ${rel}`);
    }
  });
}

for (const w of WRITERS.filter((w) => w.subdir !== undefined)) {
  Deno.test(`CLI ${w.label ?? w.command} refuses a linked subdirectory of --out-dir; the link's target stays empty`, async () => {
    const d = fresh();
    fs.mkdirSync(d);
    const elsewhere = `${d}-elsewhere`;
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.dirname(path.join(d, w.subdir!)), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(d, w.subdir!));
    for (const force of [[], ["--force"]]) {
      const r = await runCli([...w.args(d), ...force]);
      assertLinkRefused(r, w.command, path.join(d, w.subdir!));
      assert.deepEqual(fs.readdirSync(elsewhere), [], w.command);
    }
  });
}

for (const w of WRITERS.filter((w) => w.outDir)) {
  Deno.test(`run() ${w.label ?? w.command}: an --out-dir the user names may be a link (its target gets the files)`, async () => {
    const entry = COMMANDS.find((e) => e.name === w.command)!;
    const { command } = await entry.load();
    if (!("out-dir" in command.options)) return;
    const real = fresh();
    fs.mkdirSync(real);
    const link = `${real}-link`;
    fs.symlinkSync(real, link);
    const r = await runInProcess(w.args(link));
    assert.ok((w.ok ?? [0]).includes(r.code), `${w.command}: ${r.stderr}`);
    assert.ok(fs.readdirSync(real).length > 0, w.command);
  });
}

Deno.test("refuseLinks() checks the file and every directory below the root, not the root", () => {
  const d = fresh();
  fs.mkdirSync(path.join(d, "real", "sub"), { recursive: true });
  fs.mkdirSync(path.join(d, "other"));
  fs.symlinkSync(path.join(d, "real"), path.join(d, "root-link"));
  fs.symlinkSync(path.join(d, "other"), path.join(d, "real", "linked"));
  fs.symlinkSync(path.join(d, "other", "f"), path.join(d, "real", "file-link"));
  const rows: [string, string | undefined, string | undefined][] = [
    // [file, root, the link refused (undefined: accepted)]
    ["real/sub/a.key", "real", undefined],
    ["real/missing/a.key", "real", undefined],
    ["root-link/sub/a.key", "root-link", undefined],
    ["real/linked/a.key", "real", "real/linked"],
    ["real/linked/deeper/a.key", "real", "real/linked"],
    ["root-link/linked/a.key", "root-link", "root-link/linked"],
    ["real/file-link", "real", "real/file-link"],
    ["real/file-link", undefined, "real/file-link"],
    // Without a root, the directories are the user's: only the file is checked.
    ["real/linked/a.key", undefined, undefined],
  ];
  for (const [file, rootDir, refused] of rows) {
    const call = () => refuseLinks(path.join(d, file), rootDir && path.join(d, rootDir));
    if (refused === undefined) call();
    else {
      assert.throws(
        call,
        (e: Error) => e.message.startsWith(`${path.join(d, refused)}: is a symbolic link`),
        file,
      );
    }
  }
});

/** What a file holds, or every file under a directory with what it holds. */
function contents(target: string): string[] {
  return fs.statSync(target).isDirectory()
    ? tree(target).map((p) =>
      `${p}: ${
        fs.statSync(path.join(target, p)).isFile()
          ? fs.readFileSync(path.join(target, p), "latin1")
          : ""
      }`
    )
    : [fs.readFileSync(target, "latin1")];
}

/** Copies `rel` under `dir` to `target` and puts a link to it in its place. */
function linkAway(dir: string, rel: string, target: string): void {
  fs.cpSync(path.join(dir, rel), target, { recursive: true });
  fs.rmSync(path.join(dir, rel), { recursive: true });
  fs.symlinkSync(target, path.join(dir, rel));
}

Deno.test("run() certs renew and certs assemble refuse to write through a linked file or a linked pki/etcd of the tree; the targets untouched", async () => {
  // renew: a tree of certs generate; each link points at a copy of what was there (it is read).
  const renewCases: [string[], string][] = [
    [["apiserver"], "pki/apiserver.key"],
    [["admin.conf"], "admin.conf"],
    [["etcd-server"], "pki/etcd"],
  ];
  for (const [names, rel] of renewCases) {
    const d = fresh();
    fs.cpSync(IN.cas, d, { recursive: true });
    const target = `${d}-target`;
    linkAway(d, rel, target);
    const before = contents(target);
    const r = await runInProcess(["certs", "renew", ...names, "--out-dir", d, ...NOW]);
    assertLinkRefused(r, `renew ${rel}`, path.join(d, rel));
    assert.deepEqual(contents(target), before, rel);
  }
  // assemble: the generate-csr tree, its CSRs signed; links to copies of its own files.
  const signed = fresh();
  const s = await runInProcess([
    "certs",
    "sign-csr",
    IN.csrDir,
    ...CA_FLAGS(IN.cas, true),
    ...["--out-dir", signed, ...NOW],
  ]);
  assert.equal(s.code, 0, s.stderr);
  for (const rel of ["admin.conf", "pki/etcd"]) {
    const d = fresh();
    fs.cpSync(IN.csrDir, d, { recursive: true });
    const target = `${d}-target`;
    linkAway(d, rel, target);
    const before = contents(target);
    const r = await runInProcess([
      "certs",
      "assemble",
      ...["--out-dir", d, ...CA_FLAGS(IN.cas, false), signed, ...NOW],
    ]);
    assertLinkRefused(r, `assemble ${rel}`, path.join(d, rel));
    assert.deepEqual(contents(target), before, rel);
  }
  // A linked certificate that assemble would create (pki/apiserver.crt, none there before).
  const d = fresh();
  fs.cpSync(IN.csrDir, d, { recursive: true });
  const victim = `${d}-victim`;
  fs.writeFileSync(victim, "victim\n");
  fs.symlinkSync(victim, path.join(d, "pki/apiserver.crt"));
  const r = await runInProcess([
    "certs",
    "assemble",
    ...["--out-dir", d, ...CA_FLAGS(IN.cas, false), "--force", signed, ...NOW],
  ]);
  assertLinkRefused(r, "assemble pki/apiserver.crt", path.join(d, "pki/apiserver.crt"));
  assert.equal(fs.readFileSync(victim, "utf8"), "victim\n");
});
