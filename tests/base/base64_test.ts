import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { base64Url, decodeGoBase64 } from "../../lib/base/base64.ts";

Deno.test("decodeGoBase64() accepts what Go's encoding/json accepts for []byte", () => {
  const ok: [string, string][] = [
    ["", ""],
    ["YQ==", "a"],
    ["YWI=", "ab"],
    ["YWJjZGVm", "abcdef"],
    ["YWJj\r\nZGVm\n", "abcdef"],
  ];
  for (const [text, want] of ok) {
    assert.equal(Buffer.from(decodeGoBase64(text)!).toString("utf8"), want, text);
  }
  for (const bad of ["YQ", "YQ=", "YQ===", "YW Jj", "YWJj\t", "YW=j", "YWJj-_", "Y"]) {
    assert.equal(decodeGoBase64(bad), undefined, JSON.stringify(bad));
  }
});

Deno.test("base64Url() drops padding and uses the URL alphabet", () => {
  assert.equal(base64Url(new Uint8Array([0xfb, 0xff])), "-_8");
  assert.equal(base64Url("a"), "YQ");
  assert.equal(base64Url(""), "");
});
