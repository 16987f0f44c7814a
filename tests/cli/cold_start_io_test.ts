/**
 * Cold start under deno run (issue 13): what `ca hash` and `join-command` load
 * before they read their input. Each node: module here costs a few to ~15 ms
 * of Deno's start-up (node:fs pulls Deno's web streams; node:crypto pulls
 * node:module, workers and the key machinery).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { repoPath, staticGraph } from "../_cli.ts";

const HEAVY = /^node:(fs|v8|vm|crypto|module|stream)$/;

Deno.test("ca hash and join-command statically import no node:fs, v8, vm, crypto or _io.ts's streamed reads", () => {
  for (const entry of ["commands/ca_hash.ts", "commands/join_command.ts"]) {
    const graph = staticGraph(entry);
    assert.ok(graph.some((s) => s.endsWith("/commands/_read.ts")), `${entry} reads with _read.ts`);
    assert.deepEqual(graph.filter((s) => HEAVY.test(s)), [], entry);
    assert.deepEqual(
      graph.filter((s) => /\/commands\/_io\.ts$|\/json_stream\.ts$|\/_memory\.ts$/.test(s)),
      [],
      entry,
    );
  }
});

Deno.test("staticGraph() sees _io.ts and a node: module where ca create reaches them, so the check above can fail", () => {
  // ca create writes files through _io.ts and makes keys with node:crypto (lib/pki/keys.ts).
  const graph = staticGraph("commands/ca_create.ts");
  assert.ok(graph.some((s) => s.endsWith("/commands/_io.ts")));
  assert.ok(graph.some((s) => HEAVY.test(s)), graph.join("\n"));
});

Deno.test("_read.ts, _io.ts and _memory.ts load node:fs, node:v8 and node:vm only on first use", () => {
  for (const file of ["commands/_read.ts", "commands/_io.ts", "commands/_memory.ts"]) {
    const text = fs.readFileSync(repoPath(file), "utf8");
    assert.doesNotMatch(text, /^import (?!type)[^;]*"node:(fs|v8|vm)";/m, file);
  }
});
