/**
 * `joinkit join-config`: kubeadm's JoinConfiguration for one node (worker or
 * control plane, token or file discovery), minimal and judged by kubeadm's
 * own defaulting and validation; or, given a file, re-judge it and convert
 * it between v1beta4 and v1beta3. The domain code is
 * `lib/kubeadm/join_config.ts`.
 *
 * @module
 */

import { aggregateErrors } from "../lib/go/aggregate.ts";
import { CheckError, InputError, UsageError } from "../lib/base/errors.ts";
import { goQuote } from "../lib/go/quote.ts";
import { parseManifests, toJson, toYaml } from "../lib/k8s/manifest.ts";
import { checkKubeadmDocumentSplit, KUBEADM_GROUP, KUBEADM_VERSIONS } from "../lib/kubeadm/api.ts";
import { splitYamlDocuments } from "../lib/kubeadm/init_config.ts";
import {
  type Arg,
  decodeJoinConfiguration,
  JOIN_KIND,
  joinConfigFromOptions,
  joinConfigObject,
  type JoinConfigOptions,
  NO_DISCOVERY_CREDENTIALS,
  renderJoinConfiguration,
  type Taint,
  validateCertificateKey,
  validateJoinConfig,
  validateSocketPath,
} from "../lib/kubeadm/join_config.ts";
import { checkDiscoveryFile } from "../lib/discovery/discovery_file.ts";
import { loadClusterCa } from "../lib/pki/certsource.ts";
import { caCertHash } from "../lib/pki/pin.ts";
import { parseToken, tokenString } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES, type Flags } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagChoice,
  flagInt,
  flagList,
  flagOut,
  flagPins,
  flagSet,
  flagString,
  flagToken,
  flagUnsafe,
  outputFormat,
  parseServerFlag,
} from "./_flags.ts";
import { ensureParentDir, writeFileAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";
import { isIP } from "node:net";

const FLAGS = flagSet("join-config", [
  ["server", "token discovery: the API server HOST:PORT (or https://HOST:PORT)"],
  [
    "token",
    "the bootstrap token (token discovery; with --discovery-file, the\nTLS bootstrap token)",
  ],
  ["ca", "PEM CA certificate or bundle: one caCertHashes pin per certificate"],
  "discovery-token-ca-cert-hash",
  "discovery-token-unsafe-skip-ca-verification",
  "discovery-file",
  [
    "discovery-kubeconfig",
    "the discovery file itself (a local copy): with file discovery and no\nTLS bootstrap token, it must carry credentials, as kubeadm join needs",
  ],
  "tls-bootstrap-token",
  ["node", "nodeRegistration.name (default: the node's hostname, filled by kubeadm)"],
  ["cri-socket", "nodeRegistration.criSocket (default: detected by kubeadm)"],
  "taint",
  "kubelet-arg",
  ["control-plane", "join as a control-plane node (needs --certificate-key)"],
  "certificate-key",
  "apiserver-advertise-address",
  "apiserver-bind-port",
  ["api-version", "v1beta4 (default) or v1beta3; with FILE: convert to it"],
  ["output", "yaml (default) or json"],
  ["out", "write to FILE (0600: it holds the token) instead of stdout"],
  "force",
]);

/** The flags that describe a new config (refused with FILE). */
const RENDER_FLAGS = FLAGS.names.filter((n) =>
  !["api-version", "output", "out", "force", "discovery-kubeconfig"].includes(n)
);

export const command: Command = {
  name: "join-config",
  options: FLAGS.options,
  help: `Render kubeadm's JoinConfiguration for 'kubeadm join --config', offline.

${KUBEADM_GROUP}/v1beta4 by default (kubeadm v1.31+), v1beta3 with
--api-version v1beta3 (kubeadm v1.22-v1.35; its kubeletExtraArgs is a map,
where a later duplicate wins). The file is minimal: fields kubeadm defaults
(caCertPath, bindPort 6443, tlsBootstrapToken, timeouts, imagePullPolicy)
are left out unless given; nodeRegistration.taints stays null (a control
plane then gets the control-plane taint; --taint '' writes [] for none).
The result is judged as kubeadm does (static and dynamic defaults, then
ValidateJoinConfiguration, with kubeadm's texts) before it is printed.

Discovery, one of:
  token  --server HOST:PORT --token T and the CA pins: --ca CA.crt (one pin
         per certificate), --discovery-token-ca-cert-hash, or
         --discovery-token-unsafe-skip-ca-verification
  file   --discovery-file PATH (the kubeconfig's path, or an https URL, on
         the node; see 'joinkit discovery-file') and --tls-bootstrap-token T
         (or --token T); without one, --discovery-kubeconfig FILE (a local
         copy of that file) must show credentials in it, else kubeadm join
         fails on the node ("could not find authentication credentials ...")

Control plane: --control-plane --certificate-key KEY (the key the
kubeadm-certs Secret was encrypted with, 64 hex characters), optionally
--apiserver-advertise-address IP and --apiserver-bind-port PORT.

With FILE (a JoinConfiguration, or a stream holding one; - for stdin) it
decodes and judges it as kubeadm join --config would (its loader: unknown
fields are warnings; 'kubeadm config validate' would refuse them), with
ValidateJoinConfiguration and then what kubeadm join refuses before it
dials (malformed caCertHashes; file discovery without a TLS bootstrap token
whose discovery file, given with --discovery-kubeconfig, has no
credentials, or is not given), then prints it again, as --api-version
(default: its own version). Fields kubeadm fills on the node (name, CRI
socket, advertise address) are taken as filled; a discovery file path is
not checked for existence (it is a path on the node).

Usage:
  joinkit join-config --server HOST:PORT --token T --ca CA.crt [--node NAME] [flags]
  joinkit join-config --discovery-file PATH --tls-bootstrap-token T [flags]
  joinkit join-config FILE [--api-version v1beta4|v1beta3] [-o json]

${FLAGS.help}
Refusals: a malformed flag value, a node name that is not a DNS-1123
subdomain, --control-plane without --certificate-key, a certificate key of
the wrong length or not hex: exit 2. FILE not a JoinConfiguration of a known
version, or not decodable: exit 1. FILE that kubeadm join would reject, or
file discovery without a TLS bootstrap token and no --discovery-kubeconfig
to prove credentials: exit 3, with kubeadm's text. Token secrets and certificate keys are never printed
on stderr.

${EXIT_CODES}

Examples:
  joinkit join-config --server 10.0.0.1:6443 --token "$TOKEN" --ca pki/ca.crt \\
    --node worker-1 --kubelet-arg node-ip=10.0.0.21 --out worker-1.yaml
  joinkit join-config --server 10.0.0.1:6443 --token "$TOKEN" --ca pki/ca.crt \\
    --control-plane --certificate-key "$KEY" --apiserver-advertise-address 10.0.0.12
  joinkit join-config --discovery-file /etc/kubernetes/discovery.conf --token "$TOKEN"
  joinkit join-config old.yaml --api-version v1beta4 > new.yaml
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "FILE");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const out = flagOut(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    const versionFlag = ctx.flags["api-version"] === undefined
      ? undefined
      : flagChoice(ctx.flags, "api-version", KUBEADM_VERSIONS, "v1beta4");
    let obj: Record<string, unknown>;
    // Warnings wait for success: a refusal stays one line.
    const notes: string[] = [];
    if (ctx.args.length === 1) {
      const mixed = RENDER_FLAGS.filter((n) => ctx.flags[n] !== undefined);
      if (mixed.length > 0) {
        throw new UsageError(`FILE cannot be combined with --${mixed[0]}: it describes the config`);
      }
      obj = revalidate(
        ctx.args[0]!,
        versionFlag,
        flagString(ctx.flags, "discovery-kubeconfig"),
        (l) => notes.push(l),
      );
    } else {
      obj = await renderFromFlags(ctx.flags, versionFlag ?? "v1beta4");
    }
    const text = format === "json" ? toJson(obj) : toYaml(obj);
    if (out === undefined) {
      ctx.stdout(text);
    } else {
      ensureParentDir(out);
      writeFileAtomic({ path: out, data: text, mode: 0o600 }, force);
    }
    for (const n of notes) ctx.stderr(n);
    if (out !== undefined) ctx.stderr(`wrote ${out} (0600)`);
  },
};

/** `KEY[=VALUE]:EFFECT`, as kubectl taint and the kubelet's --register-with-taints spell it. */
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const QUALIFIED_NAME =
  /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function parseTaints(values: string[]): Taint[] | undefined {
  if (values.length === 0) return undefined;
  if (values.includes("")) {
    if (values.length > 1) {
      throw new UsageError("--taint '' (no taints) cannot be combined with taints");
    }
    return [];
  }
  return values.map((v) => {
    const m = /^([^=:]+)(?:=([^:]*))?:([^:]+)$/.exec(v);
    if (!m) throw new UsageError(`invalid --taint ${goQuote(v)}: want KEY[=VALUE]:EFFECT`);
    const [, key, value, effect] = m as unknown as [string, string, string | undefined, string];
    if (!QUALIFIED_NAME.test(key) || (key.split("/").pop() ?? "").length > 63) {
      throw new UsageError(`invalid --taint ${goQuote(v)}: key is not a qualified name`);
    }
    if (value !== undefined && !LABEL_VALUE.test(value)) {
      throw new UsageError(`invalid --taint ${goQuote(v)}: value is not a valid label value`);
    }
    if (!TAINT_EFFECTS.includes(effect)) {
      throw new UsageError(
        `invalid --taint ${goQuote(v)}: effect must be one of ${TAINT_EFFECTS.join(", ")}`,
      );
    }
    return value ? { key, value, effect } : { key, effect };
  });
}

function parseArgs(values: string[]): Arg[] {
  return values.map((v) => {
    const i = v.indexOf("=");
    const name = i < 0 ? v : v.slice(0, i);
    if (name === "" || name.startsWith("-")) {
      throw new UsageError(
        `invalid --kubelet-arg ${goQuote(v)}: want NAME=VALUE, NAME without leading dashes`,
      );
    }
    return { name, value: i < 0 ? "" : v.slice(i + 1) };
  });
}

/** The config described by the flags, judged; every refusal is a usage error. */
async function renderFromFlags(
  flags: Flags,
  version: "v1beta4" | "v1beta3",
): Promise<Record<string, unknown>> {
  const serverText = flagString(flags, "server");
  const token = flagToken(flags);
  const tlsText = flagString(flags, "tls-bootstrap-token");
  const tls = tlsText === undefined ? undefined : parseToken(tlsText, "--tls-bootstrap-token");
  const file = flagString(flags, "discovery-file");
  const pins = flagPins(flags);
  const unsafe = flagUnsafe(flags);
  const caFile = flagString(flags, "ca");
  const opts: JoinConfigOptions = { version };

  if (file !== undefined) {
    if (serverText !== undefined || caFile !== undefined || pins.length > 0 || unsafe) {
      throw new UsageError(
        "--discovery-file is file discovery: --server, --ca and the CA pin flags belong to token discovery",
      );
    }
    if (file === "") throw new UsageError("--discovery-file must not be empty");
    opts.discoveryFile = file;
    if (token && tls) throw new UsageError("--token and --tls-bootstrap-token: give one");
    const t = tls ?? token;
    if (t) opts.tlsBootstrapToken = tokenString(t);
    else {
      const kc = flagString(flags, "discovery-kubeconfig");
      if (kc === undefined) {
        throw new UsageError(
          "--discovery-file without --tls-bootstrap-token: kubeadm join then needs credentials in the discovery file; give the token, or --discovery-kubeconfig FILE to show them",
        );
      }
      if (!discoveryFileHasCredentials(kc)) {
        throw new UsageError(`${NO_DISCOVERY_CREDENTIALS} (${kc} has none)`);
      }
    }
  } else {
    if (serverText === undefined) {
      throw new UsageError("missing discovery: give --server and --token, or --discovery-file");
    }
    if (token === undefined) throw new UsageError("missing required flag --token");
    opts.apiServerEndpoint = parseServerFlag(serverText).hostPort;
    opts.token = tokenString(token);
    const all = [...pins];
    if (caFile !== undefined) {
      const ca = readInput(caFile);
      for (const c of await loadClusterCa(ca.bytes, ca.name)) {
        const h = caCertHash(c.der);
        if (!all.includes(h)) all.push(h);
      }
    }
    if (all.length === 0 && !unsafe) {
      throw new UsageError(
        "using token-based discovery without caCertHashes can be unsafe: give --ca or --discovery-token-ca-cert-hash, or --discovery-token-unsafe-skip-ca-verification",
      );
    }
    if (all.length > 0) opts.caCertHashes = all;
    if (unsafe) opts.unsafeSkipCAVerification = true;
    if (tls) opts.tlsBootstrapToken = tokenString(tls);
  }

  if (flagList(flags, "node").length > 1) throw new UsageError("--node given more than once");
  const node = flagString(flags, "node");
  if (node !== undefined) {
    if (node.trim() === "") throw new UsageError("--node must not be empty");
    opts.nodeName = node;
  }
  const socket = flagString(flags, "cri-socket");
  if (socket !== undefined) {
    const s = socket.startsWith("/") ? `unix://${socket}` : socket;
    const errs = validateSocketPath(s, "nodeRegistration.criSocket");
    if (errs.length) throw new UsageError(`--cri-socket: ${aggregateErrors(errs)}`);
    opts.criSocket = socket;
  }
  const taints = parseTaints(flagList(flags, "taint"));
  if (taints !== undefined) opts.taints = taints;
  const args = parseArgs(flagList(flags, "kubelet-arg"));
  if (args.length) opts.kubeletExtraArgs = args;

  const key = flagString(flags, "certificate-key");
  const address = flagString(flags, "apiserver-advertise-address");
  const portGiven = flags["apiserver-bind-port"] !== undefined;
  const controlPlane = flagBool(flags, "control-plane") || key !== undefined;
  if (!controlPlane && (address !== undefined || portGiven)) {
    throw new UsageError(
      "--apiserver-advertise-address and --apiserver-bind-port need --control-plane",
    );
  }
  if (controlPlane) {
    if (key === undefined || key === "") {
      throw new UsageError(
        "--control-plane needs --certificate-key: the joining node decrypts the kubeadm-certs Secret with it (see 'joinkit upload-certs')",
      );
    }
    const keyErrs = validateCertificateKey(key, "controlPlane.certificateKey");
    if (keyErrs.length) throw new UsageError(`--certificate-key: ${aggregateErrors(keyErrs)}`);
    const cp: NonNullable<JoinConfigOptions["controlPlane"]> = { certificateKey: key };
    if (address !== undefined) {
      if (address.includes("%") || isIP(address) === 0) {
        throw new UsageError(
          `couldn't use ${
            goQuote(address)
          } as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
        );
      }
      cp.advertiseAddress = address;
    }
    if (portGiven) cp.bindPort = flagInt(flags, "apiserver-bind-port", 6443, 1, 65535);
    opts.controlPlane = cp;
  }

  if (file === undefined && flagString(flags, "discovery-kubeconfig") !== undefined) {
    throw new UsageError("--discovery-kubeconfig belongs to file discovery (--discovery-file)");
  }
  const obj = renderJoinConfiguration(opts);
  const errs = validateJoinConfig(joinConfigFromOptions(opts));
  if (errs.length) throw new UsageError(aggregateErrors(errs));
  return obj;
}

/** Whether a local discovery file's current user has credentials (kubeadm's rules; a bad file is a CheckError). */
function discoveryFileHasCredentials(file: string): boolean {
  const k = readInput(file);
  try {
    return checkDiscoveryFile(k.text).hasCredentials;
  } catch (e) {
    if (e instanceof CheckError) throw new CheckError(`${k.name}: ${e.message}`);
    throw e;
  }
}

/** FILE, decoded and judged as kubeadm join --config would; re-serialised as `target`. */
function revalidate(
  file: string,
  target: "v1beta4" | "v1beta3" | undefined,
  discoveryKubeconfig: string | undefined,
  stderr: (line: string) => void,
): Record<string, unknown> {
  const input = readInput(file);
  // kubeadm join's SplitYAMLDocuments refuses a piece that holds no document before any decoding.
  checkKubeadmDocumentSplit(input.text, input.name);
  const docs = parseManifests(input.text, input.name);
  // Every document needs a group, a version and a kind, and no kind may come twice, even in the
  // documents kubeadm join then ignores (SplitYAMLDocuments).
  splitYamlDocuments(docs, input.name);
  const joins = docs.filter((d) => d.kind === JOIN_KIND);
  for (const d of docs) {
    if (d.kind !== JOIN_KIND) {
      stderr(
        `warning: ${input.name}: ignored document ${String(d.apiVersion ?? "")}, Kind=${
          String(d.kind ?? "")
        }`,
      );
    }
  }
  if (joins.length === 0) throw new InputError(`${input.name}: no ${JOIN_KIND} found`);
  if (joins.length > 1) throw new InputError(`${input.name}: more than one ${JOIN_KIND}`);
  const decoded = decodeJoinConfiguration(joins[0], input.name);
  for (const w of decoded.warnings) stderr(`warning: ${input.name}: ${w}`);
  const d = decoded.config.discovery;
  const needsCredentials = d.file !== undefined && d.bootstrapToken === undefined &&
    (d.tlsBootstrapToken ?? "") === "";
  if (discoveryKubeconfig !== undefined && d.file === undefined) {
    throw new UsageError(`--discovery-kubeconfig: ${input.name} has no file discovery`);
  }
  const errs = validateJoinConfig(decoded.config, {
    ...(discoveryKubeconfig !== undefined
      ? { discoveryFileHasCredentials: discoveryFileHasCredentials(discoveryKubeconfig) }
      : {}),
  });
  if (errs.length) throw new CheckError(`${input.name}: ${aggregateErrors(errs)}`);
  if (needsCredentials && discoveryKubeconfig === undefined) {
    throw new CheckError(
      `${input.name}: file discovery without discovery.tlsBootstrapToken: kubeadm join needs credentials in the discovery file; give it with --discovery-kubeconfig FILE to check`,
    );
  }
  const version = target ?? decoded.version;
  if (decoded.version === "v1beta3" && version === "v1beta3") {
    stderr(
      `warning: ${input.name}: ${KUBEADM_GROUP}/v1beta3 is deprecated since kubeadm v1.31 and removed in v1.36; convert with --api-version v1beta4`,
    );
  }
  const dropped: string[] = [];
  const obj = joinConfigObject(decoded.config, version, dropped);
  if (dropped.length) {
    stderr(
      `warning: ${input.name}: ${KUBEADM_GROUP}/${version} cannot hold ${
        dropped.join(", ")
      }: dropped`,
    );
  }
  stderr(
    `ok: ${input.name}: a valid ${KUBEADM_GROUP}/${decoded.version} ${JOIN_KIND}${
      decoded.config.controlPlane ? " (control plane)" : ""
    }`,
  );
  return obj;
}
