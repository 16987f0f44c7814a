/**
 * The npm package as a user gets it: `npm pack` of this checkout (its
 * `prepack` builds dist/npm), `npm install` of the tarball into an empty
 * project, then the `joinkit` bin through `npx` on plain Node, the library
 * from a Node ESM script, and the installed package from Deno (by its name
 * and by file). The tarball is made once; npm installs the dependencies from
 * its cache (filled by the repository's `npm ci`), so no network is needed.
 */

import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { repoPath, tempDir } from "./_cli.ts";

const HAVE_NPM = spawnSync("npm", ["--version"], { stdio: "ignore" }).status === 0;

function sh(cmd: string, args: string[], cwd: string, input?: string): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    input,
    timeout: 180_000,
    env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false" },
  });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return r;
}

const pkg = JSON.parse(fs.readFileSync(repoPath("package.json"), "utf8"));

Deno.test("package.json is a public package: bin, exports with types, files, engines", () => {
  assert.equal(pkg.private, undefined);
  assert.equal(pkg.name, "joinkit");
  assert.equal(pkg.type, "module");
  assert.deepEqual(pkg.bin, { joinkit: "dist/npm/joinkit.js" });
  assert.deepEqual(pkg.exports["."], {
    types: "./dist/npm/mod.d.ts",
    default: "./dist/npm/mod.js",
  });
  assert.match(pkg.engines.node, /^>=\d+\.\d+\.\d+$/);
  // What a user installs must not pull the build's tools: deno, esbuild, typescript are dev only.
  for (const dev of ["deno", "esbuild", "postject", "typescript", "dts-bundle-generator"]) {
    assert.equal(pkg.dependencies[dev], undefined, dev);
    assert.ok(pkg.devDependencies[dev], dev);
  }
  const deno = JSON.parse(fs.readFileSync(repoPath("deno.json"), "utf8"));
  assert.equal(deno.version, pkg.version);
  assert.deepEqual(deno.exports, { ".": "./mod.ts" });
});

Deno.test({
  name:
    "npm package: npm pack installs into an empty project; npx joinkit, Node ESM and Deno use it" +
    (HAVE_NPM ? "" : " (skipped: npm not on PATH)"),
  ignore: !HAVE_NPM,
  async fn(t) {
    const { dir, cleanup } = tempDir();
    try {
      const packed = sh(
        "npm",
        ["pack", "--json", "--pack-destination", dir, "--loglevel=error"],
        repoPath("."),
      );
      // `--json` prints the prepack's output first; the report is the JSON array at the end.
      const report = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf("\n[") + 1))[0];
      const files: string[] = report.files.map((f: { path: string }) => f.path).sort();

      await t.step(
        "the tarball holds only the bundles, their types, README, LICENSE and package.json",
        () => {
          const outside = files.filter((f) =>
            !/^dist\/npm\/(joinkit\.js|main\.js|mod\.js|mod\.d\.ts|chunks\/[\w-]+\.js)$/.test(f) &&
            !["README.md", "LICENSE", "package.json"].includes(f)
          );
          assert.deepEqual(outside, []);
          for (
            const f of [
              "dist/npm/joinkit.js",
              "dist/npm/main.js",
              "dist/npm/mod.js",
              "dist/npm/mod.d.ts",
              "LICENSE",
            ]
          ) {
            assert.ok(files.includes(f), f);
          }
          assert.ok(report.size < 1_000_000, `tarball ${report.size} bytes`);
        },
      );

      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      fs.writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify({ name: "user-project", version: "1.0.0", private: true, type: "module" }),
      );
      sh("npm", [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        path.join(dir, report.filename),
      ], project);

      await t.step("npx joinkit runs the CLI on plain Node", () => {
        const tok = sh(
          "npx",
          ["--no-install", "joinkit", "token", "generate", "--count", "3"],
          project,
        );
        assert.match(tok.stdout, /^([a-z0-9]{6}\.[a-z0-9]{16}\n){3}$/);
        const v = JSON.parse(
          sh("npx", ["--no-install", "joinkit", "version", "-o", "json"], project)
            .stdout,
        );
        assert.equal(v.version, pkg.version);
        assert.equal(v.runtime.name, "node");
        assert.equal(
          v.runtime.version,
          sh("node", ["-p", "process.versions.node"], project).stdout.trim(),
        );
        // A bad flag: the documented usage error, one line, exit 2, on Node as under Deno.
        const bad = spawnSync("npx", [
          "--no-install",
          "joinkit",
          "token",
          "generate",
          "--count",
          "0",
        ], {
          cwd: project,
          encoding: "utf8",
        });
        assert.equal(bad.status, 2);
        assert.equal(bad.stderr.trim().split("\n").length, 1);
      });

      await t.step("the library imports from a Node ESM script, with typed errors", () => {
        fs.writeFileSync(
          path.join(project, "use.mjs"),
          `import * as jk from "joinkit";
const ca = await jk.createCa({ keyType: "ecdsa-p256", now: new Date("2026-01-01T00:00:00Z") });
const token = jk.generateToken();
const cm = await jk.clusterInfo({ server: "https://10.0.0.1:6443", ca: ca.certificate, tokens: [token] });
const ok = await jk.verifyClusterInfo({ clusterInfo: cm, token, caCertHashes: await jk.caPin(ca.certificate) });
let refused;
try { jk.tokenSecret("nope"); } catch (e) { refused = [e.name, e instanceof jk.JoinkitError, e.reason]; }
console.log(JSON.stringify({ exports: Object.keys(jk).sort(), server: ok.server, refused }));
`,
        );
        const out = JSON.parse(sh("node", ["use.mjs"], project).stdout);
        assert.equal(out.server, "https://10.0.0.1:6443");
        assert.deepEqual(out.refused, [
          "InvalidInputError",
          true,
          "the bootstrap token must be of the form [a-z0-9]{6}.[a-z0-9]{16} (value not shown)",
        ]);
        for (
          const name of [
            "bootstrapKubeconfig",
            "caPin",
            "clusterInfo",
            "generateToken",
            "JoinkitError",
            "tokenSecret",
            "verifyCertificate",
          ]
        ) {
          assert.ok(out.exports.includes(name), name);
        }
      });

      await t.step("Deno imports the installed package by name (type-checked) and by file", () => {
        fs.writeFileSync(
          path.join(project, "use_deno.ts"),
          `import { type CreatedCa, caPin, createCa, bootstrapKubeconfig, generateToken } from "joinkit";
const ca: CreatedCa = await createCa({ keyType: "ecdsa-p256" });
const pins: string[] = await caPin(ca.certificate);
const kc: string = await bootstrapKubeconfig({ server: "https://10.0.0.1:6443", ca: ca.certificate, token: generateToken() });
console.log(pins[0] === ca.pin, kc.startsWith("apiVersion: v1\\n"));
`,
        );
        fs.writeFileSync(
          path.join(project, "use_file.ts"),
          `import { tokenSecret } from "./node_modules/joinkit/dist/npm/mod.js";
console.log(JSON.stringify(tokenSecret("abcdef.0123456789abcdef", { ttl: 0 }).metadata));
`,
        );
        const deno = Deno.execPath();
        assert.equal(
          sh(deno, ["run", "-A", "--check", "use_deno.ts"], project).stdout,
          "true true\n",
        );
        assert.equal(
          sh(deno, ["run", "-A", "use_file.ts"], project).stdout,
          '{"name":"bootstrap-token-abcdef","namespace":"kube-system"}\n',
        );
      });
    } finally {
      cleanup();
    }
  },
});
