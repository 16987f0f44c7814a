import assert from "node:assert/strict";
import * as fs from "node:fs";
import { runCli } from "../_cli.ts";
import { VERSION } from "../../lib/base/version.ts";

Deno.test("CLI --version prints the package version", async () => {
  const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
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

Deno.test("CLI --now refuses what Go's time.Parse(time.RFC3339) refuses, with Go's reason", async () => {
  const r = await runCli(["token", "generate", "--now", "tomorrow"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    'error: invalid --now "tomorrow": parsing time "tomorrow" as "2006-01-02T15:04:05Z07:00": cannot parse "tomorrow" as "2006"\n',
  );
  const nl = await runCli(["token", "generate", "--now", "2030-01-01T00:00:00Z\nerror: fake"]);
  assert.equal(nl.code, 1);
  assert.equal(nl.stderr.split("\n").length, 2, nl.stderr);
  // Go's fallback parser takes a one-digit hour and a zone offset of 24 hours
  const lax = await runCli(["token", "generate", "--now", "2030-01-01T5:00:00+24:00"]);
  assert.equal(lax.code, 0, lax.stderr);
});

Deno.test("CLI with no arguments prints the help on stderr, exit 2", async () => {
  const r = await runCli([]);
  const help = await runCli(["--help"]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, help.stdout);
});

Deno.test("CLI group --help lists the group's commands", async () => {
  const r = await runCli(["csr", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /csr create[\s\S]*csr inspect[\s\S]*csr sign/);
});
