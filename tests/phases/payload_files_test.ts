import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { gzipSync } from "node:zlib";
import { decodeDataUrl, isCloudConfig, payloadFiles } from "../../lib/phases/payload_files.ts";

Deno.test("payloadFiles() reads cloud-config write_files in every encoding cloud-init knows", () => {
  const text = "apiVersion: v1\nkind: Config\n";
  const b64 = Buffer.from(text).toString("base64");
  const gz = gzipSync(Buffer.from(text)).toString("base64");
  for (const header of ["", "## template: jinja\n"]) {
    const p = payloadFiles(
      `${header}#cloud-config\nwrite_files:\n- path: /a\n  content: |\n    ${
        text.replace(/\n(?=.)/g, "\n    ")
      }- path: /b\n  encoding: b64\n  content: ${b64}\n- path: /c\n  encoding: gz+base64\n  content: ${gz}\n- path: /d\n  encoding: base64\n  content: "!!"\n- path: /e\n  encoding: rot13\n  content: x\n`,
    )!;
    assert.equal(p.format, "cloud-config");
    assert.deepEqual(p.files.map((f) => [f.path, f.text]), [["/a", text], ["/b", text], [
      "/c",
      text,
    ]]);
    assert.deepEqual(p.problems, [
      { path: "/d", reason: "content is not base64" },
      { path: "/e", reason: 'unknown encoding "rot13"' },
    ]);
  }
  assert.equal(isCloudConfig("#!/bin/sh\n"), false);
  assert.equal(payloadFiles("apiVersion: v1\nkind: Secret\n"), undefined);
});

Deno.test("payloadFiles() reads Ignition storage.files: percent-encoded and base64 data URLs, gzip, inline", () => {
  const gz = gzipSync(Buffer.from("zipped")).toString("base64");
  const p = payloadFiles(JSON.stringify({
    ignition: { version: "3.4.0" },
    storage: {
      files: [
        { path: "/a", contents: { source: "data:,foo%20ALL%3D(ALL)%0A" } },
        { path: "/b", contents: { source: "data:text/plain;base64,aGk=" } },
        { path: "/c", contents: { source: `data:;base64,${gz}`, compression: "gzip" } },
        { path: "/d", contents: { inline: "inline" } },
        { path: "/e", contents: { source: "https://example.com/x" } },
        { path: "/f" },
      ],
    },
  }))!;
  assert.equal(p.format, "ignition");
  assert.deepEqual(p.files.map((f) => [f.path, f.text]), [
    ["/a", "foo ALL=(ALL)\n"],
    ["/b", "hi"],
    ["/c", "zipped"],
    ["/d", "inline"],
    ["/f", ""],
  ]);
  assert.deepEqual(p.problems.map((x) => x.path), ["/e"]);
  assert.equal(decodeDataUrl("data:,%zz"), undefined);
  assert.equal(payloadFiles('{"kind": "Config"}'), undefined);
});
