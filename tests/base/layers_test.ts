import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath } from "../_cli.ts";

/** lib/'s layers, lowest first: a module may import from its own layer or a lower one. */
const LAYERS = [
  "base",
  "go",
  "k8s",
  "pki",
  "gitops",
  "tokens",
  "discovery",
  "kubelet",
  "kubeadm",
  "phases",
];

const LIB = repoPath("lib");

function libFiles(dir = LIB): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? libFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** Relative specifiers of every static import/export-from and dynamic import in `text`. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']/g)) {
    out.push(m[1]!);
  }
  for (const m of text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]!);
  for (const m of text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)) out.push(m[1]!);
  return out.filter((s) => s.startsWith("."));
}

/** The layer folder of a path under lib/, or undefined for a file outside one. */
function layerOf(file: string): string | undefined {
  const rel = path.relative(LIB, file).split(path.sep);
  return rel.length > 1 ? rel[0] : undefined;
}

Deno.test("lib/ layers: every file lives in a known layer folder", () => {
  for (const f of libFiles()) {
    const layer = layerOf(f);
    assert.ok(layer !== undefined && LAYERS.includes(layer), path.relative(LIB, f));
  }
});

Deno.test("lib/ layers: no import runs up a layer (base < go < k8s < pki < gitops < tokens < discovery < kubelet < kubeadm < phases)", () => {
  const up: string[] = [];
  for (const f of libFiles()) {
    const from = LAYERS.indexOf(layerOf(f)!);
    for (const spec of specifiers(fs.readFileSync(f, "utf8"))) {
      const target = path.resolve(path.dirname(f), spec);
      const rel = path.relative(LIB, target);
      assert.ok(!rel.startsWith(".."), `${path.relative(LIB, f)} imports ${spec}, outside lib/`);
      const to = LAYERS.indexOf(layerOf(target)!);
      if (to > from) up.push(`${path.relative(LIB, f)} -> ${rel}`);
    }
  }
  assert.deepEqual(up, []);
});

Deno.test("lib/ has no re-export glue: every name has one address", () => {
  const glue: string[] = [];
  for (const f of libFiles()) {
    for (
      const m of fs.readFileSync(f, "utf8").matchAll(
        /^export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\s*["'][^"']+["']/gm,
      )
    ) {
      glue.push(`${path.relative(LIB, f)}: ${m[0].replace(/\s+/g, " ")}`);
    }
  }
  assert.deepEqual(glue, []);
});

Deno.test("layers test: its import scanner sees static, type-only, re-export and dynamic forms", () => {
  const text = `import { a } from "../pki/x.ts";
import type { B } from "./y.ts";
export * from "../tokens/z.ts";
import "reflect-metadata";
const m = await import("../k8s/w.ts");
import {
  c,
} from "../go/v.ts";`;
  assert.deepEqual(specifiers(text).sort(), [
    "../go/v.ts",
    "../k8s/w.ts",
    "../pki/x.ts",
    "../tokens/z.ts",
    "./y.ts",
  ]);
});

/** The entry points at the top of the repository (cli.ts, main.ts, mod.ts …). */
function topFiles(): string[] {
  const root = repoPath(".");
  return fs.readdirSync(root).filter((f) => f.endsWith(".ts")).map((f) => path.join(root, f));
}

Deno.test("no re-export glue in the top-level files either, mod.ts (the package's one public face) excepted", () => {
  const glue: string[] = [];
  for (const f of topFiles()) {
    if (path.basename(f) === "mod.ts") continue;
    for (
      const m of fs.readFileSync(f, "utf8").matchAll(
        /^export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\s*["'][^"']+["']/gm,
      )
    ) {
      glue.push(`${path.relative(repoPath("."), f)}: ${m[0].replace(/\s+/g, " ")}`);
    }
  }
  assert.deepEqual(glue, []);
});

Deno.test("mod.ts sits on lib/ only: never on cli.ts, commands/ or main.ts", () => {
  const specs = specifiers(fs.readFileSync(repoPath("mod.ts"), "utf8"));
  assert.ok(specs.length > 0);
  // Its @examples import "./mod.ts" itself.
  assert.deepEqual(specs.filter((s) => !s.startsWith("./lib/") && s !== "./mod.ts"), []);
});
