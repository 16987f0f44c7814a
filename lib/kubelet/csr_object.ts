/**
 * `certificates.k8s.io/v1` CertificateSigningRequest objects: building the
 * one the kubelet posts, reading objects back (with Go's strict base64 for
 * `spec.request`), and the status changes `kubectl certificate approve` and
 * the signer make.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { InputError, UsageError } from "../base/errors.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { isObject } from "../base/object.ts";
import { formatRfc3339 } from "../go/time.ts";
import {
  BOOTSTRAP_DEFAULT_GROUP,
  BOOTSTRAP_USER_PREFIX,
  isValidBootstrapTokenID,
  validateBootstrapGroupName,
} from "../tokens/token.ts";

/** API version and kind of CSR objects. */
export const CSR_API_VERSION = "certificates.k8s.io/v1";
/** The kind. */
export const CSR_KIND = "CertificateSigningRequest";

/** What the kubelet sends. */
export interface CsrObjectSpec {
  /** Fixed name (bootstrap: `node-csr-…`), or undefined to use `generateName: csr-`. */
  name?: string | undefined;
  requestPem: string;
  signerName: string;
  usages: readonly string[];
  expirationSeconds?: number | undefined;
  /** The user who posts it, as the API server records it ({@link recordRequester}). */
  requester?: Requester | undefined;
}

/** Who posts a CSR, as kube-apiserver records it (see {@link recordRequester}). */
export interface Requester {
  /** `spec.username`. */
  username: string;
  /** `spec.uid`, when the authenticator gives one. */
  uid?: string | undefined;
  /** `spec.groups`. */
  groups: string[];
}

/** The anonymous user and its group (k8s.io/apiserver/pkg/authentication/user). */
const ANONYMOUS = "system:anonymous";
const ALL_AUTHENTICATED = "system:authenticated";
const ALL_UNAUTHENTICATED = "system:unauthenticated";

/**
 * The requester kube-apiserver records in `spec.username`, `spec.uid` and
 * `spec.groups` (the CSR strategy's PrepareForCreate: the authenticated
 * user, whatever the client sent) for a user authenticated as `username`
 * with `groups`:
 * - `system:bootstrap:<token-id>` is the bootstrap token authenticator's
 *   user: the ID must be a token ID, the groups are the token's extra groups
 *   (each `system:bootstrappers:…`, as `ValidateBootstrapGroupName` wants;
 *   `system:bootstrappers` itself may be named too, though a token's Secret
 *   may not list it) plus `system:bootstrappers`, deduplicated and sorted
 *   (`GetGroups`), and it has no UID;
 * - `system:anonymous` has exactly `system:unauthenticated`;
 * - every other user keeps its groups in order, and `AuthenticatedGroupAdder`
 *   appends `system:authenticated` unless it or `system:unauthenticated` is
 *   there.
 * A user these rules cannot produce is refused (UsageError naming `flags`).
 */
export function recordRequester(
  username: string,
  groups: readonly string[],
  uid: string | undefined,
  flags = { user: "--requester", groups: "--groups", uid: "--uid" },
): Requester {
  if (username === "") throw new UsageError(`${flags.user} must not be empty`);
  if (groups.some((g) => g === "")) throw new UsageError(`${flags.groups}: empty group name`);
  if (username.startsWith(BOOTSTRAP_USER_PREFIX)) {
    const id = username.slice(BOOTSTRAP_USER_PREFIX.length);
    if (!isValidBootstrapTokenID(id)) {
      throw new UsageError(
        `${flags.user} ${
          JSON.stringify(username)
        }: the bootstrap token authenticator's users are ` +
          `${BOOTSTRAP_USER_PREFIX}<token-id>, the ID [a-z0-9]{6}`,
      );
    }
    for (const g of groups) {
      if (g === BOOTSTRAP_DEFAULT_GROUP) continue;
      const why = validateBootstrapGroupName(g);
      if (why) throw new UsageError(`${flags.groups}: ${why}`);
    }
    if (uid !== undefined) {
      throw new UsageError(`${flags.uid}: the bootstrap token authenticator gives no UID`);
    }
    const set = [...new Set([BOOTSTRAP_DEFAULT_GROUP, ...groups])].sort();
    return { username, groups: [...set, ALL_AUTHENTICATED] };
  }
  if (username === ANONYMOUS) {
    if (groups.length) throw new UsageError(`${flags.groups}: ${ANONYMOUS} has no other groups`);
    return { username, uid, groups: [ALL_UNAUTHENTICATED] };
  }
  const out = [...groups];
  if (!out.includes(ALL_AUTHENTICATED) && !out.includes(ALL_UNAUTHENTICATED)) {
    out.push(ALL_AUTHENTICATED);
  }
  return { username, uid, groups: out };
}

/** Builds the CertificateSigningRequest object. */
export function buildCsrObject(s: CsrObjectSpec): KubeObject {
  const spec: Record<string, unknown> = {
    request: Buffer.from(s.requestPem, "utf8").toString("base64"),
    signerName: s.signerName,
    usages: [...s.usages],
  };
  if (s.expirationSeconds !== undefined) spec.expirationSeconds = s.expirationSeconds;
  if (s.requester !== undefined) {
    spec.username = s.requester.username;
    if (s.requester.uid !== undefined) spec.uid = s.requester.uid;
    spec.groups = [...s.requester.groups];
  }
  return {
    apiVersion: CSR_API_VERSION,
    kind: CSR_KIND,
    metadata: s.name !== undefined ? { name: s.name } : { generateName: "csr-" },
    spec,
  };
}

/** Decodes standard base64 strictly, as Go's `encoding/json` does for `[]byte`. */
export function strictBase64(text: string): Uint8Array | undefined {
  const s = text.replace(/[\r\n]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return undefined;
  return new Uint8Array(Buffer.from(s, "base64"));
}

/** A CSR object as read. */
export interface CsrObject {
  /** The object itself. */
  obj: KubeObject;
  /** `metadata.name`, or `<generateName>…`, or `(unnamed)`. */
  name: string;
  /** `metadata.name` as given ("" when absent). */
  metadataName: string;
  /** `metadata.generateName` as given ("" when absent). */
  generateName: string;
  signerName: string;
  usages: string[];
  expirationSeconds: number | undefined;
  username: string | undefined;
  /** Decoded `spec.request` bytes. */
  request: Uint8Array;
  conditions: Record<string, unknown>[];
  /** Decoded `status.certificate` text ("" when none). */
  certificate: string;
}

/** Whether a parsed manifest is a CertificateSigningRequest. */
export function isCsrObject(obj: KubeObject): boolean {
  return obj.kind === CSR_KIND;
}

/** The display name of a CSR object. */
export function csrObjectName(obj: KubeObject): string {
  const md = isObject(obj.metadata) ? obj.metadata : {};
  if (typeof md.name === "string" && md.name) return md.name;
  if (typeof md.generateName === "string" && md.generateName) return `${md.generateName}…`;
  return "(unnamed)";
}

/**
 * Reads a CSR object's fields. Throws `InputError` (prefixed with `where`)
 * for a wrong kind or apiVersion, or fields of the wrong type or encoding.
 */
export function readCsrObject(obj: KubeObject, where: string): CsrObject {
  if (obj.kind !== CSR_KIND) {
    throw new InputError(`${where}: kind ${JSON.stringify(obj.kind)} is not ${CSR_KIND}`);
  }
  if (obj.apiVersion !== CSR_API_VERSION && obj.apiVersion !== "certificates.k8s.io/v1beta1") {
    throw new InputError(
      `${where}: apiVersion ${JSON.stringify(obj.apiVersion)} is not ${CSR_API_VERSION}`,
    );
  }
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status = isObject(obj.status) ? obj.status : {};
  if (typeof spec.request !== "string") throw new InputError(`${where}: spec.request is missing`);
  const request = strictBase64(spec.request);
  if (request === undefined) {
    throw new InputError(`${where}: spec.request is not valid base64`);
  }
  const usages = spec.usages ?? [];
  if (!Array.isArray(usages) || usages.some((u) => typeof u !== "string")) {
    throw new InputError(`${where}: spec.usages must be a list of strings`);
  }
  const exp = spec.expirationSeconds;
  if (exp !== undefined && exp !== null && (typeof exp !== "number" || !Number.isInteger(exp))) {
    throw new InputError(`${where}: spec.expirationSeconds must be an integer`);
  }
  let certificate = "";
  if (status.certificate !== undefined && status.certificate !== null) {
    const b = typeof status.certificate === "string" ? strictBase64(status.certificate) : undefined;
    if (b === undefined) throw new InputError(`${where}: status.certificate is not valid base64`);
    certificate = Buffer.from(b).toString("utf8");
  }
  // Go's decoder refuses a conditions value that is not a list of objects with string fields;
  // a condition joinkit dropped would be one the approvers and the signer never see.
  const conds: Record<string, unknown>[] = [];
  if (status.conditions !== undefined && status.conditions !== null) {
    if (!Array.isArray(status.conditions)) {
      throw new InputError(`${where}: status.conditions must be a list of conditions`);
    }
    status.conditions.forEach((x, i) => {
      if (!isObject(x)) {
        throw new InputError(`${where}: status.conditions[${i}] must be an object`);
      }
      for (const k of ["type", "status", "reason", "message"]) {
        if (x[k] !== undefined && x[k] !== null && typeof x[k] !== "string") {
          throw new InputError(`${where}: status.conditions[${i}].${k} must be a string`);
        }
      }
      conds.push(x);
    });
  }
  const md = isObject(obj.metadata) ? obj.metadata : {};
  return {
    obj,
    name: csrObjectName(obj),
    metadataName: typeof md.name === "string" ? md.name : "",
    generateName: typeof md.generateName === "string" ? md.generateName : "",
    signerName: typeof spec.signerName === "string" ? spec.signerName : "",
    usages: usages as string[],
    expirationSeconds: typeof exp === "number" ? exp : undefined,
    username: typeof spec.username === "string" ? spec.username : undefined,
    request,
    conditions: conds,
    certificate,
  };
}

/** Whether a condition of `type` with status True (or empty) is present. */
export function hasCondition(c: CsrObject, type: string): boolean {
  return c.conditions.some((x) => x.type === type && (x.status === "True" || !x.status));
}

/** The last time formatted: a run writes every condition with the one `now`. */
let lastTime: { ms: number; text: string } | undefined;

function rfc3339(now: Date): string {
  const ms = now.getTime();
  if (lastTime?.ms !== ms) lastTime = { ms, text: formatRfc3339(now) };
  return lastTime.text;
}

/**
 * A condition as kube-apiserver stores it: status "True", lastUpdateTime from
 * the writer's clock, and lastTransitionTime, which approvers and signers leave
 * empty and the CSR strategies' `populateConditionTimestamps` set to the same
 * instant for a new condition (on the /approval and the /status update alike).
 */
export function storedCondition(
  c: { type: string; reason: string; message: string },
  now: Date,
): Record<string, unknown> {
  const t = rfc3339(now);
  return {
    lastTransitionTime: t,
    lastUpdateTime: t,
    message: c.message,
    reason: c.reason,
    status: "True",
    type: c.type,
  };
}

/** The condition `kubectl certificate approve` adds. */
export function approvedCondition(now: Date): Record<string, unknown> {
  return storedCondition({
    type: "Approved",
    reason: "KubectlApprove",
    message: "This CSR was approved by kubectl certificate approve.",
  }, now);
}

/** The condition the signer adds when its validator refuses a CSR. */
export function failedCondition(now: Date, message: string): Record<string, unknown> {
  return storedCondition({ type: "Failed", reason: "SignerValidationFailure", message }, now);
}

/**
 * A copy of the object with extra conditions appended and, when given,
 * `status.certificate` set to the base64 of `certPem`. Only the object and its
 * status are copied (the rest is shared with `obj`, which is left unchanged):
 * a deep clone per CSR cost a fleet more than its YAML.
 */
export function withStatus(
  obj: KubeObject,
  conditions: Record<string, unknown>[],
  certPem?: string,
): KubeObject {
  const copy: KubeObject = { ...obj };
  const status = isObject(copy.status) ? { ...copy.status } : {};
  if (conditions.length) {
    const existing = Array.isArray(status.conditions) ? status.conditions : [];
    status.conditions = [...existing, ...conditions];
  }
  if (certPem !== undefined) status.certificate = Buffer.from(certPem, "utf8").toString("base64");
  copy.status = status;
  return copy;
}
