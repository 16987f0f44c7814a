import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  goYamlLess,
  parseManifests,
  renderObjects,
  toJson,
  toYaml,
} from "../../lib/k8s/manifest.ts";
import { InputError } from "../../lib/base/errors.ts";

// Strings whose YAML quoting differs between emitters; kubectl is the reference.
const VALUES = [
  "yes",
  "no",
  "on",
  "Off",
  "y",
  "N",
  "true",
  "null",
  "~",
  "",
  "0123",
  "09",
  "0x1F",
  "1e3",
  "1.5",
  ".5",
  "-1",
  "+1",
  "1_000",
  "12:30",
  "2026-01-01",
  "2026-01-01T10:00:00Z",
  ".inf",
  "<<",
  ": x",
  "it's: x",
  "# c",
  "trail ",
  " lead",
  "tab\there",
  "multi\nline\n",
  "no trailing\nnewline",
  "-",
  "- x",
  "a: b",
  "[x]",
  "{x}",
  "*ref",
  "&a",
  "!tag",
  "%x",
  "@x",
  "`x",
  "x,y",
  "x #y",
  "https://example.com:6443",
  "system:bootstrappers:kubeadm:default-node-token",
  "abcdef",
  "héllo",
  '"quoted"',
  "back\\slash",
];
const KEYS = [
  "n",
  "y",
  "on",
  "0123",
  "1.5",
  "plain-key",
  "a.b_c",
  "_u",
  "B",
  "a1",
  "a01",
  "a10",
  "a9",
  "a-b",
  "ab",
];

Deno.test("toYaml() quotes strings exactly as kubectl does", () => {
  const args = ["create", "configmap", "x", "--dry-run=client"];
  VALUES.forEach((v, i) => args.push(`--from-literal=v${String(i).padStart(2, "0")}=${v}`));
  KEYS.forEach((k) => args.push(`--from-literal=${k}=${k}`));
  const kubectlYaml = execFileSync("kubectl", [...args, "-o", "yaml"], { encoding: "utf8" });
  const kubectlJson = execFileSync("kubectl", [...args, "-o", "json"], { encoding: "utf8" });
  assert.equal(toYaml(JSON.parse(kubectlJson)), kubectlYaml);
});

Deno.test("toYaml() output reads back to the same value", () => {
  const obj = { data: Object.fromEntries(VALUES.map((v, i) => [`k${i}`, v])) };
  assert.deepEqual(parseManifests(toYaml(obj))[0], obj);
});

Deno.test("parseManifests() reads YAML streams, JSON objects and Lists", () => {
  const cases: [string, string[]][] = [
    ["kind: A\n---\nkind: B\n", ["A", "B"]],
    ["---\nkind: A\n---\n---\n", ["A"]],
    ['{"kind":"A"}', ["A"]],
    ['{"kind":"List","items":[{"kind":"A"},{"kind":"B"}]}', ["A", "B"]],
    ["apiVersion: v1\nkind: SecretList\nitems:\n- kind: Secret\n", ["Secret"]],
    ["\uFEFFkind: A\r\n", ["A"]],
    ["", []],
  ];
  for (const [text, kinds] of cases) {
    assert.deepEqual(parseManifests(text).map((o) => o.kind), kinds, JSON.stringify(text));
  }
});

Deno.test("parseManifests() keeps timestamps and YAML 1.1 words as Kubernetes reads them", () => {
  const [obj] = parseManifests("a: 2026-01-01T00:00:00Z\nb: yes\nc: '0123'\n");
  assert.deepEqual(obj, { a: "2026-01-01T00:00:00Z", b: true, c: "0123" });
});

Deno.test("parseManifests() rejects non-objects, bad YAML and alias bombs with InputError", () => {
  const bomb = "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n" +
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n";
  for (const text of ["- a\n- b\n", "just a string", "a: [\n", "a: 1\na: 2\n", bomb]) {
    assert.throws(() => parseManifests(text, "in.yaml"), (e: unknown) => {
      assert.ok(e instanceof InputError, String(e));
      assert.match(e.message, /^in\.yaml: /);
      return true;
    }, JSON.stringify(text));
  }
});

Deno.test("renderObjects() makes a YAML stream, or JSON with a List for several", () => {
  const a = { kind: "A", apiVersion: "v1" }, b = { kind: "B", apiVersion: "v1" };
  assert.equal(
    renderObjects([a, b], "yaml"),
    "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n",
  );
  assert.equal(renderObjects([a], "json"), toJson(a));
  assert.deepEqual(JSON.parse(renderObjects([a, b], "json")), {
    apiVersion: "v1",
    items: [a, b],
    kind: "List",
    metadata: {},
  });
  assert.equal(
    toJson({ b: 1, a: { d: 1, c: 2 } }),
    '{\n    "a": {\n        "c": 2,\n        "d": 1\n    },\n    "b": 1\n}\n',
  );
});

Deno.test("goYamlLess() orders keys as go-yaml v2: digit runs by value, non-letters first", () => {
  const sorted = ["", "_x", "1.5", "2", "10", "a", "a-b", "a1", "a01", "a9", "a10", "ab", "b", "é"];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = 0; j < sorted.length; j++) {
      assert.equal(goYamlLess(sorted[i]!, sorted[j]!), i < j, `${sorted[i]} < ${sorted[j]}`);
    }
  }
});
