/**
 * `token list` and `token check --secrets` over a directory skip the files
 * that hold no Secret, one warning line each, as `doctor` does (issue 19,
 * class 9): `init`'s own output directory lists its token. A file named on
 * its own is read as ever.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { SecretFileSkips } from "../../commands/_secret_inputs.ts";
import type { TextChunk } from "../../commands/_io.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];
const TOKEN = "abcdef.0123456789abcdef";
const { dir, cleanup } = tempDir("joinkit-secret-dirs-");
globalThis.addEventListener("unload", cleanup);
const ca = opensslCa(dir, "ca");
const out = path.join(dir, "out");

const init = await runCli([
  "init",
  "--server",
  "https://10.0.0.1:6443",
  "--ca",
  ca.crt,
  "--token",
  TOKEN,
  "--with-discovery-file",
  "--out-dir",
  out,
  ...NOW,
]);
assert.equal(init.code, 0, init.stderr);

/** What init wrote that holds no Secret, and why each is skipped. */
function skippedLines(): string {
  const reasons: Record<string, string> = {
    "join-command.txt": "not a manifest (document is not an object)",
  };
  return fs.readdirSync(out).sort()
    .filter((f) => f !== "bootstrap-token.yaml")
    .map((f) => `warning: ${path.join(out, f)}: skipped: ${reasons[f] ?? "holds no Secret"}\n`)
    .join("");
}

Deno.test("CLI token list on init's own output directory lists its token, one warning per other file", async () => {
  const r = await runCli(["token", "list", out, ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^TOKEN +TTL /);
  assert.match(
    r.stdout,
    new RegExp(`^${TOKEN.replace(".", "\\.")} +1d +2026-01-02T00:00:00Z`, "m"),
  );
  assert.equal(r.stderr, skippedLines());
  assert.ok(skippedLines().includes("join-command.txt"));
});

Deno.test("CLI token check --secrets on init's own output directory authenticates its token", async () => {
  const r = await runCli(["token", "check", TOKEN, "--secrets", out, ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    "user: system:bootstrap:abcdef\ngroups: system:bootstrappers,system:bootstrappers:kubeadm:default-node-token\n",
  );
  assert.equal(r.stderr, skippedLines());
});

Deno.test("CLI token list: a file named on its own must still parse; a Secret file's later error stands", async () => {
  const named = await runCli(["token", "list", path.join(out, "join-command.txt"), ...NOW]);
  assert.equal(named.code, 1);
  assert.equal(
    named.stderr,
    `error: ${path.join(out, "join-command.txt")}: document is not an object\n`,
  );
  // In a directory, a file whose first document is a Secret and a later one garbage is an error.
  const d = path.join(dir, "mixed");
  fs.mkdirSync(d);
  const secrets = fs.readFileSync(path.join(out, "bootstrap-token.yaml"), "utf8");
  fs.writeFileSync(path.join(d, "a.yaml"), secrets + "---\njust text\n");
  const r = await runCli(["token", "list", d, ...NOW]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: .*a\.yaml: document \d+ is not an object\n$/);
});

const chunk = (source: string, inDirectory: boolean): TextChunk => ({
  source,
  text: "",
  index: 0,
  last: true,
  ...(inDirectory ? { inDirectory } : {}),
});

Deno.test("SecretFileSkips: one warning per file of a directory without a Secret; named files never", () => {
  const lines: string[] = [];
  const s = new SecretFileSkips((l) => lines.push(l));
  // [file, found in a directory, what happens: secret | nothing | error, skipped?]
  const rows: [string, boolean, "secret" | "nothing" | "error", boolean][] = [
    ["d/a.yaml", true, "secret", false],
    ["d/b.conf", true, "nothing", true],
    ["d/c.txt", true, "error", true],
    ["named.yaml", false, "nothing", false],
    ["named.txt", false, "error", false],
  ];
  for (const [file, inDir, what, skipped] of rows) {
    assert.equal(s.next(chunk(file, inDir)), true);
    if (what === "secret") s.secret();
    if (what === "error") {
      assert.equal(
        s.unreadable(new Error(`${file}: document is not an object`), chunk(file, inDir)),
        skipped,
        file,
      );
      if (skipped) assert.equal(s.next(chunk(file, inDir)), false, "the rest of a skipped file");
    }
  }
  s.end();
  assert.deepEqual(lines, [
    "warning: d/b.conf: skipped: holds no Secret",
    "warning: d/c.txt: skipped: not a manifest (document is not an object)",
  ]);
});
