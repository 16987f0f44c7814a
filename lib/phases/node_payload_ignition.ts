/**
 * The Ignition half of node payloads (see `node_payload.ts`): CABPK's
 * files and `kubeadm.service` unit (capi `pkg/ignition/clc/clc.go`), in
 * Ignition spec v3 form (CABPK converts to spec 2.3 through Flatcar's
 * transpiler; v3 drops `filesystem`, and every v3 Ignition reads 3.0.0).
 * User files carry their exact bytes; the config is judged by
 * `ignition_validate.ts` and its data URLs decoded back before it is
 * returned.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { CheckError } from "../base/errors.ts";
import { dataUrlBytes, validateIgnitionConfig } from "./ignition_validate.ts";
import { type PayloadInput, SENTINEL_COMMAND } from "./node_payload.ts";
import { shellJoin } from "./node_payload_text.ts";

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

const UNRESERVED = /[A-Za-z0-9\-_.!~*'()]/;

/** Each byte as the transpiler's data URL writes it (itself, or `%XX`). */
const URL_BYTE: string[] = Array.from({ length: 256 }, (_, b) => {
  const c = String.fromCharCode(b);
  return b < 0x80 && UNRESERVED.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
});

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
  const parts: string[] = ["data:,"];
  for (const b of bytes) parts.push(URL_BYTE[b]!);
  return parts.join("");
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
  content: Uint8Array,
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

/** The argv of the join in `/etc/kubeadm.sh`. */
const IGNITION_JOIN_ARGV = ["kubeadm", "join", "--config", IGNITION_KUBEADM_YML];

/**
 * `/etc/kubeadm.sh` as CABPK's CLC template renders it without pre/post
 * commands: the command keeps the trailing space of an empty verbosity.
 */
export function kubeadmScript(command = `${shellJoin(IGNITION_JOIN_ARGV)} `): string {
  return `#!/bin/bash\nset -e\n\n\n${command}\nmkdir -p /run/cluster-api && ${SENTINEL_COMMAND}\n${
    shellJoin(["mv", IGNITION_KUBEADM_YML, "/tmp/"])
  }\n`;
}

/**
 * The Ignition config: CABPK's files (user files, then `/etc/kubeadm.sh`
 * 0700 and `/etc/kubeadm.yml` 0600 holding `---` and the config) and its
 * `kubeadm.service` unit, in spec v3 form. A user file carries its exact
 * bytes (CABPK's template would normalise its trailing newlines); base64
 * content is decoded. Ends with {@link checkIgnitionConfig}.
 */
export function ignitionConfig(input: PayloadInput): Record<string, unknown> {
  const want: { path: string; bytes: Uint8Array }[] = [];
  const files = (input.files ?? []).map((f) => {
    const bytes = f.encoding === "base64"
      ? new Uint8Array(Buffer.from(f.content, "base64"))
      : new Uint8Array(Buffer.from(f.content, "utf8"));
    want.push({ path: f.path, bytes });
    return ignitionFile(f.path, bytes, f.permissions, f.owner);
  });
  const script = new Uint8Array(Buffer.from(kubeadmScript(), "utf8"));
  const yml = new Uint8Array(Buffer.from(blockScalar(`---\n${input.joinYaml}`), "utf8"));
  want.push({ path: IGNITION_KUBEADM_SH, bytes: script }, {
    path: IGNITION_KUBEADM_YML,
    bytes: yml,
  });
  files.push(
    ignitionFile(IGNITION_KUBEADM_SH, script, "0700"),
    ignitionFile(IGNITION_KUBEADM_YML, yml, "0600"),
  );
  const config = {
    ignition: { version: IGNITION_VERSION },
    storage: { files },
    systemd: { units: [{ contents: KUBEADM_SERVICE, enabled: true, name: "kubeadm.service" }] },
  };
  checkIgnitionConfig(config, want);
  return config;
}

/**
 * The renderer's self-check: `config` passes {@link validateIgnitionConfig}
 * with neither errors nor warnings, and its files are `want`'s, in order,
 * each data URL decoding to exactly those bytes. Throws `CheckError`.
 */
export function checkIgnitionConfig(
  config: unknown,
  want: readonly { path: string; bytes: Uint8Array }[],
): void {
  const r = validateIgnitionConfig(config);
  const first = r.errors[0] ?? r.warnings[0];
  if (first !== undefined) throw new CheckError(`Ignition self-check: ${first}`);
  const files = (config as { storage: { files: { path: string; contents: { source: string } }[] } })
    .storage.files;
  if (files.length !== want.length) throw new CheckError("Ignition self-check: files missing");
  files.forEach((f, i) => {
    const bytes = dataUrlBytes(f.contents.source);
    const w = want[i]!;
    if (f.path !== w.path || !bytes || !Buffer.from(bytes).equals(Buffer.from(w.bytes))) {
      throw new CheckError(`Ignition self-check: ${w.path} is not carried byte for byte`);
    }
  });
}
