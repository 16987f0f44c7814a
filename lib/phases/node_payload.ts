/**
 * A node's first-boot payload that runs `kubeadm join`, shaped as Cluster
 * API's kubeadm bootstrap provider (CABPK) renders it: a `#cloud-config`
 * (capi `bootstrap/kubeadm/pkg/cloudinit`: `node.go`, `controlplane_join.go`,
 * `files.go`, `cloudinit.go`) or an Ignition config with CABPK's files and
 * `kubeadm.service` unit (capi `pkg/ignition/clc/clc.go`), written in
 * Ignition spec v3 form (CABPK converts to spec 2.3 through Flatcar's
 * transpiler; v3 drops `filesystem`, and every v3 Ignition reads 3.0.0).
 *
 * What reaches the node is byte for byte what joinkit rendered and judged:
 * no `## template: jinja` header (cloud-init would render the whole
 * payload with Jinja2 as root, so a `{{ … }}` in any value would run and a
 * lone `{%` would drop the user data), every file's bytes carried exactly
 * (a block scalar only where a YAML 1.1 reader gives the same bytes back,
 * else base64), paths as escaped YAML scalars, and commands built from
 * argv words each quoted as one shell word. Both renderers end with a
 * self-check (the cloud-config read back with js-yaml; the Ignition config
 * judged by `ignition_validate.ts` and its data URLs decoded) and throw
 * `CheckError` when it fails.
 *
 * Pure: it takes the rendered JoinConfiguration YAML and file contents.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { load, YAML11_SCHEMA } from "js-yaml";
import { CheckError, UsageError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import type { ParsedKubeconfig } from "../k8s/kubeconfig_read.ts";
import { type JoinConfig, validateJoinConfig } from "../kubeadm/join_config.ts";
import { blockScalarSafe, shellJoin, yaml11UnsafeChar, yamlScalar } from "./node_payload_text.ts";

/** Where CABPK's cloud-config puts the JoinConfiguration. */
export const CLOUD_INIT_JOIN_CONFIG = "/run/kubeadm/kubeadm-join-config.yaml";

/** CABPK's placeholder file (it creates /run/cluster-api on Linux and Windows). */
export const PLACEHOLDER_PATH = "/run/cluster-api/placeholder";

/** The placeholder's content, verbatim. */
export const PLACEHOLDER_CONTENT =
  "This placeholder file is used to create the /run/cluster-api sub directory in a way that is compatible with both Linux and Windows (mkdir -p /run/cluster-api does not work with Windows)";

/** The sentinel CABPK's runcmd writes after a successful join. */
export const SENTINEL_PATH = "/run/cluster-api/bootstrap-success.complete";

/** The command that writes the sentinel. */
export const SENTINEL_COMMAND = `echo success > ${SENTINEL_PATH}`;

/**
 * cloud-init's header. CABPK writes `## template: jinja` before it, which
 * makes cloud-init render the whole payload as a Jinja2 template at first
 * boot; a payload rendered per node needs no template, so joinkit leaves
 * it out (docs/node-payload.md).
 */
export const CLOUD_CONFIG_HEADER = "#cloud-config\n";

/** One file a payload writes (CABPK's `bootstrapv1.File`). */
export interface PayloadFile {
  path: string;
  /** `user:group`, `user` or `:group`; empty: not set. */
  owner?: string;
  /** Octal string, e.g. `0640`; empty: not set. */
  permissions?: string;
  /** `base64` (content is base64 text) or empty. */
  encoding?: string;
  content: string;
}

/**
 * CABPK's `templateYAMLIndent` (cloud-init): `pad` before the text and after
 * every newline, a trailing newline included.
 *
 * @example
 * ```ts
 * templateYamlIndent("hello\n  world", 2); // "  hello\n    world"
 * ```
 */
export function templateYamlIndent(text: string, n: number): string {
  const pad = " ".repeat(n);
  return pad + text.replaceAll("\n", "\n" + pad);
}

/**
 * How a file's content is written into the cloud-config: CABPK's
 * `content: |` block when a YAML 1.1 reader gives the very same text back
 * ({@link blockScalarSafe}), else base64 (`encoding: "base64"`, which
 * cloud-init decodes), so the file on the node has exactly these bytes.
 */
function cloudInitEncoding(f: PayloadFile): { encoding?: string; content: string } {
  if (f.encoding) return { encoding: f.encoding, content: f.content };
  if (blockScalarSafe(f.content)) return { content: f.content };
  return { encoding: "base64", content: Buffer.from(f.content, "utf8").toString("base64") + "\n" };
}

/**
 * The `files` template: one `-   path:` item per file (no leading
 * `write_files:`). The path is a YAML scalar that reads back as written;
 * owner, permissions and encoding are CABPK's plain forms, so they must be
 * simple words.
 */
function cloudInitFile(f: PayloadFile): string {
  const { encoding, content } = cloudInitEncoding(f);
  if (
    (encoding !== undefined && !/^[A-Za-z0-9+]+$/.test(encoding)) ||
    (f.owner && !/^[A-Za-z0-9._-]*(?::[A-Za-z0-9._-]*)?$/.test(f.owner)) ||
    (f.permissions && !/^0?[0-7]{1,4}$/.test(f.permissions))
  ) {
    throw new RangeError(`${f.path}: encoding, owner or permissions not a simple word`);
  }
  let s = `\n-   path: ${yamlScalar(f.path)}\n`;
  if (encoding) s += `    encoding: "${encoding}"\n`;
  if (f.owner) s += `    owner: ${f.owner}\n`;
  if (f.permissions) s += `    permissions: '${f.permissions}'\n`;
  s += `    content: |\n${templateYamlIndent(content, 6)}`;
  return s;
}

/** What a payload is made of. */
export interface PayloadInput {
  /** The JoinConfiguration as YAML (ends with a newline). */
  joinYaml: string;
  /** A control-plane join (CABPK's control-plane template: no `---` before the config). */
  controlPlane: boolean;
  /** Files written before the join config (CABPK's user files), in order. */
  files?: readonly PayloadFile[];
}

/** The argv of the join in the cloud-config's runcmd. */
const CLOUD_INIT_JOIN_ARGV = ["kubeadm", "join", "--config", CLOUD_INIT_JOIN_CONFIG];

/**
 * The runcmd line: CABPK's, with the kubeadm command made of quoted words
 * and its empty verbosity (hence two spaces before `&&`).
 */
export const CLOUD_INIT_RUNCMD = `${shellJoin(CLOUD_INIT_JOIN_ARGV)}  && ${SENTINEL_COMMAND}`;

/**
 * The `#cloud-config` CABPK renders for a worker (`node.go`) or a joining
 * control plane (`controlplane_join.go`), without the Jinja header,
 * pre/post commands, users, NTP or disks, and without verbosity (hence two
 * spaces before `&&`). Ends with {@link checkCloudConfig}.
 *
 * @example
 * ```ts ignore
 * cloudConfig({ joinYaml, controlPlane: false }).startsWith("#cloud-config\n\nwrite_files:\n");
 * ```
 */
export function cloudConfig(input: PayloadInput): string {
  const joinContent = input.controlPlane ? input.joinYaml : `---\n${input.joinYaml}`;
  let s = `${CLOUD_CONFIG_HEADER}\nwrite_files:`;
  for (const f of input.files ?? []) s += cloudInitFile(f);
  s += cloudInitFile({
    path: CLOUD_INIT_JOIN_CONFIG,
    owner: "root:root",
    permissions: "0640",
    content: joinContent,
  });
  s += `\n-   path: ${PLACEHOLDER_PATH}\n    owner: root:root\n    permissions: '0640'\n`;
  s += `    content: "${PLACEHOLDER_CONTENT}"`;
  s += `\nruncmd:\n  - ${CLOUD_INIT_RUNCMD}\n`;
  checkCloudConfig(s, input);
  return s;
}

/**
 * The renderer's self-check: `text` read back (js-yaml, YAML 1.1 schema)
 * must be a `#cloud-config` without a template header, made only of
 * characters YAML 1.1 readers read as written, whose `write_files` carry
 * exactly `input`'s files, the JoinConfiguration and the placeholder (paths,
 * owners, modes, bytes after cloud-init's decoding), no path twice, and
 * whose `runcmd` is the one join command. Throws `CheckError` otherwise.
 */
export function checkCloudConfig(text: string, input: PayloadInput): void {
  const fail = (why: string): never => {
    throw new CheckError(`cloud-config self-check: ${why}`);
  };
  if (!text.startsWith(CLOUD_CONFIG_HEADER) || /^##\s*template:/im.test(text)) {
    fail("the payload must start with #cloud-config and carry no template header");
  }
  const bad = yaml11UnsafeChar(text);
  if (bad !== undefined) fail(`${bad} stands unescaped in the payload`);
  let doc: unknown;
  try {
    doc = load(text, { schema: YAML11_SCHEMA });
  } catch (err) {
    fail(`does not read back as YAML (${err instanceof Error ? err.message.split("\n")[0] : err})`);
  }
  if (!isObject(doc)) return fail("not a mapping");
  const want = [
    ...(input.files ?? []),
    {
      path: CLOUD_INIT_JOIN_CONFIG,
      owner: "root:root",
      permissions: "0640",
      content: input.controlPlane ? input.joinYaml : `---\n${input.joinYaml}`,
    },
    {
      path: PLACEHOLDER_PATH,
      owner: "root:root",
      permissions: "0640",
      content: PLACEHOLDER_CONTENT,
    },
  ];
  const got = doc.write_files;
  if (!Array.isArray(got) || got.length !== want.length) {
    fail("write_files is not the payload's files");
  }
  const paths = new Set<string>();
  (got as unknown[]).forEach((g, i) => {
    const w = want[i]!;
    if (!isObject(g)) return fail(`write_files[${i}] is not a mapping`);
    if (g.path !== w.path) fail(`write_files[${i}].path does not read back as written`);
    if (paths.has(w.path)) fail(`write_files: ${JSON.stringify(w.path)} twice`);
    paths.add(w.path);
    if ((g.owner ?? "") !== (w.owner ?? "") || (g.permissions ?? "") !== (w.permissions ?? "")) {
      fail(`write_files[${i}]: owner or permissions do not read back as written`);
    }
    const enc = String(g.encoding ?? "");
    const content = typeof g.content === "string" ? g.content : "";
    const bytes = enc === "base64" || enc === "b64"
      ? Buffer.from(content, "base64")
      : Buffer.from(content, "utf8");
    const wantBytes = w.encoding === "base64"
      ? Buffer.from(w.content, "base64")
      : Buffer.from(w.content, "utf8");
    if (!bytes.equals(wantBytes)) {
      fail(`write_files[${i}] (${w.path}): content is not carried byte for byte`);
    }
  });
  const runcmd = doc.runcmd;
  if (!Array.isArray(runcmd) || runcmd.length !== 1 || runcmd[0] !== CLOUD_INIT_RUNCMD) {
    fail("runcmd is not the join command");
  }
}

/**
 * kubeadm's judgement of the JoinConfiguration a payload carries
 * (`validateJoinConfig`), told whether the discovery kubeconfig carried
 * with it (if any) has credentials: its current context's user, as
 * kubeadm's `HasAuthenticationCredentials` looks. File discovery with
 * neither such credentials nor a TLS bootstrap token is what `kubeadm join`
 * refuses (with `NO_DISCOVERY_CREDENTIALS`, kubeadm's text). Returns the error
 * texts, `[]` when valid.
 *
 * @example
 * ```ts ignore
 * payloadJoinProblems(cfg, parseKubeconfig(text, "discovery.conf")); // [NO_DISCOVERY_CREDENTIALS]
 * ```
 */
export function payloadJoinProblems(cfg: JoinConfig, discovery?: ParsedKubeconfig): string[] {
  if (discovery === undefined) return validateJoinConfig(cfg);
  const userName = discovery.contextUsers.get(discovery.currentContext);
  const user = discovery.users.find((u) => u.name === userName);
  return validateJoinConfig(cfg, { discoveryFileHasCredentials: user?.hasCredentials === true });
}

// A UTF-16 surrogate without its pair: no Go string can hold it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Refuses (exit 2) a JoinConfiguration with a key or value that holds an
 * unpaired UTF-16 surrogate, naming its field: `toYaml` can only write it as
 * an escape (`\uD800`) that kubeadm's YAML reader refuses ("found invalid
 * Unicode character escape code"). Every other string reads back unchanged,
 * since `toYaml` writes what go-yaml writes (tests/fixtures/yaml).
 *
 * @example
 * ```ts
 * import { refuseUnreadableJoinYaml } from "./node_payload.ts";
 * refuseUnreadableJoinYaml({ a: "ok \u2028 too" }, "join.yaml"); // returns
 * let refused = false;
 * try {
 *   refuseUnreadableJoinYaml({ a: "\ud800" }, "join.yaml");
 * } catch {
 *   refused = true; // UsageError: join.yaml: a holds an unpaired surrogate, …
 * }
 * if (!refused) throw new Error("a lone surrogate must be refused");
 * ```
 */
export function refuseUnreadableJoinYaml(object: unknown, source: string): void {
  const field = findField(object, (s) => LONE_SURROGATE.test(s));
  if (field === undefined) return;
  throw new UsageError(
    `${source}: ${field} holds an unpaired surrogate, which kubeadm's YAML reader (go-yaml) refuses: "found invalid Unicode character escape code"`,
  );
}

/** The dotted path of the first string in `v` that `test` accepts. */
function findField(v: unknown, test: (s: string) => boolean, at = ""): string | undefined {
  if (typeof v === "string") return test(v) ? at || "(top)" : undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const f = findField(v[i], test, `${at}[${i}]`);
      if (f !== undefined) return f;
    }
    return undefined;
  }
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (test(k)) return at ? `${at}.${k}` : k;
      const f = findField(x, test, at ? `${at}.${k}` : k);
      if (f !== undefined) return f;
    }
  }
  return undefined;
}
