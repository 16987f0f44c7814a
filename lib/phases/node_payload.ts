/**
 * A node's first-boot payload that runs `kubeadm join`, shaped as Cluster
 * API's kubeadm bootstrap provider (CABPK) renders it: a `#cloud-config`
 * (capi `bootstrap/kubeadm/pkg/cloudinit`: `node.go`, `controlplane_join.go`,
 * `files.go`, `cloudinit.go`) or an Ignition config with CABPK's files and
 * `kubeadm.service` unit (capi `pkg/ignition/clc/clc.go`), written in
 * Ignition spec v3 form (CABPK converts to spec 2.3 through Flatcar's
 * transpiler; v3 drops `filesystem`, and every v3 Ignition reads 3.0.0).
 *
 * Pure: it takes the rendered JoinConfiguration YAML and file contents.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** Where CABPK's cloud-config puts the JoinConfiguration. */
export const CLOUD_INIT_JOIN_CONFIG = "/run/kubeadm/kubeadm-join-config.yaml";

/** CABPK's placeholder file (it creates /run/cluster-api on Linux and Windows). */
export const PLACEHOLDER_PATH = "/run/cluster-api/placeholder";

/** The placeholder's content, verbatim. */
export const PLACEHOLDER_CONTENT =
  "This placeholder file is used to create the /run/cluster-api sub directory in a way that is compatible with both Linux and Windows (mkdir -p /run/cluster-api does not work with Windows)";

/** The sentinel CABPK's runcmd writes after a successful join. */
export const SENTINEL_COMMAND = "echo success > /run/cluster-api/bootstrap-success.complete";

/** cloud-init's header as CABPK writes it. */
export const CLOUD_CONFIG_HEADER = "## template: jinja\n#cloud-config\n";

/** Where CABPK's Ignition config puts the kubeadm config and script. */
export const IGNITION_KUBEADM_YML = "/etc/kubeadm.yml";
export const IGNITION_KUBEADM_SH = "/etc/kubeadm.sh";

/** The Ignition spec version written (every Ignition v3 reads 3.0.0 configs). */
export const IGNITION_VERSION = "3.0.0";

/** CABPK's `kubeadm.service`, verbatim. */
export const KUBEADM_SERVICE = `[Unit]
Description=kubeadm
# Run only once. After successful run, this file is moved to /tmp/.
ConditionPathExists=/etc/kubeadm.yml
After=network.target
[Service]
# To not restart the unit when it exits, as it is expected.
Type=oneshot
ExecStart=/bin/bash /etc/kubeadm.sh
[Install]
WantedBy=multi-user.target
`;

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

/** The `files` template: one `-   path:` item per file (no leading `write_files:`). */
function cloudInitFile(f: PayloadFile): string {
  let s = `\n-   path: ${f.path}\n`;
  if (f.encoding) s += `    encoding: "${f.encoding}"\n`;
  if (f.owner) s += `    owner: ${f.owner}\n`;
  if (f.permissions) s += `    permissions: '${f.permissions}'\n`;
  s += `    content: |\n${templateYamlIndent(f.content, 6)}`;
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

/**
 * The `#cloud-config` CABPK renders for a worker (`node.go`) or a joining
 * control plane (`controlplane_join.go`), without pre/post commands, users,
 * NTP or disks, and without verbosity (hence two spaces before `&&`).
 *
 * @example
 * ```ts ignore
 * cloudConfig({ joinYaml, controlPlane: false }).startsWith("## template: jinja\n#cloud-config\n\nwrite_files:\n");
 * ```
 */
export function cloudConfig(input: PayloadInput): string {
  const joinContent = input.controlPlane ? input.joinYaml : `---\n${input.joinYaml}`;
  let s = `${CLOUD_CONFIG_HEADER}\nwrite_files:`;
  for (const f of input.files ?? []) s += cloudInitFile(f);
  s += `\n-   path: ${CLOUD_INIT_JOIN_CONFIG}\n    owner: root:root\n    permissions: '0640'\n`;
  s += `    content: |\n${templateYamlIndent(joinContent, 6)}`;
  s += `\n-   path: ${PLACEHOLDER_PATH}\n    owner: root:root\n    permissions: '0640'\n`;
  s += `    content: "${PLACEHOLDER_CONTENT}"`;
  s += `\nruncmd:\n  - kubeadm join --config ${CLOUD_INIT_JOIN_CONFIG}  && ${SENTINEL_COMMAND}\n`;
  return s;
}

// ---------------------------------------------------------------------------
// Ignition.

const UNRESERVED = /[A-Za-z0-9\-_.!~*'()]/;

/**
 * The transpiler's `"data:," + dataurl.EscapeString(s)`: every byte outside
 * `A–Z a–z 0–9 - _ . ! ~ * ' ( )` as `%XX`, upper-case hex.
 *
 * @example
 * ```ts
 * dataUrl("foo ALL=(ALL) NOPASSWD:ALL\n"); // "data:,foo%20ALL%3D(ALL)%20NOPASSWD%3AALL%0A"
 * ```
 */
export function dataUrl(content: string | Uint8Array): string {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content);
  let out = "data:,";
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** CABPK's `parseOwner`: `u:g`, `u`, `u:`, `:g`, each part trimmed; empty parts dropped. */
export function parseOwner(owner: string): { user?: string; group?: string } {
  if (owner === "") return {};
  const parts = owner.split(":");
  const part = (p: string | undefined) => (p === undefined || p === "" ? undefined : p.trim());
  const user = part(parts[0]);
  const group = parts.length === 1 ? undefined : part(parts[1]);
  return { ...(user !== undefined ? { user } : {}), ...(group !== undefined ? { group } : {}) };
}

/**
 * A YAML `|` block scalar's value for text placed in one (CLC's `inline: |`):
 * trailing blank lines dropped, exactly one final newline (clip chomping).
 */
function blockScalar(text: string): string {
  const trimmed = text.replace(/(?:\n[ \t]*)+$/, "").replace(/[ \t]+$/, "");
  return trimmed === "" ? "" : trimmed + "\n";
}

/** The decimal `mode` of an octal permission string (YAML reads `0640` as octal). */
export function octalMode(permissions: string): number {
  if (!/^0?[0-7]{1,4}$/.test(permissions)) throw new RangeError(`bad permissions ${permissions}`);
  return parseInt(permissions, 8);
}

function ignitionFile(
  path: string,
  content: string | Uint8Array,
  permissions: string | undefined,
  owner = "",
): Record<string, unknown> {
  const f: Record<string, unknown> = { path, contents: { source: dataUrl(content) } };
  const o = parseOwner(owner);
  if (o.user !== undefined) f.user = { name: o.user };
  if (o.group !== undefined) f.group = { name: o.group };
  if (permissions) f.mode = octalMode(permissions);
  return f;
}

/**
 * `/etc/kubeadm.sh` as CABPK's CLC template renders it without pre/post
 * commands: the command keeps the trailing space of an empty verbosity.
 */
export function kubeadmScript(command = "kubeadm join --config /etc/kubeadm.yml "): string {
  return `#!/bin/bash\nset -e\n\n\n${command}\nmkdir -p /run/cluster-api && ${SENTINEL_COMMAND}\nmv /etc/kubeadm.yml /tmp/\n`;
}

/**
 * The Ignition config: CABPK's files (user files, then `/etc/kubeadm.sh`
 * 0700 and `/etc/kubeadm.yml` 0600 holding `---` and the config) and its
 * `kubeadm.service` unit, in spec v3 form.
 */
export function ignitionConfig(input: PayloadInput): Record<string, unknown> {
  const files = (input.files ?? []).map((f) => {
    const content = f.encoding === "base64"
      ? new Uint8Array(Buffer.from(f.content, "base64"))
      : blockScalar(f.content);
    return ignitionFile(f.path, content, f.permissions, f.owner);
  });
  files.push(
    ignitionFile(IGNITION_KUBEADM_SH, kubeadmScript(), "0700"),
    ignitionFile(IGNITION_KUBEADM_YML, blockScalar(`---\n${input.joinYaml}`), "0600"),
  );
  return {
    ignition: { version: IGNITION_VERSION },
    storage: { files },
    systemd: { units: [{ contents: KUBEADM_SERVICE, enabled: true, name: "kubeadm.service" }] },
  };
}
