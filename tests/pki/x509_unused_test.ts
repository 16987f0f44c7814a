/**
 * Issue 13: `@peculiar/x509` (with reflect-metadata and tsyringe) is the
 * heaviest module joinkit had, and nothing but tests needs it now (they load it
 * through tests/_x509.ts as a second implementation to compare with). No module
 * of the program imports it, statically or with `import()`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath } from "../_cli.ts";

/** Every import specifier of a source text (static, re-export and `import()`). */
function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
  for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

function sources(dir: string): string[] {
  return fs.readdirSync(repoPath(dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(dir, f));
}

const HEAVY = (s: string) =>
  /(^|\/)_?x509\.ts$/.test(s) || s === "@peculiar/x509" || s.startsWith("npm:@peculiar/x509") ||
  s === "reflect-metadata";

Deno.test("lib/ and commands/ import neither tests/_x509.ts nor @peculiar/x509 (only tests do)", () => {
  // The scan sees the library where it is imported: _x509.ts itself, and a test.
  assert.ok(importSpecifiers(fs.readFileSync(repoPath("tests/_x509.ts"), "utf8")).some(HEAVY));
  const test = fs.readFileSync(repoPath("tests/pki/ecdsa_signature_test.ts"), "utf8");
  assert.ok(importSpecifiers(test).some(HEAVY));
  const files = [...sources("lib"), ...sources("commands"), "cli.ts", "main.ts"];
  assert.ok(files.length > 50, String(files.length));
  const found = files.flatMap((f) =>
    importSpecifiers(fs.readFileSync(repoPath(f), "utf8")).filter(HEAVY).map((s) => `${f}: ${s}`)
  );
  assert.deepEqual(found, []);
});
