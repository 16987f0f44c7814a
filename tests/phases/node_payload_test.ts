/**
 * Node payloads as Cluster API's kubeadm bootstrap provider renders them:
 * the reference note's CAPI vectors (cloudinit_test.go, controlplane_test.go,
 * node_test.go, clc_test.go, TestMarshalJoinConfigurationForVersion), and
 * PyYAML as an independent reader of the cloud-config.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import {
  cloudConfig,
  PLACEHOLDER_CONTENT,
  templateYamlIndent,
} from "../../lib/phases/node_payload.ts";
import {
  dataUrl,
  ignitionConfig,
  KUBEADM_SERVICE,
  kubeadmScript,
  octalMode,
  parseOwner,
} from "../../lib/phases/node_payload_ignition.ts";
import { decodeJoinConfiguration, joinConfigObject } from "../../lib/kubeadm/join_config.ts";
import { toYaml } from "../../lib/k8s/manifest.ts";

const JOIN = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\n";
const RUNCMD =
  "runcmd:\n  - kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml  && echo success > /run/cluster-api/bootstrap-success.complete\n";

Deno.test("templateYamlIndent() follows controlplane_test.go TestTemplateYAMLIndent", () => {
  assert.equal(templateYamlIndent("hello\n  world", 2), "  hello\n    world");
  assert.equal(
    templateYamlIndent("  some extra:\n    indenting\n", 4),
    "      some extra:\n        indenting\n    ",
  );
});

Deno.test("dataUrl() escapes as the transpiler does (clc_test.go TestRender vectors)", () => {
  const rows: [string, string][] = [
    ["foo ALL=(ALL) NOPASSWD:ALL\n", "data:,foo%20ALL%3D(ALL)%20NOPASSWD%3AALL%0A"],
    ["---\nfoo\n", "data:,---%0Afoo%0A"],
    ["foo\n", "data:,foo%0A"],
    ["", "data:,"],
    ["#!/bin/bash\n", "data:,%23!%2Fbin%2Fbash%0A"],
    ["a~b*c'd[e]&f\x01\xff", "data:,a~b*c'd%5Be%5D%26f%01%C3%BF"],
  ];
  for (const [text, url] of rows) assert.equal(dataUrl(text), url, JSON.stringify(text));
  // The whole kubeadm.sh of TestRender: decoding and re-encoding gives it back byte for byte.
  const vector =
    "data:,%23!%2Fbin%2Fbash%0Aset%20-e%0A%0Apre-command%0Aanother-pre-command%0Acat%20%3C%3CEOF%20%3E%20%2Fetc%2Fmodules-load.d%2Fcontainerd.conf%0Aoverlay%0Abr_netfilter%0AEOF%0A%0A%0Akubeadm%20join%0Amkdir%20-p%20%2Frun%2Fcluster-api%20%26%26%20echo%20success%20%3E%20%2Frun%2Fcluster-api%2Fbootstrap-success.complete%0Amv%20%2Fetc%2Fkubeadm.yml%20%2Ftmp%2F%0A%0Apost-kubeadm-command%0Aanother-post-kubeamd-command%0Acat%20%3C%3CEOF%20%3E%20%2Fetc%2Fmodules-load.d%2Fcontainerd.conf%0Aoverlay%0Abr_netfilter%0AEOF%0A";
  assert.equal(dataUrl(decodeURIComponent(vector.slice("data:,".length))), vector);
});

Deno.test("parseOwner() splits owners as clc.go parseOwner (TestRender owner cases)", () => {
  assert.deepEqual(parseOwner("nobody:nobody"), { user: "nobody", group: "nobody" });
  assert.deepEqual(parseOwner("nobody"), { user: "nobody" });
  assert.deepEqual(parseOwner("nobody:"), { user: "nobody" });
  assert.deepEqual(parseOwner(":nobody"), { group: "nobody" });
  assert.deepEqual(parseOwner(""), {});
});

Deno.test("octalMode() reads permissions as YAML reads 0NNN (decimal in Ignition JSON)", () => {
  const rows: [string, number][] = [["0600", 384], ["0640", 416], ["0644", 420], ["0700", 448]];
  for (const [p, m] of rows) assert.equal(octalMode(p), m);
  assert.throws(() => octalMode("0800"));
});

Deno.test("ignitionConfig() carries TestRender's kubeadm.yml, unit and modes (spec v3 form)", () => {
  const ign = ignitionConfig({ joinYaml: "foo", controlPlane: false }) as {
    ignition: { version: string };
    storage: { files: { path: string; mode: number; contents: { source: string } }[] };
    systemd: { units: { name: string; enabled: boolean; contents: string }[] };
  };
  assert.equal(ign.ignition.version, "3.0.0");
  const byPath = Object.fromEntries(ign.storage.files.map((f) => [f.path, f]));
  assert.deepEqual(byPath["/etc/kubeadm.yml"], {
    path: "/etc/kubeadm.yml",
    contents: { source: "data:,---%0Afoo%0A" },
    mode: 384,
  });
  assert.equal(byPath["/etc/kubeadm.sh"]!.mode, 448);
  assert.deepEqual(ign.systemd.units, [{
    name: "kubeadm.service",
    enabled: true,
    contents:
      "[Unit]\nDescription=kubeadm\n# Run only once. After successful run, this file is moved to /tmp/.\nConditionPathExists=/etc/kubeadm.yml\nAfter=network.target\n[Service]\n# To not restart the unit when it exits, as it is expected.\nType=oneshot\nExecStart=/bin/bash /etc/kubeadm.sh\n[Install]\nWantedBy=multi-user.target\n",
  }]);
  assert.equal(ign.systemd.units[0]!.contents, KUBEADM_SERVICE);
  // The order: user files, then the script, then the config.
  assert.deepEqual(ign.storage.files.map((f) => f.path), ["/etc/kubeadm.sh", "/etc/kubeadm.yml"]);
});

Deno.test("ignitionConfig() writes user files as TestRender (base64 decoded, owners) but byte for byte", () => {
  const ign = ignitionConfig({
    joinYaml: JOIN,
    controlPlane: false,
    files: [
      {
        path: "/a",
        encoding: "base64",
        content: "Zm9vCg==",
        owner: "nobody:nobody",
        permissions: "0640",
      },
      { path: "/b", content: "foo", owner: "nobody" },
      { path: "/c", content: "", owner: ":nobody" },
      { path: "/d", content: "foo\n\n\n", owner: "nobody:" },
    ],
  }) as { storage: { files: Record<string, unknown>[] } };
  const [a, b, c, d] = ign.storage.files;
  assert.deepEqual(a, {
    path: "/a",
    contents: { source: "data:,foo%0A" },
    user: { name: "nobody" },
    group: { name: "nobody" },
    mode: 416,
  });
  // CABPK's CLC template would add a newline to "foo" and drop the blank lines of "foo\n\n\n"
  // (an `inline: |` block); joinkit carries what it was given.
  assert.deepEqual(b, { path: "/b", contents: { source: "data:,foo" }, user: { name: "nobody" } });
  assert.deepEqual(c, { path: "/c", contents: { source: "data:," }, group: { name: "nobody" } });
  assert.deepEqual(d, {
    path: "/d",
    contents: { source: "data:,foo%0A%0A%0A" },
    user: { name: "nobody" },
  });
});

Deno.test("kubeadmScript() is CABPK's /etc/kubeadm.sh without pre/post commands (empty verbosity keeps its space)", () => {
  assert.equal(
    kubeadmScript(),
    "#!/bin/bash\nset -e\n\n\nkubeadm join --config /etc/kubeadm.yml \nmkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete\nmv /etc/kubeadm.yml /tmp/\n",
  );
});

Deno.test("cloudConfig() renders CABPK's worker user data without its Jinja header: join config with '---', placeholder, runcmd", () => {
  const text = cloudConfig({ joinYaml: JOIN, controlPlane: false });
  assert.equal(
    text,
    "#cloud-config\n\nwrite_files:\n" +
      "-   path: /run/kubeadm/kubeadm-join-config.yaml\n    owner: root:root\n    permissions: '0640'\n    content: |\n" +
      "      ---\n      apiVersion: kubeadm.k8s.io/v1beta4\n      kind: JoinConfiguration\n      \n" +
      "-   path: /run/cluster-api/placeholder\n    owner: root:root\n    permissions: '0640'\n" +
      `    content: "${PLACEHOLDER_CONTENT}"\n` + RUNCMD,
  );
});

Deno.test("cloudConfig() for a control plane has no '---' (controlplane_join.go); user files come first", () => {
  const text = cloudConfig({
    joinYaml: JOIN,
    controlPlane: true,
    files: [
      { path: "/tmp/my-path", encoding: "base64", content: "aGk=" },
      { path: "/tmp/my-other-path", content: "hi\n" },
      { path: "/tmp/no-newline", content: "hi" },
    ],
  });
  // cloudinit_test.go TestNewJoinControlPlaneAdditionalFileEncodings substrings.
  assert.ok(
    text.includes('-   path: /tmp/my-path\n    encoding: "base64"\n    content: |\n      aGk='),
  );
  assert.ok(text.includes("-   path: /tmp/my-other-path\n    content: |\n      hi"));
  // CABPK's block would hand the node "hi\n" for "hi": joinkit carries it in base64 instead.
  assert.ok(
    text.includes(
      '-   path: /tmp/no-newline\n    encoding: "base64"\n    content: |\n      aGk=\n',
    ),
  );
  assert.ok(text.includes("    content: |\n      apiVersion: kubeadm.k8s.io/v1beta4\n"));
  assert.ok(!text.includes("      ---\n"));
  // node_test.go: the join config and the placeholder, plus the user files: exactly five write_files here.
  assert.equal(text.match(/^- {3}path: /gm)?.length, 5);
  assert.ok(text.indexOf("/tmp/my-path") < text.indexOf("/run/kubeadm/kubeadm-join-config.yaml"));
  assert.ok(text.endsWith(RUNCMD));
});

Deno.test("joinConfigObject() + toYaml() give CAPI's TestMarshalJoinConfigurationForVersion bytes", () => {
  for (const version of ["v1beta3", "v1beta4"] as const) {
    const { config } = decodeJoinConfiguration({
      apiVersion: `kubeadm.k8s.io/${version}`,
      kind: "JoinConfiguration",
      nodeRegistration: { ignorePreflightErrors: ["some-preflight-check"] },
    });
    assert.equal(
      toYaml(joinConfigObject(config, version)),
      `apiVersion: kubeadm.k8s.io/${version}\ndiscovery: {}\nkind: JoinConfiguration\nnodeRegistration:\n  ignorePreflightErrors:\n  - some-preflight-check\n  taints: null\n`,
    );
  }
});

const PYYAML = spawnSync("python3", ["-c", "import yaml"], { stdio: "ignore" }).status === 0;
if (!PYYAML) {
  process.stderr.write("node_payload_test: python3 yaml not found: the PyYAML check is skipped\n");
}

Deno.test({
  name: `cloudConfig() reads back with PyYAML: files, modes, contents, runcmd (independent parser${
    PYYAML ? "" : "; skipped: python3 yaml not found"
  })`,
  ignore: !PYYAML,
  fn: () => {
    const joinYaml =
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration:\n  name: w-1\n";
    const kubeconfig = "apiVersion: v1\nkind: Config\nclusters: []\n";
    const text = cloudConfig({
      joinYaml,
      controlPlane: false,
      files: [{
        path: "/etc/kubernetes/discovery.conf",
        owner: "root:root",
        permissions: "0640",
        content: kubeconfig,
      }],
    });
    const r = spawnSync("python3", [
      "-c",
      "import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))",
    ], {
      input: text,
    });
    assert.equal(r.status, 0, r.stderr.toString());
    const doc = JSON.parse(r.stdout.toString());
    assert.deepEqual(doc.write_files, [
      {
        path: "/etc/kubernetes/discovery.conf",
        owner: "root:root",
        permissions: "0640",
        content: kubeconfig,
      },
      {
        path: "/run/kubeadm/kubeadm-join-config.yaml",
        owner: "root:root",
        permissions: "0640",
        content: "---\n" + joinYaml,
      },
      {
        path: "/run/cluster-api/placeholder",
        owner: "root:root",
        permissions: "0640",
        content: PLACEHOLDER_CONTENT,
      },
    ]);
    assert.deepEqual(doc.runcmd, [
      "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml  && echo success > /run/cluster-api/bootstrap-success.complete",
    ]);
  },
});

Deno.test("ignitionConfig() uses only Ignition spec 3.0.0 fields, with their types (coreos/ignition config/v3_0/schema)", () => {
  const ign = ignitionConfig({
    joinYaml: JOIN,
    controlPlane: false,
    files: [{
      path: "/etc/kubernetes/discovery.conf",
      owner: "root:root",
      permissions: "0640",
      content: "x",
    }],
  });
  // The properties the 3.0.0 schema defines for what joinkit writes.
  const node = ["path", "overwrite", "user", "group"];
  const allowed: Record<string, string[]> = {
    "": ["ignition", "storage", "systemd", "passwd"],
    ignition: ["version", "config", "timeouts", "security"],
    storage: ["disks", "raid", "filesystems", "files", "directories", "links"],
    file: [...node, "mode", "contents", "append"],
    user: ["id", "name"],
    contents: ["compression", "source", "verification"],
    systemd: ["units"],
    unit: ["name", "enabled", "mask", "contents", "dropins"],
  };
  const keys = (o: unknown, what: string) => {
    for (const k of Object.keys(o as object)) assert.ok(allowed[what]!.includes(k), `${what}.${k}`);
  };
  const c = ign as {
    ignition: object;
    storage: { files: Record<string, unknown>[] };
    systemd: { units: Record<string, unknown>[] };
  };
  keys(c, "");
  keys(c.ignition, "ignition");
  keys(c.storage, "storage");
  keys(c.systemd, "systemd");
  for (const f of c.storage.files) {
    keys(f, "file");
    assert.ok(String(f.path).startsWith("/"), "absolute path");
    assert.ok(Number.isInteger(f.mode), "integer mode");
    keys(f.contents, "contents");
    assert.match((f.contents as { source: string }).source, /^data:,/);
    for (const u of ["user", "group"]) if (f[u] !== undefined) keys(f[u], "user");
  }
  for (const u of c.systemd.units) {
    keys(u, "unit");
    assert.equal(typeof u.name, "string");
    assert.equal(typeof u.enabled, "boolean");
    assert.equal(typeof u.contents, "string");
  }
});
