/**
 * The command table, defined once: every command with its group, summary and
 * lazy loader, the groups and the global flags. The dispatcher (`cli.ts`),
 * help and shell completion all read it; only the command that runs is loaded.
 *
 * @module
 */

import type { Command } from "./_command.ts";

/** One entry of the command table. */
export interface CommandEntry {
  /** The words that select it: `token generate`, `init`. */
  name: string;
  /** The group word it sits under (`token`), absent for a one-word command. */
  group?: string;
  /** One line for the command lists. */
  summary: string;
  /** Loads its module: only the command that runs is loaded. */
  load: () => Promise<{ command: Command }>;
}

/** The command groups, with the line `joinkit --help` and completions show for each. */
export const GROUPS: Readonly<Record<string, string>> = {
  token: "Bootstrap tokens: generate, Secrets, list, check, auth-file",
  ca: "The cluster CA and its discovery pin",
  "cluster-info": "The kube-public/cluster-info ConfigMap and its signatures",
  kubeconfig: "The kubelet's kubeconfigs: bootstrap, pre-signed node",
  csr: "Kubelet certificate signing requests",
  cert: "Issued certificates: verify and inspect",
  certs: "The kubeadm PKI: generate, external-CA CSRs and assembly, renew, expiry, certificate key",
};

// The import specifiers stay literal so deno and esbuild see each command file.
/** Every command, in the order help lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "token generate",
    group: "token",
    summary: "Print new random bootstrap tokens",
    load: () => import("./token_generate.ts"),
  },
  {
    name: "token create",
    group: "token",
    summary: "Render bootstrap-token Secrets as kubeadm creates them",
    load: () => import("./token_create.ts"),
  },
  {
    name: "token list",
    group: "token",
    summary: "List bootstrap tokens from Secret manifests, as kubeadm token list",
    load: () => import("./token_list.ts"),
  },
  {
    name: "token check",
    group: "token",
    summary: "Judge a bearer token as kube-apiserver's bootstrap authenticator does",
    load: () => import("./token_check.ts"),
  },
  {
    name: "token auth-file",
    group: "token",
    summary: "Print a --token-auth-file line with a fresh token",
    load: () => import("./token_auth_file.ts"),
  },
  {
    name: "ca create",
    group: "ca",
    summary: "Create a cluster CA like kubeadm's ca.crt/ca.key",
    load: () => import("./ca_create.ts"),
  },
  {
    name: "ca hash",
    group: "ca",
    summary: "Print the sha256:<hex> SPKI pin of each CA certificate",
    load: () => import("./ca_hash.ts"),
  },
  {
    name: "ca pin-check",
    group: "ca",
    summary: "Check CA certificates against --discovery-token-ca-cert-hash pins",
    load: () => import("./ca_pin_check.ts"),
  },
  {
    name: "ca rotation-check",
    group: "ca",
    summary: "List artefacts that still trust, pin or were issued by the old CA only",
    load: () => import("./ca_rotation_check.ts"),
  },
  {
    name: "cluster-info create",
    group: "cluster-info",
    summary: "Render the kube-public/cluster-info ConfigMap with its JWS signatures",
    load: () => import("./cluster_info_create.ts"),
  },
  {
    name: "cluster-info sign",
    group: "cluster-info",
    summary: "Update a cluster-info's signatures as the bootstrapsigner controller does",
    load: () => import("./cluster_info_sign.ts"),
  },
  {
    name: "cluster-info verify",
    group: "cluster-info",
    summary: "Verify a cluster-info offline as kubeadm join's token discovery does",
    load: () => import("./cluster_info_verify.ts"),
  },
  {
    name: "kubeconfig bootstrap",
    group: "kubeconfig",
    summary: "Write the kubelet's bootstrap kubeconfig (bootstrap-kubelet.conf)",
    load: () => import("./kubeconfig_bootstrap.ts"),
  },
  {
    name: "kubeconfig node",
    group: "kubeconfig",
    summary: "Write a pre-signed kubelet.conf and kubelet-client PEMs for nodes",
    load: () => import("./kubeconfig_node.ts"),
  },
  {
    name: "discovery-file",
    summary: "Write the kubeconfig for kubeadm join --discovery-file",
    load: () => import("./discovery_file.ts"),
  },
  {
    name: "join-command",
    summary: "Print the kubeadm join command line",
    load: () => import("./join_command.ts"),
  },
  {
    name: "join-config",
    summary: "Render or check kubeadm's JoinConfiguration (v1beta4, v1beta3) for a node",
    load: () => import("./join_config.ts"),
  },
  {
    name: "rbac",
    summary: "Render the RBAC objects kubeadm's bootstrap-token phase creates",
    load: () => import("./rbac.ts"),
  },
  {
    name: "init",
    summary: "Render the whole bootstrap-token phase: Secrets, RBAC, cluster-info, kubeconfig",
    load: () => import("./init.ts"),
  },
  {
    name: "csr create",
    group: "csr",
    summary: "Make a kubelet key, PKCS#10 CSR and CertificateSigningRequest object",
    load: () => import("./csr_create.ts"),
  },
  {
    name: "csr inspect",
    group: "csr",
    summary: "Show and judge CSRs as the API server, signers and approver would",
    load: () => import("./csr_inspect.ts"),
  },
  {
    name: "csr approve",
    group: "csr",
    summary: "Approve or deny CSRs offline by kubelet-csr-approver's and csrapproving's rules",
    load: () => import("./csr_approve.ts"),
  },
  {
    name: "csr sign",
    group: "csr",
    summary: "Sign CSRs offline as kube-controller-manager's signers do",
    load: () => import("./csr_sign.ts"),
  },
  {
    name: "cert verify",
    group: "cert",
    summary: "Check an issued certificate against its CA, signer rules, node and key",
    load: () => import("./cert_verify.ts"),
  },
  {
    name: "cert inspect",
    group: "cert",
    summary: "Show certificates and their expiry, from files, bundles or a pki/ directory",
    load: () => import("./cert_inspect.ts"),
  },
  {
    name: "certs check-expiration",
    group: "certs",
    summary: "Report certificate expiry as kubeadm certs check-expiration, plus the kubelet's",
    load: () => import("./certs/check_expiration.ts"),
  },
  {
    name: "certs generate",
    group: "certs",
    summary:
      "Write a control plane's pki/ and kubeconfigs as kubeadm init does (one or many nodes)",
    load: () => import("./certs/generate.ts"),
  },
  {
    name: "certs generate-csr",
    group: "certs",
    summary: "External CA, 1: write keys and CSRs as kubeadm certs generate-csr does",
    load: () => import("./certs/generate_csr.ts"),
  },
  {
    name: "certs sign-csr",
    group: "certs",
    summary: "External CA, 2: sign generate-csr's CSRs as kubeadm signs those certificates",
    load: () => import("./certs/sign_csr.ts"),
  },
  {
    name: "certs assemble",
    group: "certs",
    summary: "External CA, 3: put the signed certificates into the tree and kubeconfigs, checked",
    load: () => import("./certs/assemble.ts"),
  },
  {
    name: "certs renew",
    group: "certs",
    summary: "Renew certificates offline as kubeadm certs renew does (all or by name)",
    load: () => import("./certs/renew.ts"),
  },
  {
    name: "certs certificate-key",
    group: "certs",
    summary: "Print a new certificate key for upload-certs, as kubeadm certs certificate-key",
    load: () => import("./certs/certificate_key.ts"),
  },
  {
    name: "upload-certs",
    summary: "Render the kubeadm-certs Secret, its TTL token and RBAC from a pki/ directory",
    load: () => import("./upload_certs.ts"),
  },
  {
    name: "download-certs",
    summary: "Decrypt a kubeadm-certs Secret as kubeadm join --control-plane does",
    load: () => import("./download_certs.ts"),
  },
  {
    name: "seal",
    summary: "Seal Secrets for Bitnami Sealed Secrets offline, as kubeseal --cert",
    load: () => import("./seal.ts"),
  },
  {
    name: "encrypt",
    summary: "Encrypt Secrets with SOPS for age recipients, as Flux decrypts them",
    load: () => import("./encrypt.ts"),
  },
  {
    name: "node-payload",
    summary: "Render each node's cloud-config or Ignition payload that runs kubeadm join",
    load: () => import("./node_payload.ts"),
  },
  {
    name: "doctor",
    summary: "Check rendered bootstrap artefacts for consistency and schema validity, offline",
    load: () => import("./doctor.ts"),
  },
  {
    name: "completion",
    summary: "Print a shell completion script (bash, zsh, fish)",
    load: () => import("./completion.ts"),
  },
];

/** A flag every command accepts, before or after the command words. */
export interface GlobalFlag {
  name: string;
  short?: string;
  /** The value's syntax, for flags that take one. */
  value?: string;
  help: string;
}

/** The global flags. */
export const GLOBAL_FLAGS: readonly GlobalFlag[] = [
  { name: "now", value: "RFC3339", help: "fix the clock for every time-dependent output" },
  { name: "help", short: "h", help: "show help (also: joinkit help <command>)" },
  { name: "version", short: "V", help: "print the version" },
];

/** The words that may come first: each group once, then the one-word commands, in table order. */
export function topWords(): string[] {
  return [...new Set(COMMANDS.map((e) => e.group ?? e.name))];
}

/** The commands of `group`, in table order. */
export function groupCommands(group: string): CommandEntry[] {
  return COMMANDS.filter((e) => e.group === group);
}
