/**
 * Bulk inspection past one whole read: csr inspect reads a List over 16 MiB
 * item by item (commands/_io.ts eachManifestInput) and prints each report
 * as a whole read prints it; PEM over 16 MiB is refused as before.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { parseManifests, toYaml } from "../../lib/k8s/manifest.ts";
import { MAX_INPUT_BYTES } from "../../lib/base/limits.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];

Deno.test("CLI csr inspect reads a List over 16 MiB item by item, each report as a whole read prints it", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", path.join(dir, "pki")]);
    assert.equal(c.code, 0, c.stderr);
    const csr = parseManifests(c.stdout)[0]!;
    const pad = "x".repeat(12_000);
    const item = (i: number) => ({ ...csr, metadata: { name: `csr-${i}`, annotations: { pad } } });
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
    for (const format of ["text", "json"]) {
      const inspect = (file: string) => runCli(["csr", "inspect", file, "-o", format, ...NOW]);
      const [whole, streamed] = await Promise.all([inspect(small), inspect(big)]);
      assert.equal(whole.code, streamed.code, streamed.stderr);
      const name = (file: string, text: string) => text.replaceAll(file, "IN");
      const w = name(small, whole.stdout);
      const s = name(big, streamed.stdout);
      if (format === "json") {
        const reports = JSON.parse(s) as unknown[];
        assert.equal(reports.length, n);
        assert.deepEqual(reports.slice(0, 3), JSON.parse(w));
      } else {
        assert.equal(s.match(/^IN: object \d+$/gm)?.length, n);
        assert.ok(s.startsWith(w), "the first three reports as a whole read prints them");
      }
      assert.equal(
        name(big, streamed.stderr).split("\n").slice(0, 3).join("\n"),
        name(small, whole.stderr).split("\n").slice(0, 3).join("\n"),
      );
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr inspect refuses a single document, or PEM not led by a CSR, over 16 MiB as before", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const pem = path.join(dir, "big.pem");
    const block = "-----BEGIN CERTIFICATE-----\n" + "QUFB\n".repeat(1000) +
      "-----END CERTIFICATE-----\n";
    fs.writeFileSync(pem, block.repeat(Math.ceil((MAX_INPUT_BYTES + 1) / block.length)));
    const one = path.join(dir, "one.yaml");
    fs.writeFileSync(
      one,
      `kind: CertificateSigningRequest\ndata: ${"a".repeat(MAX_INPUT_BYTES)}\n`,
    );
    for (const file of [pem, one]) {
      const r = await runCli(["csr", "inspect", file]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, `error: ${file}: file larger than ${MAX_INPUT_BYTES} bytes\n`);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr inspect reads PEM CSRs over 1 MiB in pieces, numbered across them", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", path.join(dir, "pki")]);
    assert.equal(c.code, 0, c.stderr);
    const csr = fs.readFileSync(path.join(dir, "pki", "kubelet-client.csr"), "utf8");
    const key = fs.readFileSync(path.join(dir, "pki", "kubelet-client.key"), "utf8");
    assert.match(csr, /^-----BEGIN CERTIFICATE REQUEST-----\n/);
    const blocks: string[] = [];
    for (let i = 0; blocks.join("").length < 2.5 * 1024 * 1024; i++) {
      blocks.push(i === 1500 ? key : csr); // a key between them: left out, as a whole read does
    }
    const big = path.join(dir, "big.pem");
    fs.writeFileSync(big, blocks.join(""));
    const small = path.join(dir, "small.pem");
    fs.writeFileSync(small, csr + key + csr);
    const n = blocks.length - 1;
    const [whole, pieces] = await Promise.all([
      runCli(["csr", "inspect", small, "-o", "json", ...NOW]),
      runCli(["csr", "inspect", big, "-o", "json", ...NOW]),
    ]);
    assert.equal(pieces.code, whole.code, pieces.stderr);
    const reports = JSON.parse(pieces.stdout) as { source: string }[];
    assert.equal(reports.length, n);
    assert.deepEqual(reports.map((r) => r.source), reports.map((_, i) => `${big}[${i}]`));
    const two = JSON.parse(whole.stdout.replaceAll(small, big));
    assert.deepEqual(reports.slice(0, 2), two);
    assert.deepEqual(reports[n - 1], { ...two[0], source: `${big}[${n - 1}]` });
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr approve over 16 MiB writes, object by object, the bytes of its two halves read whole", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", path.join(dir, "pki")]);
    assert.equal(c.code, 0, c.stderr);
    const csr = parseManifests(c.stdout)[0]!;
    const pad = "x".repeat(12_000);
    const item = (i: number) => ({ ...csr, metadata: { name: `csr-${i}`, annotations: { pad } } });
    const n = 2 * Math.ceil((MAX_INPUT_BYTES + 1024 * 1024) / 25_000);
    const list = (from: number, to: number) =>
      toYaml({
        apiVersion: "v1",
        items: Array.from({ length: to - from }, (_, i) => item(from + i)),
        kind: "List",
        metadata: { resourceVersion: "" },
      });
    const files = { big: [0, n], a: [0, n / 2], b: [n / 2, n] } as const;
    for (const [name, [from, to]] of Object.entries(files)) {
      fs.writeFileSync(path.join(dir, `${name}.yaml`), list(from, to));
    }
    assert.ok(fs.statSync(path.join(dir, "big.yaml")).size > MAX_INPUT_BYTES);
    for (const format of ["yaml", "json"]) {
      const approve = (name: string) =>
        runCli(["csr", "approve", path.join(dir, `${name}.yaml`), "-o", format, ...NOW]);
      const [big, a, b] = await Promise.all([approve("big"), approve("a"), approve("b")]);
      assert.equal(big.code, a.code, big.stderr);
      const lines = (s: string) => s.split("\n").filter(Boolean).length;
      assert.equal(lines(big.stderr), lines(a.stderr) + lines(b.stderr));
      const want = format === "yaml"
        ? a.stdout.slice(0, a.stdout.lastIndexOf("kind: List\n")) +
          b.stdout.slice("apiVersion: v1\nitems:\n".length)
        : a.stdout.slice(0, a.stdout.lastIndexOf('\n    ],\n    "kind"')) + ",\n" +
          b.stdout.slice(b.stdout.indexOf('    "items": [\n') + 15);
      assert.equal(big.stdout, want);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect reads a PEM file over 1 MiB in pieces of whole blocks, numbered across them", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const a = fs.readFileSync(opensslCa(dir, "a").crt, "utf8");
    const b = fs.readFileSync(opensslCa(dir, "b", { ca: false }).crt, "utf8");
    const key = fs.readFileSync(path.join(dir, "a.key"), "utf8");
    // Certificates, a key between them (skipped, as Go's ParseCertsPEM skips it), > 2 pieces.
    const blocks: string[] = [];
    for (let i = 0; blocks.join("").length < 2.5 * 1024 * 1024; i++) {
      blocks.push(i === 1000 ? key : i % 2 ? a : b);
    }
    const big = path.join(dir, "big.pem");
    fs.writeFileSync(big, blocks.join(""));
    const small = path.join(dir, "small.pem");
    fs.writeFileSync(small, b + a);
    const certs = blocks.filter((x) => x !== key).length;
    for (const format of ["json", "text"]) {
      const [whole, pieces] = await Promise.all([
        runCli(["cert", "inspect", small, "-o", format, ...NOW]),
        runCli(["cert", "inspect", big, "-o", format, ...NOW]),
      ]);
      assert.equal(pieces.code, 0, pieces.stderr);
      assert.equal(pieces.stderr, "");
      if (format === "json") {
        const rows = JSON.parse(pieces.stdout) as { index: number; file: string }[];
        assert.equal(rows.length, certs);
        assert.deepEqual(rows.map((r) => r.index), rows.map((_, i) => i));
        const two = JSON.parse(whole.stdout.replaceAll(small, big));
        assert.deepEqual(rows.slice(0, 2), two);
        assert.deepEqual(rows[1001], { ...two[(1001 + 1) % 2], index: 1001 }); // after the key
      } else {
        const labels = pieces.stdout.match(/^\S+\[\d+\]$/gm)!;
        assert.equal(labels.length, certs);
        assert.equal(labels.at(-1), `${big}[${certs - 1}]`);
        assert.ok(pieces.stdout.startsWith(whole.stdout.replaceAll(small, big)));
      }
    }
    // Keys only, over 1 MiB: refused as a file without certificates.
    const keys = path.join(dir, "keys.pem");
    fs.writeFileSync(keys, key.repeat(Math.ceil(1.5 * 1024 * 1024 / key.length)));
    const k = await runCli(["cert", "inspect", keys]);
    assert.equal(k.code, 1);
    assert.equal(k.stdout, "");
    assert.equal(k.stderr, `error: ${keys}: no certificate found\n`);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr sign signs PEM CSRs over 1 MiB piece by piece, in order, refusals numbered across pieces", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", path.join(dir, "pki")]);
    assert.equal(c.code, 0, c.stderr);
    const csr = fs.readFileSync(path.join(dir, "pki", "kubelet-client.csr"), "utf8");
    const key = fs.readFileSync(path.join(dir, "pki", "kubelet-client.key"), "utf8");
    const blocks: string[] = [];
    for (let i = 0; blocks.join("").length < 1.5 * 1024 * 1024; i++) {
      blocks.push(i === 7 ? key : csr);
    }
    const big = path.join(dir, "big.pem");
    fs.writeFileSync(big, blocks.join(""));
    const small = path.join(dir, "small.pem");
    fs.writeFileSync(small, csr + key + csr);
    const n = blocks.length - 1;
    const sign = (file: string, ...more: string[]) =>
      runCli(["csr", "sign", file, "--ca", ca.crt, "--ca-key", ca.key, ...NOW, ...more]);
    const [whole, pieces] = await Promise.all([sign(small), sign(big)]);
    assert.equal(pieces.code, 0, pieces.stderr);
    assert.equal(pieces.stderr, "");
    assert.equal(pieces.stdout.match(/^-----BEGIN CERTIFICATE-----$/gm)?.length, n);
    assert.equal(whole.stdout.match(/^-----BEGIN CERTIFICATE-----$/gm)?.length, 2);
    // Refused by the signer: one line per CSR, as a whole read words it, numbered across pieces.
    const serving = ["--signer-name", "kubernetes.io/kubelet-serving"];
    const [w, p] = await Promise.all([sign(small, ...serving), sign(big, ...serving)]);
    assert.equal(p.code, 3);
    assert.equal(p.stdout, "");
    const line = w.stderr.split("\n")[0]!.replace(small, big);
    assert.equal(
      p.stderr,
      Array.from({ length: n }, (_, i) => line.replace(`${big}[0]`, `${big}[${i}]`) + "\n").join(
        "",
      ),
    );
    // --out: written once, at the end.
    const out = path.join(dir, "out", "certs.pem");
    const o = await sign(big, "--out", out);
    assert.equal(o.code, 0, o.stderr);
    assert.equal(o.stdout, "");
    assert.equal(fs.readFileSync(out, "utf8").match(/^-----BEGIN CERTIFICATE-----$/gm)?.length, n);
  } finally {
    cleanup();
  }
});
