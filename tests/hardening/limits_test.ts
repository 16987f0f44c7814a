/**
 * Limits: inputs over 16 MiB, endless devices, absurd counts, alias bombs,
 * deep nesting, floods of PEM `BEGIN` lines or YAML documents are refused
 * with a clear message instead of exhausting memory or time.
 *
 * The time bounds below are hang detectors, not performance tests: each is
 * many times what the refusal takes, even on a loaded 2-core runner.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import { InputError } from "../../lib/base/errors.ts";
import { MAX_DEPTH, parseManifests } from "../../lib/k8s/manifest.ts";
import { MAX_INPUT_BYTES, MAX_OBJECTS } from "../../lib/base/limits.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { parseDuration } from "../../lib/go/duration.ts";
import { MAX_INPUT_FILES, readInputs } from "../../commands/_io.ts";

const HANG_MS = 20_000;

/** Runs `fn`, which must throw an InputError matching `re`, within HANG_MS. */
function refuses(fn: () => unknown, re: RegExp) {
  const t0 = performance.now();
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.match(e.message, re);
    return true;
  });
  const ms = performance.now() - t0;
  assert.ok(ms < HANG_MS, `took ${Math.round(ms)} ms`);
}

// ca hash reads one whole file (16 MiB at most); token list reads streams document by
// document, so there the bound is 16 MiB per document (docs/hardening.md).
Deno.test("CLI refuses a 17 MiB file and a 17 MiB document on stdin with a clear message", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const big = path.join(dir, "big.yaml");
    fs.writeFileSync(big, Buffer.alloc(17 * 1024 * 1024, 0x61));
    const [file, stdin, pem] = await Promise.all([
      runCli(["token", "list", big]),
      runCli(["token", "list", "-"], { stdin: new Uint8Array(17 * 1024 * 1024).fill(0x20) }),
      runCli(["ca", "hash", big]),
    ]);
    for (const r of [file, pem]) {
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
    }
    assert.equal(pem.stderr, `error: ${big}: file larger than ${MAX_INPUT_BYTES} bytes\n`);
    assert.equal(
      file.stderr,
      `error: ${big}: document 1 larger than ${MAX_INPUT_BYTES} bytes\n`,
    );
    assert.equal(stdin.code, 1);
    assert.equal(
      stdin.stderr,
      `error: stdin: document 1 larger than ${MAX_INPUT_BYTES} bytes\n`,
    );
  } finally {
    cleanup();
  }
});

Deno.test("readInputs() bounds endless devices, file counts and total bytes", () => {
  // /dev/zero reports size 0 and never ends: the read itself is bounded.
  refuses(() => readInputs(["/dev/zero"]), /\/dev\/zero: input larger than 16777216 bytes/);
  refuses(() => readInputs(["/dev/urandom"]), /\/dev\/urandom: input larger than 16777216 bytes/);
  assert.equal(readInputs(["/dev/null"])[0]!.bytes.length, 0);
  const { dir, cleanup } = tempDir();
  try {
    const many = path.join(dir, "many");
    fs.mkdirSync(many);
    for (let i = 0; i <= MAX_INPUT_FILES; i++) fs.writeFileSync(path.join(many, `f${i}`), "");
    refuses(() => readInputs([many]), /many: more than 10000 files to read/);
    const big = path.join(dir, "big");
    fs.mkdirSync(big);
    for (let i = 0; i < 5; i++) {
      fs.writeFileSync(path.join(big, `f${i}`), Buffer.alloc(MAX_INPUT_BYTES, 0x20));
    }
    refuses(() => readInputs([big]), /inputs larger than 67108864 bytes in all/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI bounds every --count", async () => {
  const runs = await Promise.all([
    runCli(["token", "generate", "--count", "100001"]),
    runCli(["token", "generate", "--count", "99999999999999999999999"]),
    runCli(["token", "create", "--count", "100001"]),
    runCli(["token", "create", "--count", "1e9"]),
  ]);
  for (const r of runs) {
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^error: --count must be a whole number from 1 to 100000, got "[^"]+"\n$/,
    );
  }
});

const BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n" +
  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
  "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
  "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n" +
  "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\nkind: Secret\n";

Deno.test("parseManifests() refuses alias bombs, recursive aliases, deep nesting and document floods quickly", () => {
  refuses(() => parseManifests(BOMB, "bomb.yaml"), /^bomb\.yaml: document 1: .*alias/i);
  refuses(() => parseManifests("a: &a [*a]\n", "loop.yaml"), /^loop\.yaml: /);
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  refuses(
    () => parseManifests(deep, "deep.json"),
    new RegExp(`nested more than ${MAX_DEPTH} levels`),
  );
  refuses(() => parseManifests("a: " + "{".repeat(1_000_000), "deep.yaml"), /nested more than/);
  let block = "kind: Secret\n";
  for (let i = 0; i < 300; i++) block += " ".repeat(i * 2) + "k:\n";
  refuses(() => parseManifests(block + " ".repeat(600) + "v\n", "indent.yaml"), /indent\.yaml: /);
  refuses(
    () => parseManifests("---\n".repeat(MAX_OBJECTS + 10), "docs.yaml"),
    /more than 100000 documents/,
  );
  const list = JSON.stringify({
    kind: "List",
    items: Array.from({ length: MAX_OBJECTS + 1 }, () => ({ kind: "Secret" })),
  });
  refuses(() => parseManifests(list, "list.json"), /more than 100000 objects/);
  // Error-dense YAML: one error per byte used to cost time per error times line length;
  // now parsing stops at the first error.
  refuses(
    () => parseManifests('"'.repeat(200_000), "quotes.yaml"),
    /^quotes\.yaml: document 1 is not valid YAML: .* at line 1, column 3$/,
  );
  refuses(
    () => parseManifests("kind: A\n" + "}\n".repeat(2_000_000), "close.yaml"),
    /^close\.yaml: document 1 is not valid YAML: .* at line 2, column 1$/,
  );
});

Deno.test("CLI refuses a YAML alias bomb and deep nesting with one line", async () => {
  const { dir, cleanup } = tempDir();
  try {
    fs.writeFileSync(path.join(dir, "bomb.yaml"), BOMB);
    fs.writeFileSync(path.join(dir, "deep.yaml"), "kind: Secret\ndata: " + "[".repeat(500_000));
    const [bomb, deep] = await Promise.all([
      runCli(["token", "list", "bomb.yaml"], { cwd: dir }),
      runCli(["token", "list", "deep.yaml"], { cwd: dir }),
    ]);
    assert.equal(bomb.code, 1);
    assert.match(bomb.stderr, /^error: bomb\.yaml: document 1: .*alias.*\n$/i);
    assert.equal(deep.code, 1);
    assert.match(deep.stderr, /^error: deep\.yaml: nested more than 256 levels deep\n$/);
  } finally {
    cleanup();
  }
});

Deno.test("decodePem() stays linear on floods of BEGIN lines, END lines and huge labels", () => {
  // Go's pem.Decode skips what does not parse; each flood must finish fast and find nothing.
  const cases: [string, string, number][] = [
    ["BEGIN flood", "-----BEGIN CERTIFICATE-----\n".repeat(200_000), 0],
    ["END flood", "-----BEGIN CERTIFICATE-----\nAAAA\n" + "-----END x".repeat(300_000), 0],
    [
      "huge label, wrong END",
      `-----BEGIN ${"A".repeat(1_000_000)}-----\nAAAA\n-----END B-----\n`,
      0,
    ],
    [
      "huge label",
      `-----BEGIN ${"A".repeat(1_000_000)}-----\nAAAA\n-----END ${"A".repeat(1_000_000)}-----\n`,
      1,
    ],
    ["mismatched pairs", "-----BEGIN A-----\n\n-----END B-----\n".repeat(100_000), 0],
  ];
  for (const [what, text, blocks] of cases) {
    const t0 = performance.now();
    assert.equal(decodePem(text, "flood.pem").length, blocks, what);
    assert.ok(performance.now() - t0 < HANG_MS, what);
  }
});

Deno.test("parseDuration() and messages stay bounded on huge values", () => {
  refuses(
    () => parseDuration("9".repeat(1_000_000) + "h"),
    /^invalid duration "9{64}"… \(1000001 chars\)$/,
  );
  refuses(() => parseDuration("1h".repeat(500_000) + "x"), /^invalid duration /);
});

Deno.test("formatRfc3339() writes years past 9999 as Go does and refuses an out-of-range date", async () => {
  const { formatRfc3339 } = await import("../../lib/go/time.ts");
  assert.equal(formatRfc3339(new Date(Date.UTC(10292, 3, 9, 23))), "10292-04-09T23:00:00Z");
  assert.equal(formatRfc3339(new Date(Date.UTC(9999, 11, 31, 23, 59, 59))), "9999-12-31T23:59:59Z");
  assert.throws(
    () => formatRfc3339(new Date(8.64e15 + 1)),
    (e: unknown) => e instanceof InputError,
  );
});

Deno.test("oneLine() stays linear on long runs of blanks and keeps its one-line shape", async () => {
  const { oneLine } = await import("../../lib/base/errors.ts");
  const t0 = performance.now();
  const line = oneLine(new Error("a" + " ".repeat(1_000_000) + "b"));
  assert.ok(performance.now() - t0 < HANG_MS);
  assert.match(line, /^a {1999}… \(\d+ more chars\)$/);
  // Line breaks inside a message are escaped, never a second line.
  assert.equal(oneLine(new Error("  a \n \r\n b\nc  ")), "  a \\n \\r\\n b\\nc  ");
  assert.equal(oneLine(new Error("x\n\n\ny")), "x\\n\\n\\ny");
  assert.equal(oneLine("plain"), "plain");
});

Deno.test("parseManifests() withholds what the YAML parser quotes (an alias or tag where a secret value goes), keeping where it is", () => {
  for (
    const [text, want] of [
      [
        "stringData:\n  password: *hunter2\n",
        /unidentified alias "<withheld>" at line 2, column 14$/,
      ],
      ["data:\n  token: !s3cr3t x\n", /unknown scalar tag !<withheld> at line 2, column 10$/],
    ] as const
  ) {
    try {
      parseManifests(text, "secret.yaml");
      assert.fail("parsed");
    } catch (e) {
      assert.ok(e instanceof InputError);
      assert.match(e.message, want);
      assert.doesNotMatch(e.message, /hunter2|s3cr3t/);
    }
  }
});
