/**
 * The RBAC objects `kubeadm init phase bootstrap-token` creates
 * (k/k `phases/bootstraptoken/node/tlsbootstrap.go` and
 * `phases/bootstraptoken/clusterinfo/clusterinfo.go`), in kubeadm's order.
 * Subjects carry only `kind` and `name`, as kubeadm sends them.
 *
 * @module
 */

import type { KubeObject } from "../k8s/manifest.ts";
import { NODE_BOOTSTRAP_TOKEN_GROUP } from "./token.ts";

const RBAC_API = "rbac.authorization.k8s.io/v1";
const RBAC_GROUP = "rbac.authorization.k8s.io";

/** kubeadm's object names (`constants.go`). */
export const RBAC_NAMES = {
  getNodes: "kubeadm:get-nodes",
  kubeletBootstrap: "kubeadm:kubelet-bootstrap",
  nodeBootstrapper: "system:node-bootstrapper",
  autoApproveBootstrap: "kubeadm:node-autoapprove-bootstrap",
  nodeClient: "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
  autoApproveRotation: "kubeadm:node-autoapprove-certificate-rotation",
  selfNodeClient: "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
  clusterInfo: "kubeadm:bootstrap-signer-clusterinfo",
} as const;

/** One RBAC object and the line kubeadm prints when it creates it (if any). */
export interface RbacStep {
  /** What kubeadm prints for this step, or undefined for the second object of a step. */
  message?: string;
  /** The object. */
  object: KubeObject;
}

function clusterRoleBinding(name: string, role: string, subjects: KubeObject[]): KubeObject {
  return {
    apiVersion: RBAC_API,
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role },
    subjects,
  };
}

const groups = (names: readonly string[]) => names.map((name) => ({ kind: "Group", name }));

/**
 * The node-bootstrap RBAC objects in creation order: get-nodes
 * (ClusterRole + binding), post CSRs, auto-approve, certificate rotation.
 * `tokenGroups` replaces the group the token bindings name (kubeadm always
 * uses `system:bootstrappers:kubeadm:default-node-token`).
 *
 * @example
 * ```ts
 * nodeBootstrapRbac().map((s) => s.object.kind);
 * ```
 */
export function nodeBootstrapRbac(
  tokenGroups: readonly string[] = [NODE_BOOTSTRAP_TOKEN_GROUP],
): RbacStep[] {
  const subjects = groups(tokenGroups);
  return [
    {
      message: "Configured RBAC rules to allow Node Bootstrap tokens to get nodes",
      object: {
        apiVersion: RBAC_API,
        kind: "ClusterRole",
        metadata: { name: RBAC_NAMES.getNodes },
        rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }],
      },
    },
    { object: clusterRoleBinding(RBAC_NAMES.getNodes, RBAC_NAMES.getNodes, subjects) },
    {
      message:
        "Configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials",
      object: clusterRoleBinding(
        RBAC_NAMES.kubeletBootstrap,
        RBAC_NAMES.nodeBootstrapper,
        subjects,
      ),
    },
    {
      message:
        "Configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token",
      object: clusterRoleBinding(RBAC_NAMES.autoApproveBootstrap, RBAC_NAMES.nodeClient, subjects),
    },
    {
      message:
        "Configured RBAC rules to allow certificate rotation for all node client certificates in the cluster",
      object: clusterRoleBinding(
        RBAC_NAMES.autoApproveRotation,
        RBAC_NAMES.selfNodeClient,
        groups(["system:nodes"]),
      ),
    },
  ];
}

/**
 * The kube-public Role and RoleBinding that let anyone (User
 * `system:anonymous`) read `cluster-info` (`CreateClusterInfoRBACRules`).
 *
 * @example
 * ```ts
 * clusterInfoRbac()[1]!.subjects; // [{ kind: "User", name: "system:anonymous" }]
 * ```
 */
export function clusterInfoRbac(): KubeObject[] {
  return [
    {
      apiVersion: RBAC_API,
      kind: "Role",
      metadata: { name: RBAC_NAMES.clusterInfo, namespace: "kube-public" },
      rules: [{
        apiGroups: [""],
        resourceNames: ["cluster-info"],
        resources: ["configmaps"],
        verbs: ["get"],
      }],
    },
    {
      apiVersion: RBAC_API,
      kind: "RoleBinding",
      metadata: { name: RBAC_NAMES.clusterInfo, namespace: "kube-public" },
      roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: RBAC_NAMES.clusterInfo },
      subjects: [{ kind: "User", name: "system:anonymous" }],
    },
  ];
}

/** Every RBAC object of the phase, in kubeadm's creation order. */
export function bootstrapTokenRbac(tokenGroups?: readonly string[]): KubeObject[] {
  return [...nodeBootstrapRbac(tokenGroups).map((s) => s.object), ...clusterInfoRbac()];
}
