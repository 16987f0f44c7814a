import assert from "node:assert/strict";
import { generateToken, parseToken, TOKEN_PATTERN } from "../../lib/tokens/token.ts";
import { randomString } from "../../lib/base/random.ts";
import { UsageError } from "../../lib/base/errors.ts";
import { runCli } from "../_cli.ts";

Deno.test("generateToken() matches the bootstrap token pattern", () => {
  for (let i = 0; i < 200; i++) assert.match(generateToken(), TOKEN_PATTERN);
});

Deno.test("randomString() rejects bytes outside the masked range instead of folding them", () => {
  // Bytes 36..63 mask to out-of-range values and must be skipped, not wrapped.
  const bytes = [36, 63, 0, 99, 35, 64 + 10];
  let i = 0;
  const random = (n: number) => Uint8Array.from({ length: n }, () => bytes[i++ % bytes.length]!);
  // 36&63=36 skip, 63 skip, 0 -> '0', 99&63=35 -> 'z', 35 -> 'z', 74&63=10 -> 'a'
  assert.equal(randomString(4, "0123456789abcdefghijklmnopqrstuvwxyz", random), "0zza");
});

Deno.test("randomString() is uniform over the 36 token characters", () => {
  const counts = new Map<string, number>();
  const text = randomString(36_000, "0123456789abcdefghijklmnopqrstuvwxyz");
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.equal(counts.size, 36);
  // chi-square with 35 degrees of freedom; p < 1e-6 above ~90
  let chi = 0;
  for (const n of counts.values()) chi += (n - 1000) ** 2 / 1000;
  assert.ok(chi < 90, `chi-square ${chi} too high`);
});

Deno.test("parseToken() splits valid tokens and rejects malformed ones", () => {
  assert.deepEqual(parseToken("abcdef.0123456789abcdef"), {
    id: "abcdef",
    secret: "0123456789abcdef",
  });
  for (
    const bad of [
      "ABCDEF.0123456789abcdef",
      "abcdef:0123456789abcdef",
      "abcde.0123456789abcdef",
      "",
    ]
  ) {
    assert.throws(
      () => parseToken(bad),
      (e: Error) =>
        e instanceof UsageError &&
        e.message === "invalid --token: must match [a-z0-9]{6}.[a-z0-9]{16} (value not shown)",
    );
  }
});

Deno.test("CLI token generate --count prints that many distinct tokens", async () => {
  const r = await runCli(["token", "generate", "--count", "5"]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 5);
  assert.equal(new Set(lines).size, 5);
  for (const l of lines) assert.match(l, TOKEN_PATTERN);
});

Deno.test("CLI token generate rejects bad flags with exit 2 and one line", async () => {
  for (const args of [["--count", "0"], ["--count", "x"], ["--bogus"], ["extra"]]) {
    const r = await runCli(["token", "generate", ...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^error: .+\n$/);
  }
});
