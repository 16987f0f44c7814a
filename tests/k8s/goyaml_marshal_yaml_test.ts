/**
 * joinkit's YAML writers against go-yaml v2.4.0 itself (sigs.k8s.io/yaml's
 * goyaml.v2, vendored by Kubernetes v1.32.5: what kubectl and kubeadm marshal
 * with). tests/fixtures/yaml/goyaml_marshal.json holds go-yaml's `yaml.Marshal`
 * of 1,444 documents of hostile strings (every C0 and C1 control, DEL, NEL,
 * U+2028/U+2029, BOMs, astral characters, YAML 1.1 booleans and numbers,
 * indicators, quotes, leading and trailing spaces, long lines that fold at
 * column 80, multi-line strings) in map values, sequences, nested maps and
 * keys (complex `? key` ones too: over 128 bytes or multi-line), also in
 * shapes only the yaml library path renders; go-yaml read each back
 * unchanged when it was recorded.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import { repoPath } from "../_cli.ts";
import { goYamlScalar } from "../../lib/k8s/goyaml_scalar.ts";
import { renderObjects, toYaml, toYamlByLibrary } from "../../lib/k8s/manifest.ts";
import { renderYamlStream } from "../../lib/tokens/token_yaml.ts";

interface Case {
  doc: Record<string, unknown>;
  yaml: string;
  kubectl?: string;
  kubectlError?: string;
}
const FIXTURE = JSON.parse(
  fs.readFileSync(repoPath("tests/fixtures/yaml/goyaml_marshal.json"), "utf8"),
) as { cases: Case[] };
const CASES = FIXTURE.cases;

Deno.test(`toYaml() writes go-yaml's bytes for ${CASES.length} hostile documents (fixture)`, () => {
  for (const c of CASES) assert.equal(toYaml(c.doc), c.yaml, JSON.stringify(c.doc));
});

Deno.test(`toYamlByLibrary() writes go-yaml's bytes for ${CASES.length} hostile documents (fixture)`, () => {
  for (const c of CASES) assert.equal(toYamlByLibrary(c.doc), c.yaml, JSON.stringify(c.doc));
});

Deno.test(`renderYamlStream() and renderObjects() write go-yaml's bytes for ${CASES.length} hostile documents, one stream (fixture)`, () => {
  const docs = CASES.map((c) => c.doc);
  const want = CASES.map((c) => c.yaml).join("---\n");
  assert.equal(renderYamlStream(docs), want);
  assert.equal(renderObjects(docs, "yaml"), want);
});

Deno.test("goYamlScalar() follows go-yaml's escapes, styles and folding (vectors read off go-yaml's output)", () => {
  const rows: [string, number, number, string][] = [
    // [value, column after the indicator, container indent, text]
    ["a\x7fb", 2, 0, ' "a\\x7Fb"'],
    ["x\u0085y", 2, 0, ' "x\\Ny"'],
    ["a \u2028 b", 2, 0, ' "a \\L b"'],
    ["a\u2029 b", 2, 0, ' "a\\P b"'],
    ["c\u2028d", 2, 0, " 'c\u2028  d'"],
    ["\ufeffab", 2, 0, ' "\\uFEFF\\x61\\x62"'],
    ["\u00a0", 2, 0, " \u00a0"],
    ["😀", 2, 0, ' "\\U0001F600"'],
    ["\x80\x9f", 2, 0, ' "\\x80\\x9F"'],
    ["\0\x07\b\t\n\v\f\r\x1b", 2, 0, ' "\\0\\a\\b\\t\\n\\v\\f\\r\\e"'],
    ["yes", 2, 0, ' "yes"'],
    ["0x1F", 2, 0, ' "0x1F"'],
    ["1e3", 2, 0, ' "1e3"'],
    [".inf", 2, 0, ' ".inf"'],
    ["~", 2, 0, ' "~"'],
    ["", 2, 0, ' ""'],
    ["1e1000", 2, 0, " 1e1000"],
    [" a", 2, 0, " ' a'"],
    ["a: b", 2, 0, " 'a: b'"],
    ["a #b", 2, 0, " 'a #b'"],
    ["it's", 2, 0, " it's"],
    ["'a", 2, 0, " '''a'"],
    ["a\nb", 2, 0, " |-\n  a\n  b"],
    ["a\n", 2, 0, " |\n  a\n"],
    ["a\n\n", 2, 0, " |+\n  a\n\n"],
    [" a\nb", 2, 0, " |2-\n   a\n  b"],
    ["a \nb", 2, 0, ' "a \\nb"'],
    ["a\n\u2029", 2, 0, " |+\n  a\n\u2029"],
    ["a".repeat(76) + " b c", 2, 0, " " + "a".repeat(76) + " b\n  c"],
    ["\t" + "a".repeat(76) + " b c", 2, 0, ' "\\t' + "a".repeat(76) + '\n  b c"'],
    ["'" + "a".repeat(76) + " b c", 2, 0, " '''" + "a".repeat(76) + "\n  b c'"],
    ["a".repeat(76) + " b c", 6, 2, " " + "a".repeat(76) + "\n    b c"],
  ];
  for (const [value, column, indent, text] of rows) {
    assert.equal(goYamlScalar(value, column, indent).text, text, JSON.stringify(value));
  }
  // Keys are never folded and never block scalars.
  assert.equal(goYamlScalar("a".repeat(100) + " b", 0, 0, true).text, "a".repeat(100) + " b");
  assert.equal(goYamlScalar("", 0, 0, true).text, '""');
});

Deno.test("the fixture: kubectl's path (JSON first) differs from go-yaml's marshal only for DEL, C1 controls, NEL, U+FFFE/U+FFFF", () => {
  let differs = 0;
  for (const c of CASES) {
    if (c.kubectl === undefined && c.kubectlError === undefined) continue;
    differs++;
    const k = String(c.doc.k);
    assert.match(k, /[\x7f-\x9f\ufffe\uffff]/, JSON.stringify(k));
    // DEL and C1 but NEL stop go-yaml reading kubectl's JSON; NEL alone is folded (lost).
    if (/[\x7f-\x84\x86-\x9f\ufffe\uffff]/.test(k)) {
      assert.match(c.kubectlError ?? "", /control characters are not allowed/);
    } else {
      assert.ok(k.includes("\u0085") && c.kubectl !== undefined, JSON.stringify(k));
      assert.doesNotMatch(c.kubectl, /\u0085|\\N/, JSON.stringify(k));
    }
  }
  assert.ok(differs > 100, `${differs}`);
});

Deno.test("toYaml() and renderYamlStream() write a key over 128 bytes as go-yaml's complex key (`? key`, then `: value`), fast path", () => {
  const K = "a".repeat(125) + ".io/x";
  const B = "b".repeat(128);
  const C = "c".repeat(129);
  // go-yaml v2.4.0's bytes for these documents.
  const rows: [unknown, string][] = [
    [
      {
        m: { [K]: ["a", { x: 1, z: 2 }], b: { [K]: "l1\nl2" }, c: { [K]: { p: { q: 1 }, r: [] } } },
      },
      `m:\n  ? ${K}\n  : - a\n    - x: 1\n      z: 2\n  b:\n    ? ${K}\n    : |-\n      l1\n      l2\n  c:\n    ? ${K}\n    : p:\n        q: 1\n      r: []\n`,
    ],
    [
      { metadata: { annotations: { [K]: "v", [B]: "w", [C]: "x y" } } },
      `metadata:\n  annotations:\n    ? ${K}\n    : v\n    ${B}: w\n    ? ${C}\n    : x y\n`,
    ],
  ];
  for (const [doc, want] of rows) {
    assert.equal(toYaml(doc), want);
    assert.equal(renderYamlStream([doc]), want);
  }
});
