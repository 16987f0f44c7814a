import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { bootstrapTokenRbac } from "../../lib/tokens/rbac.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { runCli, tempDir } from "../_cli.ts";

const NODE_GROUP = "system:bootstrappers:kubeadm:default-node-token";
const RBAC = "rbac.authorization.k8s.io";

function crb(name: string, role: string, kind: string, subject: string) {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
    subjects: [{ kind, name: subject }],
  };
}

// Reference section 3: kubeadm's tlsbootstrap.go and clusterinfo.go, in creation order.
const EXPECTED = [
  {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: { name: "kubeadm:get-nodes" },
    rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }],
  },
  crb("kubeadm:get-nodes", "kubeadm:get-nodes", "Group", NODE_GROUP),
  crb("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", "Group", NODE_GROUP),
  crb(
    "kubeadm:node-autoapprove-bootstrap",
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    "Group",
    NODE_GROUP,
  ),
  crb(
    "kubeadm:node-autoapprove-certificate-rotation",
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
    "Group",
    "system:nodes",
  ),
  {
    apiVersion: `${RBAC}/v1`,
    kind: "Role",
    metadata: { name: "kubeadm:bootstrap-signer-clusterinfo", namespace: "kube-public" },
    rules: [{
      apiGroups: [""],
      resourceNames: ["cluster-info"],
      resources: ["configmaps"],
      verbs: ["get"],
    }],
  },
  {
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: "kubeadm:bootstrap-signer-clusterinfo", namespace: "kube-public" },
    roleRef: { apiGroup: RBAC, kind: "Role", name: "kubeadm:bootstrap-signer-clusterinfo" },
    subjects: [{ kind: "User", name: "system:anonymous" }],
  },
];

Deno.test("bootstrapTokenRbac() has kubeadm's names, rules and subjects in creation order", () => {
  assert.deepEqual(bootstrapTokenRbac(), EXPECTED);
});

Deno.test("CLI rbac renders the objects as YAML and JSON that kubectl reads", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const y = await runCli(["rbac"]);
    assert.equal(y.code, 0);
    assert.equal(y.stderr, "");
    assert.deepEqual(parseManifests(y.stdout, "out"), EXPECTED);
    const j = await runCli(["rbac", "-o", "json"]);
    assert.deepEqual((JSON.parse(j.stdout) as { items: unknown }).items, EXPECTED);
    const file = path.join(dir, "rbac.yaml");
    fs.writeFileSync(file, y.stdout);
    const names = execFileSync("kubectl", ["label", "--local", "-f", file, "x=y", "-o", "name"], {
      env: { ...process.env, KUBECONFIG: path.join(dir, "none") },
    }).toString();
    assert.equal(
      names,
      [
        "clusterrole.rbac.authorization.k8s.io/kubeadm:get-nodes",
        "clusterrolebinding.rbac.authorization.k8s.io/kubeadm:get-nodes",
        "clusterrolebinding.rbac.authorization.k8s.io/kubeadm:kubelet-bootstrap",
        "clusterrolebinding.rbac.authorization.k8s.io/kubeadm:node-autoapprove-bootstrap",
        "clusterrolebinding.rbac.authorization.k8s.io/kubeadm:node-autoapprove-certificate-rotation",
        "role.rbac.authorization.k8s.io/kubeadm:bootstrap-signer-clusterinfo",
        "rolebinding.rbac.authorization.k8s.io/kubeadm:bootstrap-signer-clusterinfo",
        "",
      ].join("\n"),
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI rbac --groups changes only the token bindings' group", async () => {
  const r = await runCli([
    "rbac",
    "--groups",
    "system:bootstrappers:pool-a,system:bootstrappers:pool-b",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const objs = parseManifests(r.stdout, "out") as {
    metadata: { name: string };
    subjects?: unknown;
  }[];
  const subjects = Object.fromEntries(
    objs.filter((o) => o.subjects).map((o) => [o.metadata.name, o.subjects]),
  );
  const pools = [
    { kind: "Group", name: "system:bootstrappers:pool-a" },
    { kind: "Group", name: "system:bootstrappers:pool-b" },
  ];
  assert.deepEqual(subjects["kubeadm:get-nodes"], pools);
  assert.deepEqual(subjects["kubeadm:kubelet-bootstrap"], pools);
  assert.deepEqual(subjects["kubeadm:node-autoapprove-bootstrap"], pools);
  assert.deepEqual(subjects["kubeadm:node-autoapprove-certificate-rotation"], [{
    kind: "Group",
    name: "system:nodes",
  }]);
  assert.deepEqual(subjects["kubeadm:bootstrap-signer-clusterinfo"], [{
    kind: "User",
    name: "system:anonymous",
  }]);

  const bad = await runCli(["rbac", "--groups", "system:masters"]);
  assert.equal(bad.code, 2);
  assert.equal(
    bad.stderr,
    `error: invalid --groups: bootstrap group "system:masters" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)\n`,
  );
});
