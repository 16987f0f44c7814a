/**
 * Payloads that do not execute what they carry (issue 19, class 1): no
 * template header; every file's bytes as given, read back by YAML 1.1
 * readers (js-yaml's YAML 1.1 schema here, PyYAML when python3 has it);
 * paths as YAML scalars that read back; shell words that sh parses back to
 * the same argv; the renderers' self-checks catching a tampered payload.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import process from "node:process";
import { load, YAML11_SCHEMA } from "js-yaml";
import { repoPath } from "../_cli.ts";
import { CheckError, UsageError } from "../../lib/base/errors.ts";
import { toYaml } from "../../lib/k8s/manifest.ts";
import {
  checkCloudConfig,
  CLOUD_INIT_JOIN_CONFIG,
  CLOUD_INIT_RUNCMD,
  cloudConfig,
  type PayloadInput,
  refuseUnreadableJoinYaml,
} from "../../lib/phases/node_payload.ts";
import {
  checkIgnitionConfig,
  ignitionConfig,
  kubeadmScript,
} from "../../lib/phases/node_payload_ignition.ts";
import {
  blockScalarSafe,
  shellJoin,
  shellQuote,
  yaml11UnsafeChar,
  yamlDoubleQuoted,
  yamlScalar,
} from "../../lib/phases/node_payload_text.ts";
import { dataUrlBytes } from "../../lib/phases/ignition_validate.ts";

/** Values an attacker or a careless admin can put into a JoinConfiguration or a path. */
const HOSTILE = [
  "{{ 6 * 7 }}",
  "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
  "a{%b",
  "{% if true %}x{% endif %}",
  "{# comment",
  "$(touch /tmp/pwned)",
  "`id`",
  "a; rm -rf / #",
  'it\'s "quoted" \\ back',
  "line1\nline2",
  "cr\r\nlf",
  "tab\there",
  "é 😀 中文",
  "\x1b[31mred",
  "- not a list",
  "key: value",
  "#cloud-config",
  "## template: jinja",
  "---",
  "*alias &anchor !tag |",
  "yes",
  "0o17",
  "",
  " leading space",
  "trailing space ",
];

/** The payload's files as a YAML 1.1 reader sees them: path -> bytes after cloud-init's decoding. */
function readCloudConfig(text: string): { files: Map<string, Buffer>; runcmd: unknown } {
  const doc = load(text, { schema: YAML11_SCHEMA }) as {
    write_files: { path: string; encoding?: string; content: string }[];
    runcmd: unknown;
  };
  const files = new Map<string, Buffer>();
  for (const f of doc.write_files) {
    files.set(
      f.path,
      f.encoding === "base64" ? Buffer.from(f.content, "base64") : Buffer.from(f.content, "utf8"),
    );
  }
  return { files, runcmd: doc.runcmd };
}

const joinObject = (values: string[]) => ({
  apiVersion: "kubeadm.k8s.io/v1beta4",
  kind: "JoinConfiguration",
  nodeRegistration: {
    kubeletExtraArgs: values.map((value, i) => ({ name: `arg-${i}`, value })),
    taints: [{ key: values[0]!, value: values[2]!, effect: "NoSchedule" }],
  },
  patches: { directory: `/etc/${values[0]}` },
});

Deno.test("cloudConfig() has no template header and hands every hostile value back unchanged (YAML 1.1 read-back)", () => {
  const obj = joinObject(HOSTILE);
  const joinYaml = toYaml(obj);
  for (const controlPlane of [false, true]) {
    const text = cloudConfig({ joinYaml, controlPlane });
    assert.ok(text.startsWith("#cloud-config\n"));
    assert.ok(!/^##\s*template/im.test(text), "no template header anywhere");
    const { files, runcmd } = readCloudConfig(text);
    const content = files.get(CLOUD_INIT_JOIN_CONFIG)!.toString("utf8");
    assert.equal(content, controlPlane ? joinYaml : `---\n${joinYaml}`);
    assert.deepEqual(load(content, { schema: YAML11_SCHEMA }), obj);
    assert.deepEqual(runcmd, [CLOUD_INIT_RUNCMD]);
  }
});

Deno.test("cloudConfig() carries any file content byte for byte (block where safe, else base64) at any clean path", () => {
  const contents = [
    ...HOSTILE,
    "apiVersion: v1\n",
    "no newline",
    "two newlines\n\n",
    "\nleading newline\n",
    "  indented first line\n",
    "a\u2028b\u2029c\u0085d\n",
    "bom\ufeff\n",
    "nul\0byte\n",
    "del\x7f\n",
    "lone \ud800 surrogate\n",
  ];
  for (const [i, content] of contents.entries()) {
    const path = `/etc/${HOSTILE[i % HOSTILE.length]!.replace(/[\0/]/g, "_") || "x"}/f`;
    const text = cloudConfig({
      joinYaml: "kind: JoinConfiguration\n",
      controlPlane: false,
      files: [{ path, owner: "root:root", permissions: "0600", content }],
    });
    const { files } = readCloudConfig(text);
    const want = Buffer.from(content, "utf8");
    assert.ok(files.get(path)?.equals(want), JSON.stringify({ path, content }));
    assert.equal(
      yaml11UnsafeChar(text),
      undefined,
      "nothing unescaped that YAML 1.1 reads otherwise",
    );
  }
});

Deno.test("blockScalarSafe() agrees with PyYAML's reading of CABPK's six-space block (measured, cloud-init 22.4.2)", () => {
  // [content, PyYAML gives it back unchanged] from cloud-init's util.load_yaml on
  // "content: |\n" + templateYamlIndent(content, 6); joinkit may only be stricter.
  const rows: [string, boolean][] = [
    ["a\n", true],
    ["a", false],
    ["a\n\n", false],
    ["  a\n", false],
    ["\ta\n", true],
    ["a \n", true],
    ["a\tb\n", true],
    ["a\n#c\n---\n...\n", true],
    ["a\n  b\n", true],
    ["a\n\tb\n", true],
    ["é😀\n", true],
    ["a\r\nb\n", false],
    ["a\x85b\n", false],
    ["a\u2028b\n", false],
    ["a\n\n\nb\n", true],
    ["", true],
    ["\n", false],
  ];
  for (const [content, pyyaml] of rows) {
    const ours = blockScalarSafe(content);
    if (!pyyaml) assert.equal(ours, false, JSON.stringify(content));
    else assert.equal(ours, true, JSON.stringify(content));
  }
});

Deno.test("yaml11UnsafeChar() names what PyYAML and go-yaml do not read back as written", () => {
  const rows: [string, string | undefined][] = [
    ["plain ascii\tand\nlines", undefined],
    ["é 😀 中文 \u00a0", undefined],
    ["a\u2028b", "U+2028"],
    ["a\u2029b", "U+2029"],
    ["a\u0085b", "U+0085"],
    ["a\x7fb", "U+007F"],
    ["a\x1bb", "U+001B"],
    ["a\rb", "U+000D"],
    ["a\0b", "U+0000"],
    ["a\ufeffb", "U+FEFF"],
    ["a\ufffeb", "U+FFFE"],
    ["a\ud800b", "U+D800"],
    ["a\udc00b", "U+DC00"],
  ];
  for (const [text, want] of rows) assert.equal(yaml11UnsafeChar(text), want, JSON.stringify(text));
});

Deno.test("yamlScalar() and yamlDoubleQuoted() read back as written (js-yaml, YAML 1.1 schema)", () => {
  assert.equal(yamlScalar("/etc/kubernetes/discovery.conf"), "/etc/kubernetes/discovery.conf");
  assert.equal(yamlScalar("/etc/a #b"), '"/etc/a #b"');
  assert.equal(yamlDoubleQuoted('a"\n\u2028'), '"a\\"\\n\\u2028"');
  for (const v of [...HOSTILE, "a\u2028b", "\x85", "😀", "\0"]) {
    const s = yamlScalar(v);
    assert.match(s, /^[\x20-\x7e]*$/, "printable ASCII only");
    const doc = load(`k: ${s}\n`, { schema: YAML11_SCHEMA }) as { k: unknown };
    assert.equal(doc.k, v, JSON.stringify(v));
  }
});

Deno.test("shellQuote() makes exactly one sh word of anything but NUL; the fixed commands stay CABPK's bytes", () => {
  assert.equal(shellQuote("/etc/kubeadm.yml"), "/etc/kubeadm.yml");
  assert.equal(shellQuote("$(reboot)"), "'$(reboot)'");
  assert.equal(shellQuote("it's"), `'it'"'"'s'`);
  assert.equal(shellQuote(""), "''");
  assert.throws(() => shellQuote("a\0b"), RangeError);
  assert.equal(
    CLOUD_INIT_RUNCMD,
    "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml  && echo success > /run/cluster-api/bootstrap-success.complete",
  );
  assert.ok(kubeadmScript().includes("\nkubeadm join --config /etc/kubeadm.yml \n"));
  assert.ok(kubeadmScript().endsWith("\nmv /etc/kubeadm.yml /tmp/\n"));
});

const SH = spawnSync("sh", ["-c", "exit 0"]).status === 0;
if (!SH) {
  process.stderr.write("node_payload_inert_test: sh not found: the shell round trip is skipped\n");
}

Deno.test({
  name: `shellJoin() words parse back to the same argv in sh (printf round trip${
    SH ? "" : "; skipped: sh not found"
  })`,
  ignore: !SH,
  fn: () => {
    const argv = [...HOSTILE.filter((v) => !v.includes("\0")), "*", "~", "a b", "$HOME", "!x"];
    // printf prints each argument NUL-terminated: what sh made of the words.
    const r = spawnSync("sh", ["-c", `printf '%s\\0' ${shellJoin(argv)}`], { encoding: "buffer" });
    assert.equal(r.status, 0, r.stderr.toString());
    const got = r.stdout.toString("utf8").split("\0").slice(0, -1);
    assert.deepEqual(got, argv);
  },
});

const PYYAML = spawnSync("python3", ["-c", "import yaml"], { stdio: "ignore" }).status === 0;

Deno.test({
  name:
    `cloudConfig() hostile payload reads back in PyYAML unchanged, twice over (independent YAML 1.1 reader${
      PYYAML ? "" : "; skipped: python3 yaml not found"
    })`,
  ignore: !PYYAML,
  fn: () => {
    const obj = joinObject(HOSTILE);
    const text = cloudConfig({
      joinYaml: toYaml(obj),
      controlPlane: false,
      files: [{ path: "/etc/{{ x }} #d: é", permissions: "0600", content: "x\u2028{% y" }],
    });
    const py = "import sys, json, yaml, base64\nd = yaml.safe_load(sys.stdin.read())\nout = []\n" +
      "for f in d['write_files']:\n  c = base64.b64decode(f['content']).decode() if f.get('encoding') == 'base64' else f['content']\n" +
      "  out.append([f['path'], c])\njoin = yaml.safe_load(out[1][1])\nprint(json.dumps({'files': out, 'join': join}))\n";
    const r = spawnSync("python3", ["-c", py], { input: text });
    assert.equal(r.status, 0, r.stderr.toString());
    const got = JSON.parse(r.stdout.toString());
    assert.deepEqual(got.files[0], ["/etc/{{ x }} #d: é", "x\u2028{% y"]);
    assert.deepEqual(got.join, obj);
  },
});

const QUOTED = JSON.parse(
  fs.readFileSync(repoPath("tests/fixtures/node_payload/yaml11_quoted_verdicts.json"), "utf8"),
) as { rows: { value: string; goYaml: string; pyyaml: string }[] };

Deno.test(`toYaml() escapes every character of the ${QUOTED.rows.length} values that YAML 1.1 readers refuse or misread raw in quotes (fixture)`, () => {
  for (const { value, goYaml, pyyaml } of QUOTED.rows) {
    assert.equal(
      goYaml === value,
      pyyaml === value,
      `the judges differ on ${JSON.stringify(value)}`,
    );
    if (goYaml === value) continue;
    const text = toYaml({ k: value });
    // Raw, DEL and C1 stop both readers, NEL is folded, spaces next to LS/PS are dropped.
    assert.doesNotMatch(
      text,
      /[\x7f-\x9f]|[ \t][\u2028\u2029]|[\u2028\u2029][ \t]/,
      JSON.stringify(value),
    );
  }
});

Deno.test({
  name: `toYaml() output of the yaml11_quoted_verdicts.json values reads back exactly in PyYAML (${
    PYYAML ? "independent reader" : "skipped: python3 yaml not found"
  })`,
  ignore: !PYYAML,
  fn: () => {
    const py = "import sys, json, yaml\nout = []\nfor t in json.load(sys.stdin):\n" +
      "  try: out.append(yaml.safe_load(t)['k'])\n" +
      "  except Exception as e: out.append('error: ' + str(e).splitlines()[0])\nprint(json.dumps(out))\n";
    const r = spawnSync("python3", ["-c", py], {
      input: JSON.stringify(QUOTED.rows.map((x) => toYaml({ k: x.value }))),
    });
    assert.equal(r.status, 0, r.stderr.toString());
    assert.deepEqual(JSON.parse(r.stdout.toString()), QUOTED.rows.map((x) => x.value));
  },
});

Deno.test("refuseUnreadableJoinYaml() refuses (exit 2) an unpaired surrogate, naming the field; DEL, NEL, LS pass", () => {
  const obj = (value: string) => ({
    nodeRegistration: { kubeletExtraArgs: [{ name: "a", value }] },
  });
  for (const value of ["x\ud800y", "\udfff", "a\udc00\ud83d"]) {
    assert.throws(
      () => refuseUnreadableJoinYaml(obj(value), "join.yaml"),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message ===
          `join.yaml: nodeRegistration.kubeletExtraArgs[0].value holds an unpaired surrogate, which kubeadm's YAML reader (go-yaml) refuses: "found invalid Unicode character escape code"`,
      JSON.stringify(value),
    );
  }
  assert.throws(() => refuseUnreadableJoinYaml({ ["k\ud800"]: "v" }, "f"), /f: k\ud800 holds/);
  // toYaml escapes these as go-yaml does (\x7F, \N, \L), which go-yaml reads back.
  for (const value of ["x\x7fy", "x\u0085y", "x \u2028y", "x\u2028y", "x\ufeffy", "é", "😀"]) {
    refuseUnreadableJoinYaml(obj(value), "join.yaml");
  }
});

Deno.test("checkCloudConfig() refuses a tampered payload: template header, a path twice, changed bytes, another command", () => {
  const input: PayloadInput = { joinYaml: "kind: JoinConfiguration\n", controlPlane: false };
  const good = cloudConfig(input);
  checkCloudConfig(good, input);
  const bad = [
    "## template: jinja\n" + good,
    good.replace("runcmd:\n", "runcmd:\n  - reboot\n"),
    good.replace("kind: JoinConfiguration", "kind: JoinConfigurati0n"),
    good.replace("/run/cluster-api/placeholder", CLOUD_INIT_JOIN_CONFIG),
    good.replace("kind: JoinConfiguration", "kind: Join\u2028Configuration"),
    good.replace("write_files:", "write_files: ["),
  ];
  for (const text of bad) assert.throws(() => checkCloudConfig(text, input), CheckError, text);
});

Deno.test("checkIgnitionConfig() refuses a config Ignition would refuse or whose bytes differ", () => {
  const input: PayloadInput = { joinYaml: "kind: JoinConfiguration\n", controlPlane: false };
  const good = ignitionConfig(input) as {
    storage: { files: { path: string; contents: { source: string } }[] };
  };
  const want = good.storage.files.map((f) => ({
    path: f.path,
    bytes: dataUrlBytes(f.contents.source)!,
  }));
  checkIgnitionConfig(good, want);
  const dup = structuredClone(good);
  dup.storage.files[1]!.path = dup.storage.files[0]!.path;
  assert.throws(() => checkIgnitionConfig(dup, want), /duplicate entry defined/);
  const changed = structuredClone(good);
  changed.storage.files[1]!.contents.source += "%0A";
  assert.throws(() => checkIgnitionConfig(changed, want), /not carried byte for byte/);
});

Deno.test({
  name:
    `cloudConfig() over 400 random hostile values: PyYAML reads each carried JoinConfiguration and value back exactly (${
      PYYAML ? "independent reader" : "skipped: python3 yaml not found"
    })`,
  ignore: !PYYAML,
  fn: () => {
    const alphabet = [
      ..."a {}%#'\"\\$`;:-?*&!|>@,[]0y~=\t\n\r",
      "\u2028",
      "\u2029",
      "\u0085",
      "\x7f",
      "\x1b",
      "\0",
      "\ufeff",
      "é",
      "😀",
      "\u00a0",
      "<<",
      "---",
      "{{",
      "{%",
    ];
    let seed = 19;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const cases: { value: string; payload: string; joinYaml: string }[] = [];
    for (let i = 0; i < 400; i++) {
      let value = "";
      for (let j = rnd(12); j > 0; j--) value += alphabet[rnd(alphabet.length)];
      const obj = {
        kind: "JoinConfiguration",
        nodeRegistration: { kubeletExtraArgs: [{ name: "x", value }] },
      };
      const joinYaml = toYaml(obj);
      refuseUnreadableJoinYaml(obj, "f");
      // A worker's payload carries CABPK's `---` before the config.
      const carried = `---\n${joinYaml}`;
      cases.push({
        value,
        joinYaml: carried,
        payload: cloudConfig({ joinYaml, controlPlane: false }),
      });
    }
    const py = "import sys, json, yaml, base64\nout = []\nfor c in json.load(sys.stdin):\n" +
      "  try:\n    f = yaml.safe_load(c['payload'])['write_files'][0]\n" +
      "    t = base64.b64decode(f['content']).decode() if f.get('encoding') == 'base64' else f['content']\n" +
      "    out.append([t == c['joinYaml'], yaml.safe_load(t)['nodeRegistration']['kubeletExtraArgs'][0]['value']])\n" +
      "  except Exception as e:\n    out.append({'error': str(e).splitlines()[0]})\nprint(json.dumps(out))\n";
    const r = spawnSync("python3", ["-c", py], {
      input: JSON.stringify(cases),
      maxBuffer: 1 << 26,
    });
    assert.equal(r.status, 0, r.stderr.toString());
    const got = JSON.parse(r.stdout.toString()) as unknown[];
    // The carried bytes are toYaml's (go-yaml's) exactly; PyYAML, another YAML 1.1 reader, reads the value.
    cases.forEach((c, i) => assert.deepEqual(got[i], [true, c.value], JSON.stringify(c.value)));
  },
});
