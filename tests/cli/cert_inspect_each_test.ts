/**
 * `cert inspect` shows each certificate of a file as it is parsed (none
 * held): what a run prints and refuses stays what it was when a file's
 * certificates were all parsed first.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const NOW = ["--now", "2027-06-01T00:00:00Z"];
const GOOD = fs.readFileSync(repoPath("tests/fixtures/pin/test-cert.pem"), "utf8");
const GOOD2 = fs.readFileSync(repoPath("tests/fixtures/pin/ca-cert.pem"), "utf8");
const BAD = "-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n";

Deno.test("CLI cert inspect refuses a file whose third certificate does not parse, printing nothing", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const f = path.join(dir, "bundle.pem");
    fs.writeFileSync(f, GOOD + GOOD2 + BAD);
    for (const format of ["text", "json", "yaml"]) {
      const r = await runCli(["cert", "inspect", f, "-o", format, ...NOW]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, `error: ${f}: x509: malformed certificate\n`);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect of a directory skips a file whose later certificate does not parse, whole", async () => {
  const { dir, cleanup } = tempDir();
  try {
    fs.writeFileSync(path.join(dir, "a.pem"), GOOD + GOOD2 + BAD);
    fs.writeFileSync(path.join(dir, "b.crt"), GOOD2);
    fs.writeFileSync(path.join(dir, "c.pem"), GOOD + GOOD2);
    const json = await runCli(["cert", "inspect", dir, "-o", "json", ...NOW]);
    assert.equal(json.code, 0, json.stderr);
    const shown = (JSON.parse(json.stdout) as { file: string; index: number }[])
      .map((c) => `${path.basename(c.file)}[${c.index}]`);
    assert.deepEqual(shown, ["b.crt[0]", "c.pem[0]", "c.pem[1]"]);
    const table = await runCli(["cert", "inspect", dir, ...NOW]);
    assert.equal(table.code, 0, table.stderr);
    assert.doesNotMatch(table.stdout, /^a\b/m);
    assert.match(table.stdout, /^c\[1\] /m);
    assert.match(table.stdout, /^b /m);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect labels a lone certificate by its file and a bundle's by index", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const one = path.join(dir, "one.pem");
    const two = path.join(dir, "two.pem");
    fs.writeFileSync(one, GOOD);
    fs.writeFileSync(two, GOOD + GOOD2);
    const r = await runCli(["cert", "inspect", one, two, ...NOW]);
    assert.equal(r.code, 0, r.stderr);
    const labels = r.stdout.split("\n").filter((l) => l !== "" && !l.startsWith(" "));
    assert.deepEqual(labels, [one, `${two}[0]`, `${two}[1]`]);
    // One blank line between reports, none before the first or after the last.
    assert.equal(r.stdout.split("\n\n").length, 3);
    assert.ok(r.stdout.endsWith(" \n") === false && r.stdout.endsWith("\n"));
  } finally {
    cleanup();
  }
});
