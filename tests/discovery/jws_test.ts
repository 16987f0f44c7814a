import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import { base64Url } from "../../lib/base/base64.ts";
import {
  computeDetachedSignature,
  detachedTokenIsValid,
  jwsHeader,
} from "../../lib/discovery/jws.ts";
import { repoPath } from "../_cli.ts";

const CONTENT = "Hello from the other side. I must have called a thousand times.";
const SECRET = "my voice is my passcode";
const ID = "joshua";

// cluster-bootstrap token/jws/jws_test.go, the signer controller test, and the vector derived
// from k/k discovery/token/testdata/expected-kubeconfig.yaml (reference section 4.2).
const VECTORS: { name: string; content: string; id: string; secret: string; want: string }[] = [
  {
    name: "jws_test.go content",
    content: CONTENT,
    id: ID,
    secret: SECRET,
    want: "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8",
  },
  {
    name: "jws_test.go empty content",
    content: "",
    id: ID,
    secret: SECRET,
    want: "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk",
  },
  {
    name: "jws_test.go empty secret",
    content: CONTENT,
    id: ID,
    secret: "",
    want: "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8",
  },
  {
    name: "bootstrapsigner_test.go",
    content: "payload",
    id: "abc123",
    secret: "tokenSecret",
    want: "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiYzEyMyJ9..QSxpUG7Q542CirTI2ECPSZjvBOJURUW5a7XqFpNI958",
  },
  {
    name: "expected-kubeconfig.yaml (derived)",
    content: fs.readFileSync(repoPath("tests/fixtures/discovery/expected-kubeconfig.yaml"), "utf8"),
    id: "123456",
    secret: "abcdef1234567890",
    want: "eyJhbGciOiJIUzI1NiIsImtpZCI6IjEyMzQ1NiJ9..ULkT4gQHyrWDuzDzcZQH9Ep0vBc8i1iRZXHQUF6otRo",
  },
];

Deno.test("computeDetachedSignature() matches the upstream vectors", () => {
  for (const v of VECTORS) {
    assert.equal(computeDetachedSignature(v.content, v.id, v.secret), v.want, v.name);
  }
});

Deno.test("jwsHeader() is the exact protected header go-jose writes", () => {
  assert.equal(jwsHeader("joshua"), '{"alg":"HS256","kid":"joshua"}');
  assert.equal(base64Url(jwsHeader("joshua")), "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9");
});

Deno.test("detachedTokenIsValid() accepts the right signature and rejects any change", () => {
  const good = VECTORS[0]!.want;
  assert.equal(detachedTokenIsValid(good, CONTENT, ID, SECRET), true);
  assert.equal(detachedTokenIsValid(good + "foo", CONTENT, ID, SECRET), false);
  assert.equal(detachedTokenIsValid(good, CONTENT + " ", ID, SECRET), false);
  assert.equal(detachedTokenIsValid(good, CONTENT, "joshub", SECRET), false);
  assert.equal(detachedTokenIsValid(good, CONTENT, ID, SECRET + "x"), false);
  assert.equal(detachedTokenIsValid("", CONTENT, ID, SECRET), false);
  // Same length, one character changed.
  const flipped = good.slice(0, -1) + (good.endsWith("8") ? "9" : "8");
  assert.equal(detachedTokenIsValid(flipped, CONTENT, ID, SECRET), false);
  // The key is the secret alone, never id.secret (website#56477).
  assert.notEqual(computeDetachedSignature(CONTENT, ID, `${ID}.${SECRET}`), good);
});

Deno.test("computeDetachedSignature() agrees with an independent openssl HMAC-SHA256", () => {
  const cases = [
    { content: "payload", id: "abc123", secret: "tokenSecret" },
    { content: "apiVersion: v1\nkind: Config\n", id: "abcdef", secret: "0123456789abcdef" },
    { content: "ünïcödé\r\n\t", id: "z9z9z9", secret: "aaaaaaaaaaaaaaaa" },
  ];
  for (const c of cases) {
    const header = Buffer.from(`{"alg":"HS256","kid":"${c.id}"}`).toString("base64url");
    const input = `${header}.${Buffer.from(c.content).toString("base64url")}`;
    const out = execFileSync(
      "openssl",
      ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `key:${c.secret}`, "-binary"],
      { input },
    );
    const want = `${header}..${Buffer.from(out).toString("base64url")}`;
    assert.equal(computeDetachedSignature(c.content, c.id, c.secret), want);
  }
});

Deno.test("detachedTokenIsValid() rejects a signature differing in any one character, its length, or empty", () => {
  const good = VECTORS[0]!.want;
  const other = (c: string) => (c === "A" ? "B" : "A");
  // Every position, the last one included: kills a comparison of a prefix, of the header
  // only, or one that stops early.
  for (let i = 0; i < good.length; i++) {
    const changed = good.slice(0, i) + other(good[i]!) + good.slice(i + 1);
    assert.equal(detachedTokenIsValid(changed, CONTENT, ID, SECRET), false, `position ${i}`);
  }
  // The last byte of the MAC (last base64url character), and the encoding's spare bits:
  // "…8" and "…9" decode to different bytes, a canonical-decoding compare would not see
  // a change in the unused low bits, the string compare does.
  const last = good.at(-1)!;
  const spare = good.slice(0, -1) + String.fromCharCode(last.charCodeAt(0) ^ 1);
  assert.equal(detachedTokenIsValid(spare, CONTENT, ID, SECRET), false);
  // Different lengths: kills a length-insensitive comparison (e.g. startsWith).
  for (const s of [good.slice(0, -1), good + "A", good + "=", good.slice(1), ""]) {
    assert.equal(detachedTokenIsValid(s, CONTENT, ID, SECRET), false, JSON.stringify(s));
  }
  // A different well-formed signature of the same length (another secret).
  const forged = computeDetachedSignature(CONTENT, ID, "x".repeat(SECRET.length));
  assert.equal(forged.length, good.length);
  assert.equal(detachedTokenIsValid(forged, CONTENT, ID, SECRET), false);
});

Deno.test("detachedTokenIsValid() compares with constantTimeEqual (crypto.timingSafeEqual)", () => {
  // Timing cannot be asserted reliably; the source can. Kills a mutation to === / !==.
  const jws = fs.readFileSync(repoPath("lib/discovery/jws.ts"), "utf8");
  const body = jws.slice(jws.indexOf("export function detachedTokenIsValid"));
  assert.match(body, /return constantTimeEqual\(detached, computeDetachedSignature\(/);
  assert.doesNotMatch(body, /===|!==|==|localeCompare/);
  const ct = fs.readFileSync(repoPath("lib/base/constant_time.ts"), "utf8");
  assert.match(ct, /import \{ timingSafeEqual \} from "node:crypto"/);
  assert.match(ct, /return timingSafeEqual\(x, y\)/);
});
