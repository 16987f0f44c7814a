/**
 * Offline validation of Kubernetes objects against the Kubernetes OpenAPI
 * schema, through the `kubernetes-models` package (precompiled Ajv
 * validators generated from the upstream OpenAPI; reference
 * policy-lifecycle.md §5.1). Like `kubectl apply --dry-run=client` minus the
 * server: types, required fields, enums and formats (`byte`, `date-time`,
 * `quantity`); unknown fields are allowed, server-side rules not checked.
 *
 * Each kind's model is imported on first use, so nothing of the package
 * loads until an object of that kind is validated.
 *
 * @module
 */

import { isObject } from "../base/object.ts";

/** One schema violation. */
export interface SchemaViolation {
  /**
   * The field, dotted with `[i]` for list items (`spec.request`,
   * `rules[0].verbs`; for a missing required property, that property).
   */
  field: string;
  /** Ajv's English message as kubernetes-models words it: `data/spec must have required property request`. */
  message: string;
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: never) => Model;

// Literal specifiers, so bundlers see every module.
const LOADERS: Readonly<Record<string, () => Promise<ModelClass>>> = {
  "v1/Secret": async () => (await import("kubernetes-models/v1/Secret")).Secret,
  "v1/ConfigMap": async () => (await import("kubernetes-models/v1/ConfigMap")).ConfigMap,
  "v1/ServiceAccount": async () =>
    (await import("kubernetes-models/v1/ServiceAccount")).ServiceAccount,
  "v1/Namespace": async () => (await import("kubernetes-models/v1/Namespace")).Namespace,
  "v1/Node": async () => (await import("kubernetes-models/v1/Node")).Node,
  "v1/Pod": async () => (await import("kubernetes-models/v1/Pod")).Pod,
  "v1/Service": async () => (await import("kubernetes-models/v1/Service")).Service,
  "v1/PersistentVolumeClaim": async () =>
    (await import("kubernetes-models/v1/PersistentVolumeClaim")).PersistentVolumeClaim,
  "rbac.authorization.k8s.io/v1/Role": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/Role")).Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding")).RoleBinding,
  "rbac.authorization.k8s.io/v1/ClusterRole": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole")).ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding"))
      .ClusterRoleBinding,
  "certificates.k8s.io/v1/CertificateSigningRequest": async () =>
    (await import("kubernetes-models/certificates.k8s.io/v1/CertificateSigningRequest"))
      .CertificateSigningRequest,
};

/** The `apiVersion/kind` pairs this module has a schema for. */
export const SCHEMA_KINDS: readonly string[] = Object.keys(LOADERS);

const loaded = new Map<string, Promise<ModelClass>>();

/** Ajv's `instancePath` (`/rules/0/verbs`) as a field path (`rules[0].verbs`). */
export function fieldPath(instancePath: string): string {
  let out = "";
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += (out === "" ? "" : ".") + part;
  }
  return out;
}

/**
 * Validates one object. `undefined` when there is no schema for its
 * `apiVersion`/`kind` here; otherwise its violations (empty when valid).
 *
 * @example
 * ```ts ignore
 * await validateObject({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { a: "!" } });
 * // [{ field: "data.a", message: 'data/data/a must match format "byte"' }]
 * ```
 */
export async function validateObject(obj: unknown): Promise<SchemaViolation[] | undefined> {
  if (!isObject(obj) || typeof obj.apiVersion !== "string" || typeof obj.kind !== "string") {
    return undefined;
  }
  const key = `${obj.apiVersion}/${obj.kind}`;
  const load = LOADERS[key];
  if (!load) return undefined;
  let pending = loaded.get(key);
  if (!pending) {
    pending = load();
    loaded.set(key, pending);
  }
  const Kind = await pending;
  try {
    new Kind(obj as never).validate();
    return [];
  } catch (e) {
    const errors = (e as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) throw e;
    return errors.map((err: { instancePath?: string; message?: string; params?: unknown }) => {
      const path = err.instancePath ?? "";
      // A missing required property: the field is the property itself.
      const missing = isObject(err.params) && typeof err.params.missingProperty === "string"
        ? `/${err.params.missingProperty}`
        : "";
      return {
        field: fieldPath(path + missing),
        message: `data${path} ${err.message ?? "is invalid"}`,
      };
    });
  }
}
