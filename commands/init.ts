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
import { parseManifests } from "../lib/k8s/manifest.ts";
import {
  type InitBootstrapToken,
  type InitFileConfig,
  readInitConfiguration,
} from "../lib/kubeadm/init_config.ts";
import { generateToken, parseToken } from "../lib/tokens/token.ts";
import { INIT_DESCRIPTION, initBootstrapTokens, initFileNames } from "../lib/phases/init.ts";
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

Usage:
  joinkit init --server https://HOST:PORT --ca CA.crt --out-dir DIR [flags]
  joinkit init --server https://HOST:PORT --ca CA.crt --token T [flags] | kubectl apply -f -
  joinkit init --server https://HOST:PORT --ca CA.crt --join-file FILE [flags] | kubectl apply -f -

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
    const configFile = flagString(ctx.flags, "config");
    if (configFile !== undefined) {
      // kubeadm's ValidateMixedArguments: the file replaces these flags.
      const mixed = ["description", "token", "ttl"].filter((n) => ctx.flags[n] !== undefined);
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
    if (outDir !== undefined) {
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
    if (outDir === undefined) ctx.stdout(r.manifests);
    for (const f of files) ctx.stderr(`[bootstrap-token] Wrote ${f.path}`);
  },
};

/** `--config FILE`: the InitConfiguration stream, read as kubeadm init --config reads it. */
function readInitConfigFile(file: string): InitFileConfig {
  const input = readInput(file);
  return readInitConfiguration(parseManifests(input.text, input.name), input.name);
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
