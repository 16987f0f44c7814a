/**
 * What scripts/build.ts does to the snapshot beyond initialising modules: the
 * ASCII-only bundle (asciiOnly) and the build-time warm-up
 * (scripts/snapshot_warmup.ts), which must leave nothing of its run behind
 * that changes a later run's output.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { asciiOnly } from "../../scripts/build.ts";
import { WARM_CA_PEM, WARM_CLOCK, WARM_RUNS, warmUp } from "../../scripts/snapshot_warmup.ts";
import { repoPath, runCli, runInProcess, tempDir } from "../_cli.ts";

Deno.test("asciiOnly() writes every character beyond ASCII as \\uXXXX and the code means the same", () => {
  const src = [
    'const café = "é€";',
    "const re = /^(\\d*)([a-zµμ]+)$/;",
    "const t = `Ω ${café} 😀`;",
    'return JSON.stringify([café, re.test("12µs"), re.test("3μs"), re.exec("4ms")?.[2], t, "😀".length]);',
  ].join("\n");
  const out = asciiOnly(src);
  assert.match(out, /^[\x20-\x7e\n]*$/);
  assert.ok(out.includes("[a-z\\u00b5\\u03bc]"), out);
  assert.equal(new Function(out)(), new Function(src)());
  assert.equal(new Function(src)(), JSON.stringify(["é€", true, true, "ms", "Ω é€ 😀", 2]));
  assert.equal(asciiOnly("plain ascii\n"), "plain ascii\n");
});

Deno.test("WARM_RUNS exit 0 and print the same twice and under any clock (no clock, no randomness)", async () => {
  for (const argv of WARM_RUNS) {
    const a = await runInProcess(argv, { clock: () => new Date(WARM_CLOCK) });
    const b = await runInProcess(argv, { clock: () => new Date("2031-06-01T12:00:00Z") });
    const c = await runInProcess(argv);
    assert.equal(a.code, 0, `${argv.join(" ")}: ${a.stderr}`);
    assert.ok(a.stdout.length > 0, argv.join(" "));
    assert.deepEqual([b.code, b.stdout, b.stderr], [a.code, a.stdout, a.stderr], argv.join(" "));
    assert.deepEqual([c.code, c.stdout, c.stderr], [a.code, a.stdout, a.stderr], argv.join(" "));
  }
});

/** kubeadm's pin of each certificate of a PEM text, computed by openssl; undefined without openssl. */
function opensslPins(pem: string): string[] | undefined {
  if (spawnSync("openssl", ["version"]).status !== 0) return undefined;
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/g)!;
  return blocks.map((block) => {
    const pub = execFileSync("openssl", ["x509", "-pubkey", "-noout"], { input: block });
    const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "der"], { input: pub });
    const hex = execFileSync("openssl", ["dgst", "-sha256", "-r"], { input: der }).toString();
    return `sha256:${hex.split(" ")[0]}`;
  });
}

Deno.test("warmUp() pins both sample CAs as openssl does, with both readers, the same every time", async (t) => {
  const want = opensslPins(WARM_CA_PEM);
  const first = await warmUp();
  assert.equal(first.length, 4);
  assert.deepEqual(first.slice(2), first.slice(0, 2), "ca hash's and join-command's readers agree");
  assert.deepEqual(await warmUp(), first);
  if (!want) {
    await t.step({
      name: "openssl cross-check (openssl not installed: skipped)",
      ignore: true,
      fn() {},
    });
    return;
  }
  assert.equal(want.length, 2);
  assert.deepEqual(first.slice(0, 2), want);
});

Deno.test("warmUp() leaves nothing that changes a later ca hash or join-command", async () => {
  await warmUp();
  const { dir, cleanup } = tempDir();
  try {
    const fixture = repoPath("tests", "fixtures", "pin", "ca-cert.pem");
    const other = repoPath("tests", "fixtures", "discovery", "certs-pem", "bundle-a-b.pem");
    const pem = fs.readFileSync(fixture, "utf8") + fs.readFileSync(other, "utf8");
    const file = path.join(dir, "ca.crt");
    fs.writeFileSync(file, pem);
    const want = opensslPins(pem);
    const hash = await runInProcess(["ca", "hash", file]);
    assert.equal(hash.code, 0, hash.stderr);
    const pins = hash.stdout.trim().split("\n");
    assert.equal(pins.length, 3);
    if (want) assert.deepEqual(pins, want);
    const join = await runInProcess([
      "join-command",
      "--server",
      "10.0.0.1:6443",
      "--token",
      "abcdef.0123456789abcdef",
      "--ca",
      fixture,
    ]);
    assert.equal(join.code, 0, join.stderr);
    assert.ok(join.stdout.includes(`--discovery-token-ca-cert-hash ${pins[0]}`), join.stdout);
    assert.ok(!join.stdout.includes(`${(await warmUp())[0]}`), "no sample pin leaks into output");
  } finally {
    cleanup();
  }
});

Deno.test("CLI token generate draws afresh in every process (nothing drawn when the snapshot was built)", async () => {
  const a = await runCli(["token", "generate", "--count", "4"]);
  const b = await runCli(["token", "generate", "--count", "4"]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const first = a.stdout.trim().split("\n");
  const second = b.stdout.trim().split("\n");
  assert.equal(first.length, 4);
  assert.equal(second.length, 4);
  assert.deepEqual(first.filter((t) => second.includes(t)), []);
});
