/**
 * kube-apiserver's create-time validation of a `certificates.k8s.io/v1`
 * CertificateSigningRequest (`pkg/apis/certificates/validation`): signerName
 * form and length (`ValidateSignerName`), usages (required, allowed,
 * duplicates), expirationSeconds ≥ 600, conditions, and `status.certificate`.
 * Messages are field errors in apimachinery's format.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { goQuote } from "../go/quote.ts";
import { parseCertificate } from "../pki/cert_info.ts";
import { readTlv } from "../pki/der.ts";
import { LEGACY_UNKNOWN_SIGNER } from "./approver.ts";
import { ALLOWED_USAGES } from "../pki/usages.ts";

// apimachinery's field errors print string values with %q.
const q = goQuote;

/** `<field>: Invalid value: <v>: <msg>`. */
export function invalid(field: string, value: string | number, msg: string): string {
  return `${field}: Invalid value: ${typeof value === "string" ? q(value) : value}: ${msg}`;
}
/** `<field>: Required value`. */
export const required = (field: string): string => `${field}: Required value`;
/** `<field>: Too long: may not be more than N bytes`. */
export const tooLong = (field: string, max: number): string =>
  `${field}: Too long: may not be more than ${max} bytes`;

const LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** apimachinery `IsDNS1123Label`. */
export function isDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push("must be no more than 63 characters");
  if (!LABEL_RE.test(v)) {
    errs.push(SUBDOMAIN_RE.test(v) ? "must not contain dots" : LABEL_MSG);
  }
  return errs;
}

/** apimachinery `IsDNS1123Subdomain`. */
export function isDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push("must be no more than 253 characters");
  if (!SUBDOMAIN_RE.test(v)) errs.push(SUBDOMAIN_MSG);
  return errs;
}

/**
 * `ValidateSignerName`, as field errors on `field` (default `spec.signerName`).
 *
 * @example
 * ```ts
 * validateSignerName("example.com/valid-name"); // []
 * ```
 */
export function validateSignerName(name: string, field = "spec.signerName"): string[] {
  if (name.length === 0) return [required(field)];
  const segs = name.split("/");
  if (segs.length !== 2) {
    return [
      invalid(
        field,
        name,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  }
  const [domain, path] = segs as [string, string];
  const el: string[] = [];
  if (domain.length > 253) el.push(tooLong(field, 253));
  const labels = domain.split(".");
  for (const lbl of labels) {
    const errs = isDns1123Label(lbl);
    if (errs.length) {
      for (const e of errs) el.push(invalid(field, domain, `validating label ${q(lbl)}: ${e}`));
      break;
    }
  }
  if (labels.length < 2) {
    el.push(
      invalid(field, domain, "should be a domain with at least two segments separated by dots"),
    );
  }
  for (const lbl of path.split(".")) {
    const errs = isDns1123Subdomain(lbl);
    if (errs.length) {
      for (const e of errs) el.push(invalid(field, path, `validating label ${q(lbl)}: ${e}`));
      break;
    }
  }
  if (name.length > 571) el.push(tooLong(field, 571));
  return el;
}

/** Usage validation: required, each allowed, no duplicates. */
export function validateUsages(usages: readonly string[], field = "spec.usages"): string[] {
  const el: string[] = [];
  if (usages.length === 0) el.push(required(field));
  usages.forEach((u, i) => {
    if (!ALLOWED_USAGES.includes(u)) {
      // The list of supported values is built only when a message needs it.
      const sorted = [...ALLOWED_USAGES].sort().map(q).join(", ");
      el.push(`${field}[${i}]: Unsupported value: ${q(u)}: supported values: ${sorted}`);
    }
  });
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (seen.has(u)) el.push(`${field}[${i}]: Duplicate value: ${q(u)}`);
    seen.add(u);
  });
  return el;
}

/** expirationSeconds: when set, at least 600. */
export function validateExpirationSeconds(
  v: number | undefined,
  field = "spec.expirationSeconds",
): string[] {
  if (v === undefined) return [];
  if (v < 600) {
    return [invalid(field, v, "may not specify a duration less than 600 seconds (10 minutes)")];
  }
  return [];
}

/** A condition as found in `status.conditions`. */
export interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastUpdateTime?: unknown;
}

/** `validateConditions` (strict create-time form). */
export function validateConditions(conds: readonly Condition[]): string[] {
  const el: string[] = [];
  const seen = new Set<string>();
  let approved = false, denied = false;
  conds.forEach((c, i) => {
    const f = `status.conditions[${i}]`;
    const type = typeof c.type === "string" ? c.type : "";
    if (!type) el.push(required(`${f}.type`));
    const status = typeof c.status === "string" ? c.status : "";
    if (!status) el.push(required(`${f}.status`));
    else if (["Approved", "Denied", "Failed"].includes(type)) {
      if (status !== "True") {
        el.push(`${f}.status: Unsupported value: ${q(status)}: supported values: "True"`);
      }
    } else if (!["True", "False", "Unknown"].includes(status)) {
      el.push(
        `${f}.status: Unsupported value: ${
          q(status)
        }: supported values: "False", "True", "Unknown"`,
      );
    }
    if (type === "Approved") {
      approved = true;
      if (denied) {
        el.push(
          invalid(`${f}.type`, type, "Approved and Denied conditions are mutually exclusive"),
        );
      }
    }
    if (type === "Denied") {
      denied = true;
      if (approved) {
        el.push(
          invalid(`${f}.type`, type, "Approved and Denied conditions are mutually exclusive"),
        );
      }
    }
    if (type && seen.has(type)) el.push(`${f}.type: Duplicate value: ${q(type)}`);
    if (type) seen.add(type);
  });
  return el;
}

const PEM_RE = new RegExp(
  "-----BEGIN ([A-Za-z0-9 _.]*)-----\\r?\\n([\\s\\S]*?)-----END \\1-----",
  "g",
);

/**
 * `validateCertificate` for `status.certificate` (the decoded PEM text): the
 * problem, or `undefined` when fine or empty.
 */
export function certificateProblem(pem: string): string | undefined {
  if (pem.length === 0) return undefined;
  let blocks = 0;
  PEM_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PEM_RE.exec(pem)) !== null) {
    let body = m[2] ?? "";
    const hasHeaders = /^[A-Za-z0-9-]+:/.test(body) && /\r?\n\r?\n/.test(body);
    if (hasHeaders) body = body.split(/\r?\n\r?\n/).slice(1).join("\n");
    const compact = body.replace(/\s/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) continue;
    if (m[1] !== "CERTIFICATE") return `only CERTIFICATE PEM blocks are allowed, found ${q(m[1]!)}`;
    if (hasHeaders) return "no PEM block headers are permitted";
    blocks++;
    const der = new Uint8Array(Buffer.from(compact, "base64"));
    if (der.length === 0) return "found CERTIFICATE PEM block containing 0 certificates";
    let pos = 0;
    try {
      while (pos < der.length) {
        const t = readTlv(der, pos);
        parseCertificate(der.subarray(pos, t.end));
        pos = t.end;
      }
    } catch (e) {
      return `x509: ${(e as Error).message}`;
    }
  }
  if (blocks === 0) return "must contain at least one CERTIFICATE PEM block";
  return undefined;
}

/** The field error for a bad `status.certificate`. */
export function validateCertificateStatus(pem: string): string[] {
  const p = certificateProblem(pem);
  return p ? [invalid("status.certificate", "<certificate data>", p)] : [];
}

/** The legacy signer is refused by certificates.k8s.io/v1. */
export function validateNotLegacy(signerName: string): string[] {
  return signerName === LEGACY_UNKNOWN_SIGNER
    ? [
      invalid(
        "spec.signerName",
        signerName,
        "the legacy signerName is not allowed via this API version",
      ),
    ]
    : [];
}

/** The API group-qualified kind and resource the apiserver names in its errors. */
const QUALIFIED_KIND = "CertificateSigningRequest.certificates.k8s.io";
const QUALIFIED_RESOURCE = "certificatesigningrequests.certificates.k8s.io";

/**
 * apimachinery's `utilerrors.NewAggregate(...).Error()` over field errors
 * (after `ErrorList.ToAggregate`'s deduplication): one message as is,
 * several as `[a, b]`.
 */
export function aggregate(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

/**
 * The name the apiserver's errors give an object on create (admission's
 * `extractResourceName`): `metadata.name`, else `generateName` (the random
 * suffix is not known offline), else `Unknown`.
 */
export function objectNameForErrors(name: string, generateName: string): string {
  return name || generateName || "Unknown";
}

/** `errors.NewInvalid` for a CSR: the 422 message of a create that failed validation. */
export function invalidMessage(name: string, fieldErrors: readonly string[]): string {
  return `${QUALIFIED_KIND} ${q(name)} is invalid: ${aggregate(fieldErrors)}`;
}

/** `admission.NewForbidden` for a CSR: the 403 message of a create admission refused. */
export function forbiddenMessage(name: string, reason: string): string {
  return `${QUALIFIED_RESOURCE} ${q(name)} is forbidden: ${reason}`;
}

/** The CertificateSubjectRestriction admission plugin's signer. */
const RESTRICTED_SIGNER = "kubernetes.io/kube-apiserver-client";

/**
 * The CertificateSubjectRestriction admission plugin (`Validate`): for the
 * kube-apiserver-client signer, a request that does not parse, or whose
 * subject Organization holds exactly `system:masters`, is forbidden. Only O
 * is examined, as Go's CSR parser fills it: an O in a string type
 * `encoding/asn1` drops (UniversalString, VisibleString) is invisible here,
 * as upstream. Returns the reason (without the forbidden prefix) or
 * `undefined`.
 */
export function subjectRestriction(
  signerName: string,
  parsed: { organization: readonly string[] } | { parseError: string },
): string | undefined {
  if (signerName !== RESTRICTED_SIGNER) return undefined;
  if ("parseError" in parsed) return `failed to parse CSR: ${parsed.parseError}`;
  if (parsed.organization.some((o) => o === "system:masters")) {
    return `use of ${RESTRICTED_SIGNER} signer with system:masters group is not allowed`;
  }
  return undefined;
}

/** The fields of a CSR object that create-time validation reads. */
export interface CsrCreateFields {
  metadataName: string;
  generateName: string;
  /** The error of ParseCSR + CheckSignature on `spec.request`, if any. */
  requestError: string | undefined;
  signerName: string;
  usages: readonly string[];
  expirationSeconds: number | undefined;
  conditions: readonly Condition[];
  certificate: string;
}

/** `validateSignerName` results by name: a fleet repeats a few names (the arrays are only spread). */
const signerNameCache = new Map<string, readonly string[]>();

function signerNameErrors(name: string): readonly string[] {
  let errs = signerNameCache.get(name);
  if (!errs) {
    errs = validateSignerName(name);
    if (signerNameCache.size >= 64) signerNameCache.clear();
    signerNameCache.set(name, errs);
  }
  return errs;
}

/**
 * `ValidateCertificateSigningRequestCreate`: every field error, in
 * upstream's order (metadata, request, usages, signerName,
 * expirationSeconds, conditions, certificate). The request's bytes are not
 * echoed (upstream prints the byte slice with `%#v`).
 */
export function validateCsrCreate(f: CsrCreateFields): string[] {
  const el: string[] = [];
  // ValidateObjectMeta: on create the name comes from name or generateName.
  if (!f.metadataName && !f.generateName) {
    el.push(`metadata.name: Required value: name or generateName is required`);
  }
  if (f.requestError !== undefined) {
    el.push(invalid("spec.request", "<request data>", f.requestError));
  }
  el.push(...validateUsages(f.usages));
  if (f.signerName === LEGACY_UNKNOWN_SIGNER) el.push(...validateNotLegacy(f.signerName));
  else el.push(...signerNameErrors(f.signerName));
  el.push(...validateExpirationSeconds(f.expirationSeconds));
  el.push(...validateConditions(f.conditions));
  el.push(...validateCertificateStatus(f.certificate));
  return el;
}
