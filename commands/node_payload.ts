/**
 * `joinkit node-payload`: one first-boot payload per node that runs
 * `kubeadm join`, as Cluster API's kubeadm bootstrap provider renders it
 * (`#cloud-config` or Ignition), from a JoinConfiguration and a node list.
 * The payloads themselves are lib/phases/node_payload.ts; the
 * JoinConfiguration handling is lib/kubeadm/join_config.ts.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import * as path from "node:path";
import { CheckError, InputError, quote, UsageError } from "../lib/base/errors.ts";
import { aggregateErrors } from "../lib/go/aggregate.ts";
import { type ParsedKubeconfig, parseKubeconfig } from "../lib/k8s/kubeconfig_read.ts";
import { toJson, toYaml } from "../lib/k8s/manifest.ts";
import { readKubeadmDocuments } from "../lib/kubeadm/init_config.ts";
import {
  decodeJoinConfiguration,
  JOIN_KIND,
  type JoinConfig,
  joinConfigObject,
} from "../lib/kubeadm/join_config.ts";
import {
  cloudConfig,
  type PayloadFile,
  payloadJoinProblems,
  refuseUnreadableJoinYaml,
} from "../lib/phases/node_payload.ts";
import { ignitionConfig } from "../lib/phases/node_payload_ignition.ts";
import { userFilePathProblem } from "../lib/phases/node_payload_paths.ts";
import { goUrlParse } from "../lib/go/url.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagChoice,
  flagOut,
  flagSet,
  flagString,
  requireString,
} from "./_flags.ts";
import { ensureDir, type OutputFile, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";
import { flagNodeNames, readNodeList } from "./_nodes.ts";

/** The payload formats, as CABPK's `format` names them. */
const FORMATS = ["cloud-config", "ignition"] as const;
type Format = typeof FORMATS[number];

/** The file each format is written to under --out-dir. */
const EXTENSION: Record<Format, string> = { "cloud-config": "cloud-config", ignition: "ign" };

/** Most nodes one run renders for. */
export const MAX_NODES = 10_000;

const FLAGS = flagSet("node-payload", [
  [
    "config",
    "the JoinConfiguration to join with (required; e.g. from 'joinkit\njoin-config'); nodeRegistration.name is set per node",
  ],
  ["node", "node name, repeatable (or give a NODES file)"],
  ["format", "cloud-config (default) or ignition"],
  "discovery-kubeconfig",
  ["out-dir", "write DIR/<node>.cloud-config or DIR/<node>.ign (0600; DIR 0700)"],
  ["out", "one node: write the payload to FILE (0600) instead of stdout"],
  "force",
]);

export const command: Command = {
  name: "node-payload",
  options: FLAGS.options,
  help: `Render each node's first-boot payload that runs 'kubeadm join', offline.

Shaped as Cluster API's kubeadm bootstrap provider (CABPK) renders it:
  cloud-config  "#cloud-config" (no "## template: jinja" header: nothing in
                the payload is a template); write_files (4-space items:
                path, owner, permissions, content | indented 6, or base64
                when a block would not give the bytes back):
                  [the discovery kubeconfig, for file discovery]
                  /run/kubeadm/kubeadm-join-config.yaml  root:root '0640'
                      (a worker's starts with '---', as CABPK's)
                  /run/cluster-api/placeholder            root:root '0640'
                runcmd: kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml
                        && echo success > /run/cluster-api/bootstrap-success.complete
  ignition      spec ${"3.0.0"} JSON: storage.files with data: URLs (RFC 2397,
                the transpiler's escaping) and decimal modes:
                  [the discovery kubeconfig]
                  /etc/kubeadm.sh   0700 (448)  runs the join, then moves
                                                /etc/kubeadm.yml to /tmp/
                  /etc/kubeadm.yml  0600 (384)  '---' + the JoinConfiguration
                systemd.units: kubeadm.service (enabled, oneshot, only while
                /etc/kubeadm.yml exists), CABPK's unit verbatim
                (CABPK itself emits spec 2.3.0 through Flatcar's transpiler;
                this is the same content in the v3 form every current
                Ignition reads)

The JoinConfiguration comes from --config (one ${JOIN_KIND}, v1beta4 or
v1beta3, kept in its version); each node gets it with nodeRegistration.name
set to its name, judged as 'kubeadm join --config' would (exit 3 with
kubeadm's text if it would refuse). Nodes come from --node (repeatable) and
the NODES file (one name per line, '#' comments); none: one payload from the
config as it is. A control-plane config (controlPlane set) uses CABPK's
control-plane template; its certificates come from the kubeadm-certs Secret
('joinkit upload-certs') through controlPlane.certificateKey, not as files.

File discovery (discovery.file.kubeConfigPath is a path or a file:// URL)
needs the file on the node: --discovery-kubeconfig FILE is written there
byte for byte, root:root, '0640' as CABPK writes it, '0600' when it carries
credentials. The path must be absolute and fully simplified (Ignition's
rule) and clear of every file the payload, its commands and kubeadm join
write (kubeadm's preflight checks; ignorePreflightErrors waives those).

What reaches the node is what was judged: values are never evaluated
(no template header; commands are fixed, their words shell-quoted), and
each payload is read back before it is written (the cloud-config with a
YAML 1.1 reader, the Ignition config by Ignition's v3 validation rules).

The payloads hold the bootstrap token (and a certificate key for a control
plane): they are written 0600 and nothing secret is printed on stderr.

Usage:
  joinkit node-payload --config JOIN.yaml --node NAME... [NODES] [--format F] [--out-dir DIR]

${FLAGS.help}
Refusals: a node name that cannot be a Node name (DNS-1123 subdomain): exit
2 for --node, 1 in NODES; --config not a JoinConfiguration: exit 1; one that
kubeadm would refuse: exit 3 (file discovery without a TLS bootstrap token
whose --discovery-kubeconfig has no credentials, too); a discovery path that
is relative, not fully simplified or collides with another file: exit 2; a
value with an unpaired UTF-16 surrogate (kubeadm's YAML reader refuses it):
exit 2; a discovery kubeconfig that is not UTF-8: exit 1; a payload that
fails its read-back: exit 3. Nothing is written on any refusal.

${EXIT_CODES}

Examples:
  joinkit join-config --server 10.0.0.1:6443 --token "$TOKEN" --ca pki/ca.crt > join.yaml
  joinkit node-payload --config join.yaml --node worker-1 > worker-1.cloud-config
  joinkit node-payload --config join.yaml nodes.txt --format ignition --out-dir payloads
`,
  run(ctx) {
    expectArgs(ctx, 0, 1, "NODES");
    const format = flagChoice(ctx.flags, "format", FORMATS, "cloud-config");
    const flagNodes = flagNodeNames(ctx.flags);
    const outDir = flagString(ctx.flags, "out-dir");
    if (outDir === "") throw new UsageError("--out-dir must not be empty");
    const out = flagOut(ctx.flags);
    if (out !== undefined && outDir !== undefined) {
      throw new UsageError("--out and --out-dir: give one");
    }
    const force = flagBool(ctx.flags, "force");
    const configPath = requireString(ctx.flags, "config");
    const kubeconfigPath = flagString(ctx.flags, "discovery-kubeconfig");

    const nodes = [...flagNodes];
    if (ctx.args[0] !== undefined) nodes.push(...readNodeList(ctx.args[0]));
    if (nodes.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
    const seen = new Set<string>();
    for (const n of nodes) {
      if (seen.has(n)) throw new UsageError(`node ${JSON.stringify(n)} given twice`);
      seen.add(n);
    }
    if (nodes.length > 1 && outDir === undefined) {
      throw new UsageError(`${nodes.length} nodes: give --out-dir DIR for one payload each`);
    }

    const { config, version, source, warnings } = readJoinConfig(configPath);
    const files: PayloadFile[] = [];
    const file = config.discovery.file?.kubeConfigPath;
    const onNode = file === undefined ? undefined : nodePathOf(file);
    const field = `${source}: discovery.file.kubeConfigPath ${quote(file ?? "")}`;
    if (onNode !== undefined && kubeconfigPath === undefined) {
      throw new UsageError(
        `${source}: file discovery reads ${onNode} on the node: give --discovery-kubeconfig FILE to carry it (see 'joinkit discovery-file')`,
      );
    }
    if (onNode === undefined && kubeconfigPath !== undefined) {
      throw new UsageError(
        `--discovery-kubeconfig: ${source} has no file discovery with a path (discovery.file.kubeConfigPath)`,
      );
    }
    // The carried discovery kubeconfig: kubeadm join needs credentials in it without a TLS bootstrap token.
    let discoveryKubeconfig: ParsedKubeconfig | undefined;
    if (onNode !== undefined) {
      const problem = userFilePathProblem(onNode, {
        format,
        controlPlane: config.controlPlane !== undefined,
        ...(config.caCertPath ? { caCertPath: config.caCertPath } : {}),
        ignorePreflightErrors: config.nodeRegistration.ignorePreflightErrors ?? [],
      });
      if (problem !== undefined) throw new UsageError(`${field}: ${problem}`);
      const k = readInput(kubeconfigPath!);
      if (!Buffer.from(k.text, "utf8").equals(Buffer.from(k.bytes))) {
        throw new InputError(`${k.name}: not UTF-8 text: a kubeconfig is YAML`);
      }
      const parsed = parseKubeconfig(k.text, k.name);
      discoveryKubeconfig = parsed;
      const secret = parsed.users.some((u) => u.hasCredentials);
      files.push({
        path: onNode,
        owner: "root:root",
        permissions: secret ? "0600" : "0640",
        content: k.text,
      });
    }

    const names = nodes.length ? nodes : [undefined];
    const payloads = names.map((node) => {
      const cfg: JoinConfig = {
        ...config,
        nodeRegistration: { ...config.nodeRegistration },
      };
      if (node !== undefined) cfg.nodeRegistration.name = node;
      const errs = payloadJoinProblems(cfg, discoveryKubeconfig);
      if (errs.length) {
        throw new CheckError(
          `${source}${node !== undefined ? ` (node ${node})` : ""}: ${aggregateErrors(errs)}`,
        );
      }
      const object = joinConfigObject(cfg, version);
      const joinYaml = toYaml(object);
      refuseUnreadableJoinYaml(object, source);
      const input = { joinYaml, controlPlane: cfg.controlPlane !== undefined, files };
      const text = format === "cloud-config"
        ? cloudConfig(input)
        : toJson(ignitionConfig(input)).replace(/\n?$/, "\n");
      return { node: node ?? cfg.nodeRegistration.name ?? "node", text };
    });

    // Warnings only once nothing can fail any more: a refusal stays one line.
    if (outDir === undefined && out === undefined) {
      for (const w of warnings) ctx.stderr(w);
      ctx.stdout(payloads[0]!.text);
      return;
    }
    const targets: OutputFile[] = payloads.map((p) => ({
      path: out ?? path.join(outDir!, `${p.node}.${EXTENSION[format]}`),
      data: p.text,
      mode: 0o600,
    }));
    ensureDir(outDir ?? path.dirname(out!), 0o700);
    writeFilesAtomic(targets, force);
    for (const w of warnings) ctx.stderr(w);
    for (const t of targets) ctx.stderr(`wrote ${t.path} (${format}, mode 0600)`);
  },
};

/** The one JoinConfiguration of `file`, decoded, with kubeadm's strict-decoding warnings. */
function readJoinConfig(
  file: string,
): { config: JoinConfig; version: "v1beta4" | "v1beta3"; source: string; warnings: string[] } {
  const input = readInput(file);
  // kubeadm join's SplitYAMLDocuments before any decoding (a core v1 object, a document without
  // apiVersion or kind, a kind twice, an empty piece, loose JSON: refused with kubeadm's text).
  const joins = readKubeadmDocuments(input.text, input.name).filter((d) => d.kind === JOIN_KIND);
  if (joins.length === 0) throw new InputError(`${input.name}: no ${JOIN_KIND} found`);
  if (joins.length > 1) throw new InputError(`${input.name}: more than one ${JOIN_KIND}`);
  const decoded = decodeJoinConfiguration(joins[0], input.name);
  return {
    config: decoded.config,
    version: decoded.version,
    source: input.name,
    warnings: decoded.warnings.map((w) => `warning: ${input.name}: ${w}`),
  };
}

/**
 * Where file discovery's kubeconfig lives on the node, or undefined when
 * kubeadm fetches it (an https URL) or the value is no file at all (left to
 * kubeadm's validation): a plain path as it is, a `file://` URL's path, as
 * kubeadm's defaulting takes it.
 */
function nodePathOf(kubeConfigPath: string): string | undefined {
  const u = goUrlParse(kubeConfigPath);
  if (!u.ok) return undefined;
  if (u.scheme.toLowerCase() === "file") return goUnescapePath(u.path);
  return u.scheme === "" ? kubeConfigPath : undefined;
}

/** `url.URL.Path`'s unescaping of a path `goUrlParse` accepted (its escapes are valid). */
function goUnescapePath(escaped: string): string {
  return escaped.replace(
    /(?:%[0-9A-Fa-f]{2})+/g,
    (run) => Buffer.from(run.replaceAll("%", ""), "hex").toString("utf8"),
  );
}
