/**
 * JSON Lists over 16 MiB are read item by item (lib/k8s/json_stream.ts via
 * commands/_io.ts readManifestChunks): what the same objects give in YAML,
 * or in a small JSON List read whole.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { parseManifests, toJson, toYaml } from "../../lib/k8s/manifest.ts";
import { MAX_INPUT_BYTES } from "../../lib/base/limits.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];

/** A token Secret, padded with a description so fewer make 16 MiB. */
function secret(i: number): Record<string, unknown> {
  const id = i.toString(36).padStart(6, "0");
  return {
    apiVersion: "v1",
    data: {
      description: btoa("d".repeat(3000)),
      "token-id": btoa(id),
      "token-secret": btoa("0123456789abcdef"),
      "usage-bootstrap-authentication": btoa("true"),
    },
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
  };
}

const asList = (items: unknown[], kind = "List") => ({
  apiVersion: "v1",
  items,
  kind,
  metadata: { resourceVersion: "" },
});

Deno.test("CLI token list reads a JSON List over 16 MiB item by item, as the same Secrets in YAML", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const n = Math.ceil((MAX_INPUT_BYTES + 1024 * 1024) / 4300);
    const secrets = Array.from({ length: n }, (_, i) => secret(i));
    const json = path.join(dir, "list.json");
    const yaml = path.join(dir, "s.yaml");
    fs.writeFileSync(json, toJson(asList(secrets)));
    fs.writeFileSync(yaml, secrets.map(toYaml).join("---\n"));
    assert.ok(fs.statSync(json).size > MAX_INPUT_BYTES);
    const [a, b] = await Promise.all([
      runCli(["token", "list", yaml, ...NOW]),
      runCli(["token", "list", json, ...NOW]),
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stderr, a.stderr);
    assert.equal(b.stdout, a.stdout);
    assert.equal(b.stdout.split("\n").length - 2, n);
    // Not a List: refused once its other fields are read, with no output.
    const thing = path.join(dir, "thing.json");
    fs.writeFileSync(thing, toJson(asList(secrets, "Thing")));
    const c = await runCli(["token", "list", thing]);
    assert.equal(c.code, 1);
    assert.equal(c.stdout, "");
    assert.match(c.stderr, /^error: .*thing\.json: document 1 larger than 16777216 bytes/);
    // An array of objects over 16 MiB is refused as before.
    const array = path.join(dir, "array.json");
    fs.writeFileSync(array, JSON.stringify(secrets));
    const d = await runCli(["token", "list", array]);
    assert.equal(d.code, 1);
    assert.equal(d.stdout, "");
    assert.match(d.stderr, /^error: .*array\.json: JSON document larger than 16777216 bytes\n$/);
    // A bad item far into the List is named by its index across parts.
    const bad = path.join(dir, "bad.json");
    const items: unknown[] = [...secrets];
    items.push(7);
    fs.writeFileSync(bad, toJson(asList(items)));
    const e = await runCli(["token", "list", bad]);
    assert.equal(e.code, 1);
    assert.equal(e.stdout, "");
    assert.equal(e.stderr, `error: ${bad}: document 1items[${n}] is not an object\n`);
  } finally {
    cleanup();
  }
});

const stripCerts = (text: string) => text.replace(/"certificate": "[^"]*"/g, '"certificate": "X"');

Deno.test("CLI csr sign signs a JSON List over 16 MiB item by item, in JSON as a whole read renders it", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", path.join(dir, "pki")]);
    assert.equal(c.code, 0, c.stderr);
    const csr = parseManifests(c.stdout)[0]!;
    const pad = "x".repeat(12_000);
    const item = (i: number) => ({ ...csr, metadata: { name: `csr-${i}`, annotations: { pad } } });
    const n = Math.ceil((MAX_INPUT_BYTES + 1024 * 1024) / 12_500);
    const list = (count: number) =>
      toJson(asList(Array.from({ length: count }, (_, i) => item(i))));
    const big = path.join(dir, "big.json");
    const small = path.join(dir, "small.json");
    fs.writeFileSync(big, list(n));
    fs.writeFileSync(small, list(3));
    assert.ok(fs.statSync(big).size > MAX_INPUT_BYTES);
    const sign = (file: string) =>
      runCli(["csr", "sign", file, "--ca", ca.crt, "--ca-key", ca.key, "--approve", ...NOW]);
    const [whole, streamed] = await Promise.all([sign(small), sign(big)]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(streamed.code, 0, streamed.stderr);
    assert.equal(streamed.stderr, "");
    const out = JSON.parse(streamed.stdout);
    assert.equal(out.items.length, n);
    // The same rendering: the whole read's first items, then the same tail.
    const w = stripCerts(whole.stdout);
    const cut = w.indexOf("\n        },\n        {", w.indexOf('"csr-1"')); // end of item 2
    assert.ok(cut > 0);
    const s = stripCerts(streamed.stdout);
    assert.equal(s.slice(0, cut), w.slice(0, cut));
    const tail = w.slice(w.lastIndexOf("\n    ],"));
    assert.ok(s.endsWith(tail), tail);
  } finally {
    cleanup();
  }
});
