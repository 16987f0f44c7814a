/**
 * `kubeadm config validate --config FILE` offline (k/k
 * `util/config/common.go` `ValidateConfig`): every document's kind known,
 * the Init/ClusterConfiguration read with the strict decoder and judged by
 * `ValidateInitConfiguration`, a JoinConfiguration read with the strict
 * decoder and judged by `ValidateJoinConfiguration`. The verdicts and
 * texts are held to real kubeadm v1.32.5 by the corpus in
 * `tests/fixtures/kubeadm/validate/`.
 *
 * Which decoder: `kubeadm config validate` is strict (an unknown or
 * duplicate field is an error); `kubeadm init --config` and `kubeadm join
 * --config` only log unknown fields as warnings (`strictErrors` false in
 * `documentMapToInitConfiguration`/`documentMapToJoinConfiguration`).
 * joinkit refuses a duplicate key everywhere (its YAML reader does).
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { aggregateErrors } from "../go/aggregate.ts";
import { goQuote } from "../go/quote.ts";
import { type KubeObject, parseManifests } from "../k8s/manifest.ts";
import { checkKubeadmDocumentSplit, DocReader, KUBEADM_GROUP } from "./api.ts";
import { parseDuration } from "../go/duration.ts";
import {
  CLUSTER_KIND,
  INIT_KIND,
  readInitConfiguration,
  splitYamlDocuments,
  TIMEOUT_FIELDS,
} from "./init_config.ts";
import { decodeJoinConfiguration, JOIN_KIND, validateJoinConfig } from "./join_config.ts";

/** The kinds kubeadm v1.32's scheme knows in v1beta3/v1beta4. */
const KUBEADM_KINDS: Record<string, readonly string[]> = {
  v1beta3: [INIT_KIND, CLUSTER_KIND, JOIN_KIND],
  v1beta4: [INIT_KIND, CLUSTER_KIND, JOIN_KIND, "ResetConfiguration", "UpgradeConfiguration"],
};
/** Component config kinds kubeadm reads (`componentconfigs.Scheme`). */
const COMPONENT_KINDS: Record<string, string> = {
  "kubelet.config.k8s.io/v1beta1": "KubeletConfiguration",
  "kubeproxy.config.k8s.io/v1alpha1": "KubeProxyConfiguration",
};
const OLD = ["v1alpha1", "v1alpha2", "v1alpha3", "v1beta1", "v1beta2"];

/** What {@link validateKubeadmConfig} decided. */
export type ConfigVerdict =
  | { ok: true; warnings: string[] }
  /** `exit`: 3 for field errors (`ValidateInitConfiguration`/`ValidateJoinConfiguration`), 1 for the rest, as kubeadm. */
  | { ok: false; exit: 1 | 3; message: string };

/** Options of {@link validateKubeadmConfig}. */
export interface ConfigValidateOptions {
  /** The host's name (kubeadm: `os.Hostname()`), for configs without a node name. */
  hostname?: string;
  /** kubeadm's `os.Stat` of a discovery file path; absent: every path exists. */
  fileExists?: (path: string) => boolean;
}

/** Go's `%#v` of a `[]schema.GroupVersionKind`. */
function gvkList(gvks: readonly [string, string, string][]): string {
  return `[]schema.GroupVersionKind{${
    gvks.map(([g, v, k]) =>
      `schema.GroupVersionKind{Group:${goQuote(g)}, Version:${goQuote(v)}, Kind:${goQuote(k)}}`
    ).join(", ")
  }}`;
}

/** v1beta4 `ResetConfiguration`'s fields (kubeadm decodes it strictly; it validates none of them). */
const RESET_FIELDS = [
  "apiVersion",
  "kind",
  "cleanupTmpDir",
  "certificatesDir",
  "criSocket",
  "dryRun",
  "force",
  "ignorePreflightErrors",
  "skipPhases",
  "unmountFlags",
  "timeouts",
];

/**
 * A ResetConfiguration decoded strictly, as `kubeadm config validate` does:
 * a field of the wrong type or a bad duration throws; unknown fields come
 * back as strict-decoding errors.
 */
function resetDecodingErrors(doc: KubeObject): string[] {
  const r = new DocReader("");
  const top = r.object(doc, "", RESET_FIELDS) ?? {};
  for (const k of ["cleanupTmpDir", "dryRun", "force"]) r.bool(top[k], k);
  for (const k of ["certificatesDir", "criSocket"]) r.string(top[k], k);
  for (const k of ["ignorePreflightErrors", "skipPhases", "unmountFlags"]) r.strings(top[k], k);
  const to = r.object(top.timeouts, "timeouts", TIMEOUT_FIELDS) ?? {};
  for (const k of TIMEOUT_FIELDS) {
    const s = r.string(to[k], `timeouts.${k}`);
    if (s === undefined) continue;
    try {
      parseDuration(s);
    } catch {
      throw new InputError(`: timeouts.${k}: time: invalid duration ${goQuote(s)}`);
    }
  }
  return r.warnings;
}

/** Whether a message is a field-error list (kubeadm exits 3 on those). */
function isFieldErrors(msg: string): boolean {
  return /^\[?[A-Za-z0-9.[\]-]+: (Invalid value|Required value|Unsupported value)/.test(msg);
}

/**
 * Judges a kubeadm config stream as `kubeadm config validate` does (strict
 * decoding, then the whole validation). Never throws for bad input: the
 * refusal comes back with its text, prefixed by nothing (kubeadm names no
 * file); secrets are withheld from it.
 */
export function validateKubeadmConfig(
  docs: readonly KubeObject[],
  opts: ConfigValidateOptions = {},
): ConfigVerdict {
  const unknown: [string, string, string][] = [];
  let hasInit = false, hasJoin = false;
  try {
    splitYamlDocuments(docs, "");
  } catch (e) {
    const message = (e as Error).message.replace(/^: /, "");
    return { ok: false, exit: message.includes("specified twice") ? 3 : 1, message };
  }
  for (const d of docs) {
    const apiVersion = String(d.apiVersion);
    const kind = String(d.kind);
    const [group, version = ""] = apiVersion.split("/", 2);
    if (group === KUBEADM_GROUP && OLD.includes(version)) continue; // refused below, with its text
    const known = group === KUBEADM_GROUP
      ? (KUBEADM_KINDS[version] ?? []).includes(kind)
      : COMPONENT_KINDS[apiVersion] === kind;
    if (!known) unknown.push([group!, version, kind]);
    if (group === KUBEADM_GROUP && (kind === INIT_KIND || kind === CLUSTER_KIND)) hasInit = true;
    if (group === KUBEADM_GROUP && kind === JOIN_KIND) hasJoin = true;
  }
  if (unknown.length) {
    return { ok: false, exit: 1, message: `unknown configuration APIs: ${gvkList(unknown)}` };
  }
  const warnings: string[] = [];
  try {
    // Old versions of any kind: documentMapToInitConfiguration refuses them first.
    for (const d of docs) {
      const [group, version = ""] = String(d.apiVersion).split("/", 2);
      if (group === KUBEADM_GROUP && OLD.includes(version)) {
        readInitConfiguration([d], "");
      }
    }
    for (const d of docs) {
      if (d.apiVersion === `${KUBEADM_GROUP}/v1beta4` && d.kind === "ResetConfiguration") {
        const errs = resetDecodingErrors(d);
        if (errs.length) return { ok: false, exit: 1, message: errs.join(", ") };
      }
    }
    if (hasInit) {
      const initDocs = docs.filter((d) =>
        String(d.apiVersion).startsWith(`${KUBEADM_GROUP}/`) &&
        (d.kind === INIT_KIND || d.kind === CLUSTER_KIND)
      );
      // The init pass also strict-decodes the other kubeadm documents (a JoinConfiguration).
      const r = readInitConfiguration(
        initDocs,
        "",
        opts.hostname !== undefined ? { strict: true, hostname: opts.hostname } : { strict: true },
      );
      warnings.push(...r.warnings);
    }
    if (hasJoin) {
      const join = docs.filter((d) =>
        String(d.apiVersion).startsWith(`${KUBEADM_GROUP}/`) && d.kind === JOIN_KIND
      );
      const decoded = decodeJoinConfiguration(join[join.length - 1], "");
      if (decoded.warnings.length) {
        return {
          ok: false,
          exit: 1,
          message: decoded.warnings.join(", ").replace(/, strict decoding error: /g, ", "),
        };
      }
      // config validate stops at ValidateJoinConfiguration (join checks the preflight list later).
      const errs = validateJoinConfig(decoded.config, {
        preflightList: false,
        joinTime: false,
        ...(opts.fileExists ? { fileExists: opts.fileExists } : {}),
      });
      if (errs.length) {
        const message = aggregateErrors(errs);
        return { ok: false, exit: isFieldErrors(message) ? 3 : 1, message };
      }
    }
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const message = e.message.replace(/^: /, "");
    return { ok: false, exit: isFieldErrors(message) ? 3 : 1, message };
  }
  if (!hasInit && !hasJoin && !docs.some((d) => String(d.kind).endsWith("Configuration"))) {
    return { ok: false, exit: 1, message: "no kubeadm configuration found" };
  }
  return { ok: true, warnings };
}

/**
 * Judges a kubeadm config file's text as `kubeadm config validate --config`
 * does: kubeadm's document split first (`checkKubeadmDocumentSplit`), then
 * the YAML/JSON reader, then {@link validateKubeadmConfig}. Never throws for
 * bad input.
 */
export function validateKubeadmConfigText(
  text: string,
  opts: ConfigValidateOptions = {},
): ConfigVerdict {
  let docs: KubeObject[];
  try {
    checkKubeadmDocumentSplit(text, "");
    docs = parseManifests(text, "");
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { ok: false, exit: 1, message: e.message.replace(/^: /, "") };
  }
  return validateKubeadmConfig(docs, opts);
}
