import assert from "node:assert/strict";
import * as fs from "node:fs";
import { runCli } from "./_cli.ts";
import { VERSION } from "../lib/version.ts";

Deno.test("CLI --version prints the package version", async () => {
  const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  assert.equal(VERSION, pkg.version);
  const r = await runCli(["--version"]);
  assert.deepEqual(r, { code: 0, stdout: `joinkit ${VERSION}\n`, stderr: "" });
});

Deno.test("CLI --help lists every command and the exit codes", async () => {
  const r = await runCli(["--help"]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  for (const cmd of ["token generate", "ca hash", "cluster-info verify", "csr sign", "init"]) {
    assert.ok(r.stdout.includes(cmd), cmd);
  }
  assert.match(r.stdout, /3 {2}a check ran and said no/);
});

Deno.test("CLI usage errors exit 2 with one line on stderr", async () => {
  const cases: [string[], RegExp][] = [
    [[], /joinkit/],
    [["frobnicate"], /^error: unknown command "frobnicate"/],
    [["token"], /^error: 'joinkit token' needs a command/],
    [["token", "frob"], /^error: unknown command 'joinkit token frob'/],
    [["token", "generate", "--nope"], /^error: unknown flag --nope/],
    [["token", "generate", "--count"], /^error: flag --count needs a value/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, re);
  }
});

Deno.test("CLI --now rejects a time that is not RFC 3339", async () => {
  const r = await runCli(["token", "generate", "--now", "tomorrow"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    'error: invalid --now "tomorrow": want RFC 3339, e.g. 2026-01-02T15:04:05Z\n',
  );
});

Deno.test("CLI group --help lists the group's commands", async () => {
  const r = await runCli(["csr", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /csr create[\s\S]*csr inspect[\s\S]*csr sign/);
});
