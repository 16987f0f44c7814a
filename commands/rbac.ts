/**
 * `joinkit rbac`: the RBAC objects kubeadm's bootstrap-token phase creates.
 *
 * @module
 */

import { UsageError } from "../lib/base/errors.ts";
import { renderObjects } from "../lib/k8s/manifest.ts";
import { bootstrapTokenRbac } from "../lib/tokens/rbac.ts";
import { NODE_BOOTSTRAP_TOKEN_GROUP, validateBootstrapGroupName } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagList, flagSet, outputFormat } from "./_flags.ts";

const FLAGS = flagSet("rbac", [
  [
    "groups",
    "group(s) the token bindings name: repeatable or comma-separated,\neach system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]",
  ],
  ["output", "yaml (default) or json"],
]);

export const command: Command = {
  name: "rbac",
  options: FLAGS.options,
  help: `Render the RBAC objects 'kubeadm init phase bootstrap-token' creates.

In kubeadm's order, with kubeadm's names, rules and subjects:
  ClusterRole        kubeadm:get-nodes                          get nodes
  ClusterRoleBinding kubeadm:get-nodes                          -> token group
  ClusterRoleBinding kubeadm:kubelet-bootstrap                  system:node-bootstrapper -> token group
  ClusterRoleBinding kubeadm:node-autoapprove-bootstrap         ...:nodeclient -> token group
  ClusterRoleBinding kubeadm:node-autoapprove-certificate-rotation  ...:selfnodeclient -> system:nodes
  Role               kube-public/kubeadm:bootstrap-signer-clusterinfo  get configmap cluster-info
  RoleBinding        kube-public/kubeadm:bootstrap-signer-clusterinfo  -> User system:anonymous
The token group is ${NODE_BOOTSTRAP_TOKEN_GROUP};
--groups names others instead (kubeadm itself always uses that one).
Subjects carry kind and name only, as kubeadm sends them.

Usage:
  joinkit rbac [--groups G] [-o yaml|json]

${FLAGS.help}
Output (-o json): a v1 List of the objects, keys sorted, as kubectl prints it.

${EXIT_CODES}

Examples:
  joinkit rbac | kubectl apply -f -
  joinkit rbac --groups system:bootstrappers:worker-pool-a
`,
  run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const groups = [...new Set(flagList(ctx.flags, "groups", true))];
    for (const g of groups) {
      const err = validateBootstrapGroupName(g);
      if (err) throw new UsageError(`invalid --groups: ${err}`);
    }
    ctx.stdout(renderObjects(bootstrapTokenRbac(groups.length ? groups : undefined), format));
  },
};
