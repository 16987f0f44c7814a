/**
 * Streams read document by document (commands/_io.ts readManifestChunks):
 * inputs past one piece (1 MiB) are read whole documents at a time, each
 * document is bounded on its own, documents are numbered across pieces, and
 * a stream in pieces gives what the same documents give read whole.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { MAX_INPUT_BYTES } from "../../lib/base/limits.ts";
import { eachInput, MAX_INPUT_FILES, readManifestChunks } from "../../commands/_io.ts";
import { parseManifestChunk } from "../../lib/k8s/manifest.ts";

/** A token Secret as token create writes it (ID from the index). */
function secret(i: number): string {
  const id = i.toString(36).padStart(6, "0");
  const b64 = (s: string) => btoa(s);
  return `apiVersion: v1
data:
  token-id: ${b64(id)}
  token-secret: ${b64("0123456789abcdef")}
  usage-bootstrap-authentication: ${b64("true")}
kind: Secret
metadata:
  name: bootstrap-token-${id}
  namespace: kube-system
type: bootstrap.kubernetes.io/token
`;
}

/** `n` Secrets as a `---` stream, padded with a long description to pass `bytes`. */
function stream(bytes: number): { text: string; count: number } {
  const docs: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const d = secret(i);
    docs.push(d);
    size += d.length + 4;
  }
  return { text: docs.join("---\n"), count: docs.length };
}

Deno.test("readManifestChunks() cuts a stream past one piece only before '---' lines", () => {
  const { dir, cleanup } = tempDir();
  try {
    const { text, count } = stream(MAX_INPUT_BYTES + 3 * 1024 * 1024);
    const file = path.join(dir, "s.yaml");
    fs.writeFileSync(file, text);
    const chunks = [...readManifestChunks([file])];
    assert.ok(chunks.length >= 2, `${chunks.length} chunks`);
    assert.equal(chunks.map((c) => c.text).join(""), text);
    chunks.forEach((c, i) => {
      assert.equal(c.index, i);
      assert.equal(c.last, i === chunks.length - 1);
      assert.ok(c.text.length <= MAX_INPUT_BYTES);
      if (i > 0) assert.ok(c.text.startsWith("---\n"));
    });
    const counts = { documents: 0, objects: 0 };
    const objects = chunks.flatMap((c) => parseManifestChunk(c, counts));
    assert.equal(objects.length, count);
    assert.equal(counts.documents, count);
  } finally {
    cleanup();
  }
});

Deno.test("readManifestChunks() keeps a document longer than a piece whole, and refuses one over 16 MiB", () => {
  const { dir, cleanup } = tempDir();
  try {
    const big = `kind: ConfigMap\ndata:\n  x: ${"a".repeat(3 * 1024 * 1024)}\n`;
    const text = [secret(1), big, secret(2), secret(3)].join("---\n");
    const file = path.join(dir, "s.yaml");
    fs.writeFileSync(file, text);
    const chunks = [...readManifestChunks([file])];
    assert.equal(chunks.map((c) => c.text).join(""), text);
    const counts = { documents: 0, objects: 0 };
    const kinds = chunks.flatMap((c) => parseManifestChunk(c, counts)).map((o) => o.kind);
    assert.deepEqual(kinds, ["Secret", "ConfigMap", "Secret", "Secret"]);
    const huge = path.join(dir, "huge.yaml");
    fs.writeFileSync(huge, secret(1) + "---\n" + `data: ${"a".repeat(MAX_INPUT_BYTES + 10)}\n`);
    assert.throws(
      () => [...readManifestChunks([huge])],
      new RegExp(`huge\\.yaml: document 2 larger than ${MAX_INPUT_BYTES} bytes`),
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI token list reads a stream larger than 16 MiB and numbers a bad document across pieces", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { text, count } = stream(MAX_INPUT_BYTES + 2 * 1024 * 1024);
    const good = path.join(dir, "good.yaml");
    fs.writeFileSync(good, text);
    const r = await runCli(["token", "list", good, "--now", "2026-01-01T00:00:00Z"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split("\n").length - 2, count); // header and final newline
    const bad = path.join(dir, "bad.yaml");
    fs.writeFileSync(bad, text + "---\nkind: [\n");
    const b = await runCli(["token", "list", bad]);
    assert.equal(b.code, 1);
    assert.equal(b.stdout, "");
    assert.match(
      b.stderr,
      new RegExp(`^error: .*bad\\.yaml: document ${count + 1} is not valid YAML`),
    );
  } finally {
    cleanup();
  }
});

/** The same Secrets as one kubectl-style List document (`items:` at the margin). */
function asList(text: string, kind = "List"): string {
  const items = text.split("---\n").map((d) => "- " + d.trimEnd().split("\n").join("\n  ") + "\n");
  return `apiVersion: v1\nitems:\n${
    items.join("")
  }kind: ${kind}\nmetadata:\n  resourceVersion: ""\n`;
}

Deno.test("CLI token list reads a List over 16 MiB item by item, as the same Secrets in a stream", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { text, count } = stream(MAX_INPUT_BYTES + 1024 * 1024);
    const file = path.join(dir, "s.yaml");
    const list = path.join(dir, "list.yaml");
    fs.writeFileSync(file, text);
    fs.writeFileSync(list, asList(text));
    const now = ["--now", "2026-01-01T00:00:00Z"];
    const [a, b] = await Promise.all([
      runCli(["token", "list", file, ...now]),
      runCli(["token", "list", list, ...now]),
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, a.stdout);
    assert.equal(b.stdout.split("\n").length - 2, count);
    const notList = path.join(dir, "notlist.yaml");
    fs.writeFileSync(notList, asList(text, "Thing"));
    const c = await runCli(["token", "list", notList]);
    assert.equal(c.code, 1);
    assert.equal(c.stdout, "");
    assert.match(c.stderr, /^error: .*notlist\.yaml: document 1 larger than 16777216 bytes/);
  } finally {
    cleanup();
  }
});

Deno.test("readManifestChunks() numbers a List's items across its parts", () => {
  const { dir, cleanup } = tempDir();
  try {
    const { text, count } = stream(MAX_INPUT_BYTES + 1024 * 1024);
    const file = path.join(dir, "list.yaml");
    // One bad item near the end: its number is counted across the parts.
    fs.writeFileSync(
      file,
      secret(0) + "---\n" + asList(text).replace(/kind: List\n(?=metadata)/, "- 7\nkind: List\n"),
    );
    const counts = { documents: 0, objects: 0 };
    assert.throws(
      () => {
        for (const c of readManifestChunks([file])) parseManifestChunk(c, counts);
      },
      new RegExp(`list\\.yaml: document 2items\\[${count}\\] is not an object`),
    );
  } finally {
    cleanup();
  }
});

Deno.test("eachInput() reads a directory of more files than readInputs takes, one at a time", () => {
  const { dir, cleanup } = tempDir();
  try {
    for (let i = 0; i <= MAX_INPUT_FILES; i++) {
      fs.writeFileSync(path.join(dir, `f${String(i).padStart(6, "0")}`), `${i}`);
    }
    let n = 0;
    for (const input of eachInput([dir])) {
      assert.equal(input.text, String(n));
      n++;
    }
    assert.equal(n, MAX_INPUT_FILES + 1);
  } finally {
    cleanup();
  }
});
