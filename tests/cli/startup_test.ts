/**
 * Start-up rule: `token generate`, `ca hash` and `join-command` must not load
 * `yaml` or `@peculiar/x509` (nor asn1 / reflect-metadata) through static
 * imports; rare inputs may load them lazily with `await import(...)`.
 */
import assert from "node:assert/strict";
import { staticGraph } from "../_cli.ts";

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
  assert.ok(staticGraph("tests/_x509.ts").some((s) => s.includes("peculiar")));
});
