/**
 * progress(): nothing without a terminal, nothing in the first second, then
 * count and rate at most every 200 ms, erased at the end.
 */

import assert from "node:assert/strict";
import { progress } from "../../commands/_progress.ts";
import { runCli, tempDir } from "../_cli.ts";
import * as fs from "node:fs";
import * as path from "node:path";

Deno.test("progress() draws count and rate after a second, at most every 200 ms, and erases", () => {
  let now = 0;
  const drawn: string[] = [];
  const p = progress({ progress: (s) => drawn.push(s) }, "token list", () => now);
  for (let i = 0; i < 10; i++) {
    now += 90;
    p.tick(1000);
  }
  assert.deepEqual(drawn, []); // 900 ms: not yet
  now = 1000;
  p.tick(1000);
  assert.deepEqual(drawn, ["token list: 11000 objects, 11000/s"]);
  now = 1100;
  p.tick(); // within 200 ms of the last draw
  assert.equal(drawn.length, 1);
  now = 2000;
  p.tick(999);
  assert.equal(drawn.at(-1), "token list: 12000 objects, 6000/s");
  p.done();
  assert.equal(drawn.at(-1), "");
  assert.equal(drawn.length, 3);
});

Deno.test("progress() is silent when stderr is not a terminal, and a quick run erases nothing", () => {
  let now = 0;
  const p = progress({}, "x", () => now);
  now = 5000;
  p.tick(5);
  p.done();
  const drawn: string[] = [];
  const q = progress({ progress: (s) => drawn.push(s) }, "x", () => now);
  q.tick();
  q.done();
  assert.deepEqual(drawn, []);
});

Deno.test("CLI token list over a pipe shows no progress on stderr", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = path.join(dir, "s.yaml");
    const created = await runCli(["token", "create", "--count", "3000"]);
    assert.equal(created.code, 0, created.stderr);
    fs.writeFileSync(file, created.stdout);
    const r = await runCli(["token", "list", file]);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, "");
  } finally {
    cleanup();
  }
});
