/**
 * node-payload's judgement of file discovery: kubeadm join refuses a
 * discovery file without credentials when no TLS bootstrap token is given.
 */

import assert from "node:assert/strict";
import { parseKubeconfig } from "../../lib/k8s/kubeconfig_read.ts";
import {
  decodeJoinConfiguration,
  NO_DISCOVERY_CREDENTIALS,
} from "../../lib/kubeadm/join_config.ts";
import { payloadJoinProblems } from "../../lib/phases/node_payload.ts";

const join = (tlsBootstrapToken?: string) =>
  decodeJoinConfiguration({
    apiVersion: "kubeadm.k8s.io/v1beta4",
    kind: "JoinConfiguration",
    discovery: {
      file: { kubeConfigPath: "/etc/kubernetes/discovery.conf" },
      ...(tlsBootstrapToken ? { tlsBootstrapToken } : {}),
    },
    nodeRegistration: { name: "w-1", criSocket: "unix:///var/run/containerd/containerd.sock" },
  }, "join.yaml").config;

const kubeconfig = (user: string, currentUser: string) =>
  parseKubeconfig(
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://192.168.122.100:6443
    certificate-authority-data: ${btoa("x")}
contexts:
- name: ctx
  context:
    cluster: c
    user: ${currentUser}
current-context: ctx
users:
- name: ${user}
  user:
    token: abcdef.0123456789abcdef
`,
    "discovery.conf",
  );

Deno.test("payloadJoinProblems() refuses file discovery with neither credentials in the current context's user nor a TLS bootstrap token", () => {
  const rows: [string, string[]][] = [
    // [case, problems]
    ["no token, no credentials (the user is another one)", [NO_DISCOVERY_CREDENTIALS]],
    ["no token, the current user has a token", []],
    ["a TLS bootstrap token, no credentials", []],
    ["no token, no discovery file at hand", []],
  ];
  const got = [
    payloadJoinProblems(join(), kubeconfig("other", "u")),
    payloadJoinProblems(join(), kubeconfig("u", "u")),
    payloadJoinProblems(join("abcdef.0123456789abcdef"), kubeconfig("other", "u")),
    payloadJoinProblems(join()),
  ];
  rows.forEach(([name, want], i) => assert.deepEqual(got[i], want, name));
  assert.match(
    NO_DISCOVERY_CREDENTIALS,
    /^could not find authentication credentials for the TLS bootstrap process\./,
  );
});
