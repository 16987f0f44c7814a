/**
 * `joinkit init`: the whole `kubeadm init phase bootstrap-token`, offline —
 * token Secrets, RBAC, the signed cluster-info — plus the node side's
 * bootstrap-kubelet.conf and join command, all checked against each other.
 * Flags, files and printing live here; the phase itself is
 * `lib/phases/init.ts`.
 *
 * @module
 */

import { UsageError } from "../lib/base/errors.ts";
import { readClusterCa } from "../lib/pki/certsource.ts";
import { type BootstrapTokenSpec, parseTtlFlag } from "../lib/tokens/bootstrap_token.ts";
import { type KubeObject, renderObjects } from "../lib/k8s/manifest.ts";
import {
  type InitBootstrapToken,
  type InitFileConfig,
  readInitConfiguration,
  readKubeadmDocuments,
} from "../lib/kubeadm/init_config.ts";
import { generateToken, parseToken } from "../lib/tokens/token.ts";
import {
  INIT_DESCRIPTION,
  initBootstrapTokens,
  initFileNames,
  type InitResult,
} from "../lib/phases/init.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagSet,
  flagString,
  flagTokens,
  outputFormat,
  parseServerFlag,
  requireServer,
  requireString,
} from "./_flags.ts";
import { ensureDir, type OutputFile, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";
import { SECRET_INPUT_HELP } from "./_secret_input.ts";
import {
  checkProtectedFormat,
  ensureGitopsDirs,
  gitopsFiles,
  protectionFromFlags,
  protectObjects,
  renderStream,
} from "./_secret_output.ts";
import * as path from "node:path";

/** The one line init refuses with when a generated token would have nowhere to go. */
export const NO_JOIN_MATERIAL =
  "init: no --token and no --out-dir: the generated token would be lost; give --token T, --out-dir DIR or --join-file FILE";

const FLAGS = flagSet("init", [
  ["server", "API server, https://HOST:PORT (or HOST:PORT) (required)"],
  [
    "ca",
    "PEM CA certificate or bundle (required): read as client-go\nreads it (certutil.ParseCertsPEM); the first certificate\nmust be a CA; no other PEM block (e.g. a key) allowed",
  ],
  ["token", "bootstrap token, repeatable (default: one generated)"],
  ["ttl", "token lifetime, Go syntax (default 24h; 0 = never expires)"],
  ["description", "token description"],
  [
    "out-dir",
    "write bootstrap-token.yaml (.json with -o json),\nbootstrap-kubelet.conf, join-command.txt and\njoin-config.yaml there (all 0600, one atomic step; DIR\ncreated 0700 with parents)",
  ],
  [
    "output",
    "yaml (default) or json: the manifests as a YAML stream,\nor as kubectl prints JSON (one object, or a v1 List)",
  ],
  [
    "config",
    "kubeadm InitConfiguration (v1beta4/v1beta3, may hold a\nClusterConfiguration): its bootstrapTokens and\ncontrolPlaneEndpoint (the --server); not with --token,\n--ttl, --description (kubeadm's rule)",
  ],
  [
    "with-discovery-file",
    "with --out-dir: also write discovery.conf, the kubeconfig\nfor 'kubeadm join --discovery-file' (server and CA as\ncluster-info holds them, no credentials: the node gives\n--tls-bootstrap-token), read back with kubeadm's rules",
  ],
  [
    "join-file",
    "without --out-dir: write the join command (it holds the\ntoken) to FILE, 0600 (missing directories created 0700)",
  ],
  "force",
  [
    "seal-cert",
    "write the Secrets as SealedSecrets for this Sealed Secrets\ncontroller certificate (see GitOps below)",
  ],
  "seal-scope",
  [
    "age-recipient",
    "write the Secrets SOPS-encrypted for this age recipient\n(see GitOps below); repeatable",
  ],
]);

export const command: Command = {
  name: "init",
  options: FLAGS.options,
  help: `Render the whole bootstrap-token phase of 'kubeadm init', offline.

Produces, for 'kubectl apply -f', in kubeadm's creation order:
  - one bootstrap-token Secret per token (kube-system, TTL --ttl, usages
    signing,authentication, group system:bootstrappers:kubeadm:default-node-token,
    description "${INIT_DESCRIPTION}" unless --description);
  - the RBAC objects (see 'joinkit rbac');
  - the kube-public/cluster-info ConfigMap, signed for every token as the
    bootstrapsigner controller would, and its anonymous-read Role/RoleBinding.
And, for the joining node (first token): bootstrap-kubelet.conf (as
'kubeconfig bootstrap'), the join command (as 'join-command') and a worker
JoinConfiguration for 'kubeadm join --config' (as 'join-config').
Before writing anything it verifies its own output as 'cluster-info verify'
would (each token's signature, the CA pins, the kubeconfig and join command
derived from cluster-info; join-config.yaml read back with kubeadm's rules)
and fails with exit 3 if anything disagrees.

With --config FILE (a kubeadm InitConfiguration, v1beta4 or v1beta3, with an
optional ClusterConfiguration) the whole file is read and judged as
'kubeadm init --config' does (kubeadm v1.32's defaults and
ValidateInitConfiguration, every field, used here or not; unknown fields
are warnings, as in kubeadm init; exit 1 with kubeadm's text otherwise);
the tokens come from its bootstrapTokens (a token it leaves out is
generated) and the server from controlPlaneEndpoint (bindPort added when it
has no port), else from localAPIEndpoint, else from --server. As in
kubeadm, --config cannot be mixed with --token, --ttl or --description.

Where the join material goes (init never leaves you unable to join):
  --out-dir DIR      the manifests, bootstrap-kubelet.conf, the join command
                     and join-config.yaml are written there; nothing on stdout.
  otherwise          the manifests go to stdout (for 'kubectl apply -f -'), and
                     the token must reach you another way: either you gave it
                     (--token), or --join-file FILE receives the join command
                     (0600). With neither, init refuses (exit 2) rather than
                     generate a token nobody can see.
Progress goes to stderr with kubeadm's [bootstrap-token] lines; tokens are
named there by ID only.

GitOps (--seal-cert CERT [--seal-scope S], or --age-recipient R): no Secret
is written in clear. Without --out-dir the stream on stdout carries
SealedSecrets or SOPS documents in place of the Secrets. With --out-dir, DIR
becomes a directory to commit as it is ('kubectl kustomize DIR' builds it):
  DIR/kustomization.yaml     lists everything below that belongs in git
  DIR/rbac.yaml              the RBAC objects (public)
  DIR/cluster-info.yaml      the signed kube-public/cluster-info and its Role
                             and RoleBinding (public)
  DIR/kube-system.bootstrap-token-<id>.sealedsecret.yaml (or .sops.yaml)
                             each token Secret, sealed or encrypted
  DIR/private/               0700, kept out of git by DIR/.gitignore: the
                             join command, bootstrap-kubelet.conf,
                             join-config.yaml (and discovery.conf): they hold
                             the token in clear; hand them to nodes out of band
Usage:
  joinkit init --server https://HOST:PORT --ca CA.crt --out-dir DIR [flags]
  joinkit init --server https://HOST:PORT --ca CA.crt --token T [flags] | kubectl apply -f -
  joinkit init --server https://HOST:PORT --ca CA.crt --join-file FILE [flags] | kubectl apply -f -

${SECRET_INPUT_HELP}
${FLAGS.help}
${EXIT_CODES}

Examples:
  joinkit init --server https://cp.example:6443 --ca pki/ca.crt --out-dir bootstrap/
  joinkit init --server https://10.0.0.1:6443 --ca /etc/kubernetes/pki/ca.crt \\
    --join-file ~/join.sh | kubectl apply -f -
  joinkit init --server https://10.0.0.1:6443 --ca ca.crt --token "$(joinkit token generate)" \\
    | kubectl apply -f -
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const protection = await protectionFromFlags(ctx);
    const configFile = flagString(ctx.flags, "config");
    if (configFile !== undefined) {
      // kubeadm's ValidateMixedArguments: the file replaces these flags.
      const mixed = ["description", "token", "token-file", "ttl"].filter((n) =>
        ctx.flags[n] !== undefined
      );
      if (mixed.length) {
        throw new UsageError(`can not mix '--config' with arguments [${mixed.join(" ")}]`);
      }
    }
    const fileConfig = configFile === undefined ? undefined : readInitConfigFile(configFile);
    if (fileConfig?.joinEndpoint !== undefined && ctx.flags.server !== undefined) {
      throw new UsageError(
        `can not mix '--config' with arguments [server]: ${
          fileConfig.controlPlaneEndpoint ? "controlPlaneEndpoint" : "localAPIEndpoint"
        } sets it`,
      );
    }
    const server = fileConfig?.joinEndpoint !== undefined
      ? parseServerFlag(fileConfig.joinEndpoint)
      : requireServer(ctx.flags);
    const caFile = requireString(ctx.flags, "ca");
    const ttlText = flagString(ctx.flags, "ttl");
    const ttlMs = ttlText === undefined ? undefined : parseTtlFlag(ttlText);
    const description = flagString(ctx.flags, "description") ?? INIT_DESCRIPTION;
    const outDir = flagString(ctx.flags, "out-dir");
    const joinFile = flagString(ctx.flags, "join-file");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    checkProtectedFormat(protection, format);
    if (protection !== undefined && outDir !== undefined && format !== "yaml") {
      throw new UsageError("--out-dir with --seal-cert writes a kustomize directory: YAML only");
    }
    const force = flagBool(ctx.flags, "force");
    const withDiscoveryFile = flagBool(ctx.flags, "with-discovery-file");
    if (withDiscoveryFile && outDir === undefined) {
      throw new UsageError(
        "--with-discovery-file needs --out-dir (discovery.conf is written there)",
      );
    }
    if (outDir !== undefined && joinFile !== undefined) {
      throw new UsageError("--join-file and --out-dir: --out-dir already writes the join command");
    }

    const tokens = fileConfig
      ? fileConfig.bootstrapTokens.map((t) => t.token ?? parseToken(generateToken()))
      : flagTokens(ctx.flags);
    if (fileConfig && fileConfig.bootstrapTokens[0]!.token === undefined) {
      if (outDir === undefined && joinFile === undefined) throw new UsageError(NO_JOIN_MATERIAL);
    }
    if (tokens.length === 0) {
      if (outDir === undefined && joinFile === undefined) throw new UsageError(NO_JOIN_MATERIAL);
      tokens.push(parseToken(generateToken()));
    }
    const caInput = readInput(caFile);
    // Embedded re-encoded: exactly the certificates Go loads from the file.
    const ca = await readClusterCa(caInput.bytes, caInput.name);
    const r = initBootstrapTokens({
      server,
      ca,
      tokens,
      description,
      now: ctx.now,
      format,
      ...(ttlMs !== undefined ? { ttlMs } : {}),
      ...(fileConfig ? { specs: fileConfig.bootstrapTokens.map(specOf) } : {}),
      discoveryFile: withDiscoveryFile,
    });

    // Progress is printed only once the run has succeeded, so a failure is one error line.
    const files: OutputFile[] = [];
    let manifests = r.manifests;
    if (protection !== undefined) {
      const objs = protectObjects(r.objects, protection, "init");
      manifests = format === "yaml" ? renderStream(objs) : renderObjects(objs, "json");
      if (outDir !== undefined) files.push(...gitopsLayout(outDir, objs, r));
    }
    if (outDir !== undefined && protection !== undefined) {
      ensureGitopsDirs(outDir, files);
    } else if (outDir !== undefined) {
      const names = initFileNames(format);
      files.push(
        { path: path.join(outDir, names.manifests), data: r.manifests, mode: 0o600 },
        { path: path.join(outDir, names.kubeconfig), data: r.bootstrapKubeconfig, mode: 0o600 },
        { path: path.join(outDir, names.joinCommand), data: r.joinCommand, mode: 0o600 },
        { path: path.join(outDir, names.joinConfig), data: r.joinConfig, mode: 0o600 },
      );
      if (r.discoveryFile !== undefined) {
        files.push({
          path: path.join(outDir, names.discoveryFile),
          data: r.discoveryFile,
          mode: 0o600,
        });
      }
      ensureDir(outDir, 0o700);
    } else if (joinFile !== undefined) {
      files.push({ path: joinFile, data: r.joinCommand, mode: 0o600 });
      ensureDir(path.dirname(joinFile), 0o700);
    }
    if (files.length > 0) writeFilesAtomic(files, force);
    for (const w of fileConfig?.warnings ?? []) ctx.stderr(`warning: ${configFile}: ${w}`);
    for (const line of r.progress) ctx.stderr(line);
    if (outDir === undefined) ctx.stdout(manifests);
    for (const f of files) ctx.stderr(`[bootstrap-token] Wrote ${f.path}`);
  },
};

/**
 * The GitOps directory: public objects (RBAC; kube-public's cluster-info and
 * its Role/RoleBinding) and each protected Secret as files listed in
 * kustomization.yaml, the node's credentials under private/.
 */
function gitopsLayout(dir: string, objs: KubeObject[], r: InitResult): OutputFile[] {
  const names = initFileNames("yaml");
  const isPublic = (o: KubeObject) => o.kind !== "SealedSecret" && o.sops === undefined;
  const inKubePublic = (o: KubeObject) =>
    (o.metadata as { namespace?: unknown } | undefined)?.namespace === "kube-public";
  const privateFiles = [
    { name: names.joinCommand, data: r.joinCommand },
    { name: names.kubeconfig, data: r.bootstrapKubeconfig },
    { name: names.joinConfig, data: r.joinConfig },
    ...(r.discoveryFile !== undefined
      ? [{ name: names.discoveryFile, data: r.discoveryFile }]
      : []),
  ];
  return gitopsFiles(
    dir,
    [
      { name: "rbac.yaml", objects: objs.filter((o) => isPublic(o) && !inKubePublic(o)) },
      { name: "cluster-info.yaml", objects: objs.filter((o) => isPublic(o) && inKubePublic(o)) },
    ],
    objs.filter((o) => !isPublic(o)),
    privateFiles,
  );
}

/** `--config FILE`: the InitConfiguration stream, read as kubeadm init --config reads it. */
function readInitConfigFile(file: string): InitFileConfig {
  const input = readInput(file);
  return readInitConfiguration(readKubeadmDocuments(input.text, input.name), input.name);
}

/** A config file's token as the phase's spec (kubeadm's defaults already applied). */
function specOf(t: InitBootstrapToken): Omit<BootstrapTokenSpec, "token"> {
  return {
    usages: t.usages,
    groups: t.groups,
    ...(t.description !== undefined ? { description: t.description } : {}),
    ...(t.expires !== undefined ? { expires: t.expires } : { ttlMs: t.ttlMs }),
  };
}
