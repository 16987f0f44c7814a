/**
 * Where a payload may place a user's file (issue 19, class 2): Ignition's
 * path rules (coreos/ignition `validatePath`: absolute, `path.Clean(p) ==
 * p`), no second entry for a path the payload writes (cloud-init keeps the
 * later one silently; Ignition refuses), no file where a directory is
 * needed or under a file, and kubeadm join's preflight checks (v1.32
 * `JoinNodeChecks`/`InitNodeChecks`), which `ignorePreflightErrors` waives.
 */

import assert from "node:assert/strict";
import {
  reservedFiles,
  type ReservedOptions,
  userFilePathProblem,
} from "../../lib/phases/node_payload_paths.ts";

const CC: ReservedOptions = { format: "cloud-config", controlPlane: false };
const IGN: ReservedOptions = { format: "ignition", controlPlane: false };
const CP: ReservedOptions = { format: "cloud-config", controlPlane: true };

Deno.test("userFilePathProblem() applies Ignition's path rules to both formats", () => {
  const rows: [string, string | undefined][] = [
    ["/etc/kubernetes/discovery.conf", undefined],
    ["/etc/kubernetes/{{ x }} $(id) #d: é.conf", undefined],
    ["", "path not specified"],
    ["etc/discovery.conf", "path not absolute"],
    ["./discovery.conf", "path not absolute"],
    ["/etc/a\0b", "a path cannot hold a NUL byte"],
    [
      "/etc//d.conf",
      "path is not fully simplified (Ignition refuses it; cloud-init writes /etc/d.conf)",
    ],
    [
      "/etc/d.conf/",
      "path is not fully simplified (Ignition refuses it; cloud-init writes /etc/d.conf)",
    ],
    [
      "/etc/./d.conf",
      "path is not fully simplified (Ignition refuses it; cloud-init writes /etc/d.conf)",
    ],
    [
      "/etc/x/../d.conf",
      "path is not fully simplified (Ignition refuses it; cloud-init writes /etc/d.conf)",
    ],
    [
      "/../etc/d.conf",
      "path is not fully simplified (Ignition refuses it; cloud-init writes /etc/d.conf)",
    ],
  ];
  for (const opts of [CC, IGN]) {
    for (const [p, want] of rows) {
      assert.equal(userFilePathProblem(p, opts), want, `${opts.format} ${p}`);
    }
  }
});

Deno.test("userFilePathProblem() keeps a user file clear of the payload's own files and directories", () => {
  const dupCc = "cloud-init would silently keep only the later write_files entry";
  const dupIgn = "Ignition refuses duplicate paths";
  const rows: [ReservedOptions, string, string | undefined][] = [
    [
      CC,
      "/run/kubeadm/kubeadm-join-config.yaml",
      `the payload also writes the JoinConfiguration there: ${dupCc}`,
    ],
    [IGN, "/run/kubeadm/kubeadm-join-config.yaml", undefined],
    [IGN, "/etc/kubeadm.yml", `the payload also writes the JoinConfiguration there: ${dupIgn}`],
    [CC, "/etc/kubeadm.yml", undefined],
    [IGN, "/etc/kubeadm.sh", `the payload also writes the join script there: ${dupIgn}`],
    [
      IGN,
      "/etc/systemd/system/kubeadm.service",
      `the payload also writes the kubeadm.service unit there: ${dupIgn}`,
    ],
    [
      IGN,
      "/etc/systemd/system",
      "/etc/systemd/system/kubeadm.service (the kubeadm.service unit) needs this path to be a directory",
    ],
    [
      IGN,
      "/etc/kubeadm.yml/x",
      "/etc/kubeadm.yml (the JoinConfiguration) is a file, not a directory",
    ],
    [
      CC,
      "/run/cluster-api",
      "/run/cluster-api/placeholder (CABPK's placeholder file) needs this path to be a directory",
    ],
    [
      CC,
      "/",
      "/run/kubeadm/kubeadm-join-config.yaml (the JoinConfiguration) needs this path to be a directory",
    ],
    [
      IGN,
      "/run/cluster-api/bootstrap-success.complete",
      `the payload also writes the bootstrap sentinel (/etc/kubeadm.sh) there: ${dupIgn}`,
    ],
    [
      CC,
      "/var/lib/kubelet/config.yaml",
      "kubeadm join writes the kubelet configuration there",
    ],
  ];
  for (const [opts, p, want] of rows) {
    assert.equal(userFilePathProblem(p, opts), want, `${opts.format} ${p}`);
  }
  // /var/run is /run on the node.
  assert.equal(
    userFilePathProblem("/var/run/kubeadm/kubeadm-join-config.yaml", CC),
    "the payload also writes the JoinConfiguration at /run/kubeadm/kubeadm-join-config.yaml (/var/run is a link to /run): one write would replace the other",
  );
  assert.equal(
    userFilePathProblem("/var/run/cluster-api", IGN),
    "/run/cluster-api/bootstrap-success.complete (the bootstrap sentinel (/etc/kubeadm.sh)) needs this path to be a directory (/var/run is a link to /run)",
  );
  assert.equal(userFilePathProblem("/var/run/discovery.conf", CC), undefined);
  // An earlier user file counts as well.
  assert.equal(
    userFilePathProblem("/etc/a", CC, [{ path: "/etc/a", what: "another user file" }]),
    `the payload also writes another user file there: ${dupCc}`,
  );
});

Deno.test("userFilePathProblem() follows kubeadm join's preflight FileAvailable/DirAvailable checks, waived as kubeadm waives them", () => {
  const pre = (name: string, what: string, dir = false) =>
    `kubeadm join's preflight check ${name} fails when ${
      dir ? "this directory holds a file" : "this file exists"
    } (kubeadm join writes ${what} there; nodeRegistration.ignorePreflightErrors can waive it)`;
  assert.equal(
    userFilePathProblem("/etc/kubernetes/kubelet.conf", CC),
    pre("FileAvailable--etc-kubernetes-kubelet.conf", "a kubeconfig"),
  );
  assert.equal(
    userFilePathProblem("/etc/kubernetes/bootstrap-kubelet.conf", IGN),
    pre("FileAvailable--etc-kubernetes-bootstrap-kubelet.conf", "a kubeconfig"),
  );
  // A worker's caCertPath (default or its own); a control plane has no such check.
  assert.equal(
    userFilePathProblem("/etc/kubernetes/pki/ca.crt", CC),
    pre(
      "FileAvailable--etc-kubernetes-pki-ca.crt",
      "the cluster CA (caCertPath)",
    ),
  );
  assert.equal(
    userFilePathProblem("/srv/ca.pem", { ...CC, caCertPath: "/srv/ca.pem" }),
    pre("FileAvailable--srv-ca.pem", "the cluster CA (caCertPath)"),
  );
  assert.equal(userFilePathProblem("/etc/kubernetes/pki/ca.crt", CP), undefined);
  assert.equal(
    userFilePathProblem("/etc/kubernetes/manifests/etcd.yaml", CP),
    pre(
      "FileAvailable--etc-kubernetes-manifests-etcd.yaml",
      "a static Pod manifest",
    ),
  );
  assert.equal(
    userFilePathProblem("/var/lib/etcd/discovery.conf", CP),
    pre("DirAvailable--var-lib-etcd", "etcd's data directory (local etcd's default dataDir)", true),
  );
  assert.equal(userFilePathProblem("/var/lib/etcd/discovery.conf", CC), undefined);
  // Waived: by name (any case, as kubeadm lower-cases them) or by "all".
  for (
    const ignore of [["FileAvailable--etc-kubernetes-kubelet.conf"], [
      "fileavailable--etc-kubernetes-kubelet.conf",
    ], ["all"]]
  ) {
    assert.equal(
      userFilePathProblem("/etc/kubernetes/kubelet.conf", { ...CC, ignorePreflightErrors: ignore }),
      undefined,
      ignore[0],
    );
  }
});

Deno.test("reservedFiles() lists each format's files (CABPK's paths) and kubeadm join's", () => {
  const paths = (o: ReservedOptions) => reservedFiles(o).map((r) => r.path);
  assert.deepEqual(paths(CC).slice(0, 3), [
    "/run/kubeadm/kubeadm-join-config.yaml",
    "/run/cluster-api/placeholder",
    "/run/cluster-api/bootstrap-success.complete",
  ]);
  assert.deepEqual(paths(IGN).slice(0, 5), [
    "/etc/kubeadm.sh",
    "/etc/kubeadm.yml",
    "/etc/systemd/system/kubeadm.service",
    "/run/cluster-api/bootstrap-success.complete",
    "/tmp/kubeadm.yml",
  ]);
  assert.ok(paths(CP).includes("/var/lib/etcd"));
  assert.ok(!paths(CP).includes("/etc/kubernetes/pki/ca.crt"));
});
