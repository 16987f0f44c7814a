/**
 * Start-up rule: `token generate`, `ca hash` and `join-command` must not load
 * `yaml` or `@peculiar/x509` (nor asn1 / reflect-metadata) through static
 * imports; rare inputs may load them lazily with `await import(...)`.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import process from "node:process";
import { repoPath } from "../_cli.ts";

/** Modules reachable from `entry` through static imports only (`deno info --json`). */
function staticGraph(entry: string): string[] {
  const info = JSON.parse(
    execFileSync(process.execPath, ["info", "--json", repoPath(entry)], {
      env: { ...process.env, NO_COLOR: "1" },
    }).toString(),
  ) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  };
  const bySpec = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [info.modules.find((m) => m.specifier.endsWith(entry))!.specifier];
  while (todo.length) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of bySpec.get(s)?.dependencies ?? []) {
      if (!d.isDynamic && d.code) todo.push(d.code.specifier);
    }
  }
  return [...seen];
}

const HEAVY = /\/yaml\/|manifest\.ts|peculiar|asn1|x509\.ts|reflect-metadata/;

for (
  const entry of [
    "main.ts",
    "commands/token_generate.ts",
    "commands/ca_hash.ts",
    "commands/join_command.ts",
    "lib/pki/pin.ts",
    "lib/pki/certsource.ts",
    "lib/pki/der.ts",
    "lib/discovery/join_command.ts",
  ]
) {
  Deno.test(`${entry}: static imports reach neither yaml nor @peculiar/x509`, () => {
    const graph = staticGraph(entry);
    assert.ok(graph.length > 1, graph.join("\n"));
    assert.deepEqual(graph.filter((s) => HEAVY.test(s)), [], graph.join("\n"));
  });
}

Deno.test("staticGraph() finds yaml and @peculiar/x509 where they are imported", () => {
  // The check above can fail: the same walk finds the heavy modules from their importers.
  assert.ok(staticGraph("lib/k8s/manifest.ts").some((s) => s.includes("/yaml/")));
  assert.ok(staticGraph("lib/pki/x509.ts").some((s) => s.includes("peculiar")));
});
