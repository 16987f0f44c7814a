/**
 * The oracle's go125 overlay is made at build time from patches
 * (tools/oracle/overlay.ts `applyPatch`): unified diffs applied strictly to
 * the installed toolchain's sources. Table tests of the applier, and each
 * committed patch against Go 1.23's GOROOT when that toolchain is installed.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { applyPatch, PatchError } from "../tools/oracle/overlay.ts";
import { repoPath } from "./_cli.ts";

const BASE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

const CASES: { name: string; original: string | undefined; patch: string; want: string }[] = [
  {
    name: "a line replaced, with context",
    original: BASE,
    patch: "--- a/x\n+++ b/x\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n",
    want: "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n",
  },
  {
    name: "two hunks, lines added and removed",
    original: BASE,
    patch: "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n one\n+one and a half\n two\n" +
      "@@ -5,3 +6,2 @@\n five\n-six\n seven\n",
    want: "one\none and a half\ntwo\nthree\nfour\nfive\nseven\n",
  },
  {
    name: "a file added (against /dev/null)",
    original: undefined,
    patch: "--- /dev/null\n+++ b/new.go\n@@ -0,0 +1,2 @@\n+package x\n+\n",
    want: "package x\n\n",
  },
  {
    name: "an empty context line written without its space",
    original: "a\n\nb\n",
    patch: "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
    want: "a\n\nc\n",
  },
  {
    name: "a last line without a line feed",
    original: "a\nb",
    patch: "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n" +
      "\\ No newline at end of file\n",
    want: "a\nc",
  },
];

for (const c of CASES) {
  Deno.test(`applyPatch() ${c.name}`, () => {
    assert.equal(applyPatch(c.original, c.patch, "x"), c.want);
  });
}

const REFUSED: { name: string; original: string | undefined; patch: string; error: RegExp }[] = [
  {
    name: "a context line that differs",
    original: BASE,
    patch: "--- a/x\n+++ b/x\n@@ -2,3 +2,3 @@\n TWO\n-three\n+THREE\n four\n",
    error: /x: line 2 is "two", the patch expects "TWO"/,
  },
  {
    name: "a removed line that is not there",
    original: BASE,
    patch: "--- a/x\n+++ b/x\n@@ -6,2 +6,1 @@\n six\n-eight\n",
    error: /x: line 7 is "seven", the patch expects "eight"/,
  },
  {
    name: "a hunk past the end",
    original: "a\n",
    patch: "--- a/x\n+++ b/x\n@@ -3,1 +3,1 @@\n-c\n+d\n",
    error: /x: line 3 is "<end of file>"/,
  },
  {
    name: "a hunk shorter than its header",
    original: BASE,
    patch: "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n",
    error: /shorter than its header/,
  },
  {
    name: "an added file that exists",
    original: "x\n",
    patch: "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+y\n",
    error: /adds a file that exists/,
  },
  {
    name: "a changed file that is missing",
    original: undefined,
    patch: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
    error: /no such file to patch/,
  },
  { name: "no hunks", original: BASE, patch: "--- a/x\n+++ b/x\n", error: /no hunks/ },
];

for (const c of REFUSED) {
  Deno.test(`applyPatch() refuses ${c.name}`, () => {
    assert.throws(() => applyPatch(c.original, c.patch, "x"), (e: unknown) => {
      assert.ok(e instanceof PatchError);
      assert.match(e.message, c.error);
      return true;
    });
  });
}

const GOROOT = "/usr/lib/go-1.23";

Deno.test({
  name: "applyPatch() applies every go125 patch to Go 1.23's own sources (skipped without Go 1.23)",
  ignore: !fs.existsSync(path.join(GOROOT, "src/crypto/x509/parser.go")),
  fn() {
    const dir = repoPath("tools/oracle/go125");
    const patches = fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((p) => p.endsWith(".patch")).sort();
    assert.ok(patches.length >= 8, patches.join(", "));
    for (const p of patches) {
      const rel = p.slice(0, -".patch".length);
      const file = path.join(GOROOT, "src", rel);
      const original = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
      const patched = applyPatch(original, fs.readFileSync(path.join(dir, p), "utf8"), rel);
      assert.match(patched, /GO125 PATCH/, rel);
      assert.notEqual(patched, original, rel);
    }
  },
});
