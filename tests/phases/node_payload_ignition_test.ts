/**
 * The Ignition v3 validator node-payload runs over its Ignition payloads
 * (lib/phases/ignition_validate.ts), against Ignition itself: the verdicts
 * of `ignition-validate` (Debian's ignition 2.14.0) over a table of configs
 * are in tests/fixtures/node_payload/ignition_validate_verdicts.json; when
 * `ignition-validate` is on PATH (or $IGNITION_VALIDATE names it) the test
 * re-runs it. Plus coreos/ignition's own vectors (config/v3_0/types
 * path_test.go, mode_test.go, storage_test.go) and Go's path.Clean cases.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { repoPath, tempDir } from "../_cli.ts";
import { dataUrlBytes, validateIgnitionConfig } from "../../lib/phases/ignition_validate.ts";
import { goPathClean } from "../../lib/phases/node_payload_paths.ts";

interface Row {
  name: string;
  config: unknown;
  exit: number;
  verdict: string[];
  joinkitStricter?: string[];
}
const FIXTURE = JSON.parse(
  fs.readFileSync(
    repoPath("tests/fixtures/node_payload/ignition_validate_verdicts.json"),
    "utf8",
  ),
) as { judge: string; cases: Row[] };

/** Our report in the fixture's line form, sorted. */
function ours(config: unknown): string[] {
  const r = validateIgnitionConfig(config);
  return [...r.errors.map((e) => `error: ${e}`), ...r.warnings.map((w) => `warning: ${w}`)].sort();
}

Deno.test(`validateIgnitionConfig() agrees with ${FIXTURE.judge} on ${FIXTURE.cases.length} configs (joinkit stricter where marked)`, () => {
  assert.ok(FIXTURE.cases.length >= 15);
  for (const row of FIXTURE.cases) {
    const want = [...row.verdict, ...(row.joinkitStricter ?? [])].sort();
    assert.deepEqual(ours(row.config), want, row.name);
    // Ignition exits 1 on an error or a warning alike; so does a non-empty report here.
    assert.equal(row.exit === 0, row.verdict.length === 0, row.name);
  }
});

function findJudge(): string | undefined {
  const candidates = [
    process.env.IGNITION_VALIDATE,
    ...(process.env.PATH ?? "").split(":").map((d) => path.join(d, "ignition-validate")),
  ];
  for (const c of candidates) {
    if (c && spawnSync(c, ["--version"], { stdio: "ignore" }).status === 0) return c;
  }
  return undefined;
}
const JUDGE = findJudge();
if (!JUDGE) {
  process.stderr.write(
    "node_payload_ignition_test: ignition-validate not found (apt package 'ignition', or $IGNITION_VALIDATE): the re-run is skipped; the fixture's verdicts still apply\n",
  );
}

Deno.test({
  name: `ignition-validate still gives the fixture's verdicts (judge re-run${
    JUDGE ? "" : "; skipped: ignition-validate not found"
  })`,
  ignore: !JUDGE,
  fn: () => {
    const t = tempDir("joinkit-ign-");
    try {
      const file = path.join(t.dir, "c.ign");
      for (const row of FIXTURE.cases) {
        fs.writeFileSync(file, JSON.stringify(row.config));
        const r = spawnSync(JUDGE!, [file], { encoding: "utf8" });
        const lines = (r.stdout + r.stderr).split("\n").filter((l) => l).map((l) =>
          l.replace(/^(error|warning) at \$\.([^,]+), line \d+ col \d+: /, "$1: $2: ")
        );
        assert.deepEqual(lines.sort(), [...row.verdict].sort(), row.name);
        assert.equal(r.status, row.exit, row.name);
      }
    } finally {
      t.cleanup();
    }
  },
});

Deno.test("validateIgnitionConfig() follows ignition's TestPathValidate, TestModeValidate and TestStorageValidate", () => {
  const file = (p: string, extra: object = {}) => ({
    ignition: { version: "3.0.0" },
    storage: { files: [{ path: p, ...extra }] },
  });
  // path_test.go
  for (
    const p of [
      "/good/path",
      "/name",
      "/this/is/a/fairly/long/path/to/a/device.",
      "/this one has spaces",
    ]
  ) {
    assert.deepEqual(validateIgnitionConfig(file(p)).errors, [], p);
  }
  assert.deepEqual(validateIgnitionConfig(file("relative/path")).errors, [
    "storage.files.0.path: path not absolute",
  ]);
  // mode_test.go
  for (const mode of [0, 0o644, 0o1755, 0o7777]) {
    assert.deepEqual(validateIgnitionConfig(file("/a", { mode })).errors, [], String(mode));
  }
  assert.deepEqual(validateIgnitionConfig(file("/a", { mode: 0o10000 })).errors, [
    "storage.files.0.mode: illegal file mode",
  ]);
  // storage_test.go
  const storage = (s: object) =>
    validateIgnitionConfig({ ignition: { version: "3.0.0" }, storage: s }).errors;
  assert.deepEqual(
    storage({
      links: [{ path: "/foo", target: "/t" }, { path: "/quux", target: "/t" }],
      files: [{ path: "/bar" }],
      directories: [{ path: "/baz" }],
    }),
    [],
  );
  assert.deepEqual(
    storage({ links: [{ path: "/foo", target: "/t" }], files: [{ path: "/foo/bar" }] }),
    [
      "storage.files.0: file path includes link in config",
    ],
  );
  assert.deepEqual(
    storage({ links: [{ path: "/foo", target: "/t" }], directories: [{ path: "/foo/bar" }] }),
    [
      "storage.directories.0: directory path includes link in config",
    ],
  );
  assert.deepEqual(
    storage({ links: [{ path: "/foo", target: "/t" }, { path: "/foo/bar", target: "/t" }] }),
    [
      "storage.links.1: link path includes link in config",
    ],
  );
  assert.deepEqual(
    storage({ links: [{ path: "/foo", target: "/t" }, { path: "/foob/bar", target: "/t" }] }),
    [],
  );
});

Deno.test("validateIgnitionConfig() reads the version as Ignition does", () => {
  const v = (version: unknown) => validateIgnitionConfig({ ignition: { version } }).errors;
  for (const ok of ["3.0.0", "3.3.0", "3.5.0"]) assert.deepEqual(v(ok), [], ok);
  assert.deepEqual(v("3.6.0"), ["ignition.version: unsupported config version"]);
  assert.deepEqual(v("2.3.0"), ["ignition.version: unsupported config version"]);
  assert.deepEqual(v("3.0"), ["ignition.version: invalid config version (couldn't parse)"]);
  assert.deepEqual(v(3), ["ignition.version: invalid config version (couldn't parse)"]);
  assert.deepEqual(validateIgnitionConfig([]).errors, ["config is not valid"]);
});

Deno.test("goPathClean() is Go's path.Clean (path_test.go cleantests)", () => {
  const rows: [string, string][] = [
    ["", "."],
    ["abc", "abc"],
    ["abc/def", "abc/def"],
    ["a/b/c", "a/b/c"],
    [".", "."],
    ["..", ".."],
    ["../..", "../.."],
    ["../../abc", "../../abc"],
    ["/abc", "/abc"],
    ["/", "/"],
    ["abc/", "abc"],
    ["abc/def/", "abc/def"],
    ["/abc/", "/abc"],
    ["abc//def//ghi", "abc/def/ghi"],
    ["//abc", "/abc"],
    ["///abc", "/abc"],
    ["//abc//", "/abc"],
    ["abc//", "abc"],
    ["abc/./def", "abc/def"],
    ["/./abc/def", "/abc/def"],
    ["abc/.", "abc"],
    ["abc/def/ghi/../jkl", "abc/def/jkl"],
    ["abc/def/../ghi/../jkl", "abc/jkl"],
    ["abc/def/..", "abc"],
    ["abc/def/../..", "."],
    ["/abc/def/../..", "/"],
    ["abc/def/../../..", ".."],
    ["/abc/def/../../..", "/"],
    ["abc/def/../../../ghi/jkl/../../../mno", "../../mno"],
    ["abc/./../def", "def"],
    ["abc//./../def", "def"],
    ["abc/../../././../def", "../../def"],
  ];
  for (const [p, want] of rows) assert.equal(goPathClean(p), want, p);
});

Deno.test("dataUrlBytes() decodes what the transpiler's escaping writes, and refuses bad escapes", () => {
  assert.deepEqual(dataUrlBytes("data:,a%20b%0A"), new TextEncoder().encode("a b\n"));
  assert.deepEqual(dataUrlBytes("data:;base64,Zm9vCg=="), new TextEncoder().encode("foo\n"));
  assert.deepEqual(dataUrlBytes("data:,"), new Uint8Array());
  assert.equal(dataUrlBytes("data:,%zz"), undefined);
  assert.equal(dataUrlBytes("data:,%2"), undefined);
  assert.equal(dataUrlBytes("data:abc"), undefined);
  assert.equal(dataUrlBytes("https://x"), undefined);
});
