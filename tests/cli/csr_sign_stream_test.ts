/**
 * csr sign over a List longer than one whole read (16 MiB): read item by
 * item, signed and written as it goes, in the shape a whole read gives.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { parseManifests, toYaml } from "../../lib/k8s/manifest.ts";
import { MAX_INPUT_BYTES } from "../../lib/base/limits.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];
const stripCerts = (text: string) => text.replace(/^ {4}certificate: .*$/gm, "    certificate: X");

Deno.test("CLI csr sign signs a List over 16 MiB item by item, as a whole read renders it", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", path.join(dir, "pki")]);
    assert.equal(c.code, 0, c.stderr);
    const csr = parseManifests(c.stdout)[0]!;
    const pad = "x".repeat(12_000);
    const item = (i: number) => ({
      ...csr,
      metadata: { name: `csr-${i}`, annotations: { pad } },
    });
    const n = Math.ceil((MAX_INPUT_BYTES + 1024 * 1024) / 12_500);
    const list = (count: number) =>
      toYaml({
        apiVersion: "v1",
        items: Array.from({ length: count }, (_, i) => item(i)),
        kind: "List",
        metadata: { resourceVersion: "" },
      });
    const big = path.join(dir, "big.yaml");
    const small = path.join(dir, "small.yaml");
    fs.writeFileSync(big, list(n));
    fs.writeFileSync(small, list(3));
    assert.ok(fs.statSync(big).size > MAX_INPUT_BYTES);
    const sign = (file: string, ...more: string[]) =>
      runCli([
        "csr",
        "sign",
        file,
        "--ca",
        ca.crt,
        "--ca-key",
        ca.key,
        "--approve",
        ...NOW,
        ...more,
      ]);
    const [whole, streamed] = await Promise.all([sign(small), sign(big)]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(streamed.code, 0, streamed.stderr);
    assert.equal(streamed.stderr, "");
    assert.equal(streamed.stdout.match(/^ {4}certificate: /gm)?.length, n);
    // The same rendering: the whole read's items are the streamed output's first items.
    const w = stripCerts(whole.stdout);
    const tail = 'kind: List\nmetadata:\n  resourceVersion: ""\n';
    assert.ok(w.endsWith(tail));
    assert.ok(stripCerts(streamed.stdout).startsWith(w.slice(0, -tail.length)));
    assert.ok(streamed.stdout.endsWith(tail));
    // --out: the same bytes' shape, written once at the end; stdout empty.
    const out = path.join(dir, "out", "signed.yaml");
    const o = await sign(big, "--out", out);
    assert.equal(o.code, 0, o.stderr);
    assert.equal(o.stdout, "");
    assert.equal(stripCerts(fs.readFileSync(out, "utf8")), stripCerts(streamed.stdout));
    assert.deepEqual(fs.readdirSync(path.dirname(out)), ["signed.yaml"]);
    const again = await sign(big, "--out", out);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
  } finally {
    cleanup();
  }
});
