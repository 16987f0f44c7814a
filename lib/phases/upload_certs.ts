/**
 * `kubeadm init phase upload-certs --upload-certs` and its other half,
 * `kubeadm join --control-plane`'s `download-certs`, offline (k/k
 * `cmd/kubeadm/app/phases/copycerts/copycerts.go`).
 *
 * Upload: the shared control-plane files of a `pki/` directory, each
 * AES-256-GCM-encrypted under the certificate key (nonce ‖ ciphertext ‖ tag,
 * `lib/pki/aes_gcm.ts`), in the `kube-system/kubeadm-certs` Secret, owned by
 * a short-lived bootstrap token (2h, no usages, no groups: a TTL anchor
 * only), plus the Role and RoleBinding `kubeadm:kubeadm-certs` that let the
 * default node-token group read it.
 *
 * Download: decrypt every entry (all or nothing), check each file kubeadm
 * expects is there, and say how kubeadm writes each (keys 0600, certificates
 * and public keys 0644).
 *
 * Pure: it takes bytes and parsed values; commands read and write files.
 *
 * @module
 */

import { createPrivateKey, createPublicKey } from "node:crypto";
import { Buffer } from "node:buffer";
import { decodeGoBase64 } from "../base/base64.ts";
import { CheckError, InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { cryptoRandom, type RandomBytes } from "../base/random.ts";
import { formatRfc3339 } from "../go/time.ts";
import { type KubeObject, parseManifests } from "../k8s/manifest.ts";
import { decryptBytes, encryptBytes } from "../pki/aes_gcm.ts";
import { parseCertificate } from "../pki/cert_info.ts";
import { decodePem } from "../pki/pem.ts";
import { tokenToSecret } from "../tokens/bootstrap_token.ts";
import {
  NODE_BOOTSTRAP_TOKEN_GROUP,
  SECRET_PREFIX,
  type Token,
  TOKEN_NAMESPACE,
} from "../tokens/token.ts";

/** `constants.KubeadmCertsSecret`. */
export const KUBEADM_CERTS_SECRET = "kubeadm-certs";

/** `constants.KubeadmCertsClusterRoleName` (a Role, despite the name). */
export const KUBEADM_CERTS_ROLE = "kubeadm:kubeadm-certs";

/** The description of the token that carries the Secret's TTL. */
export const CERT_TOKEN_DESCRIPTION = "Proxy for managing TTL for the kubeadm-certs secret";

/** `constants.DefaultCertTokenDuration`: 2 hours, in milliseconds. */
export const DEFAULT_CERT_TOKEN_TTL_MS = 2 * 3_600_000;

/** What kubeadm prints before the upload. */
export const UPLOAD_MESSAGE =
  `[upload-certs] Storing the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "${TOKEN_NAMESPACE}" Namespace`;

/** What kubeadm prints before the download. */
export const DOWNLOAD_MESSAGE =
  `[download-certs] Downloading the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "${TOKEN_NAMESPACE}" Namespace`;

/** The names of the external-etcd entries (`copycerts.go` constants). */
export const EXTERNAL_ETCD = {
  ca: "external-etcd-ca.crt",
  cert: "external-etcd.crt",
  key: "external-etcd.key",
} as const;

/** The files under the certificates directory every upload carries. */
export const COMMON_FILES = [
  "ca.crt",
  "ca.key",
  "front-proxy-ca.crt",
  "front-proxy-ca.key",
  "sa.pub",
  "sa.key",
] as const;

/** The local-etcd CA files, carried when etcd is not external. */
export const LOCAL_ETCD_FILES = ["etcd/ca.crt", "etcd/ca.key"] as const;

/** The CA keys an external CA keeps to itself (kubeadm's "external CA mode"). */
export const EXTERNAL_CA_KEYS: readonly string[] = ["ca.key", "front-proxy-ca.key", "etcd/ca.key"];

/** An external etcd's client files, as `etcd.external` names them (paths may be empty). */
export interface ExternalEtcd {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** One file kubeadm transfers. */
export interface TransferFile {
  /** kubeadm's name: relative to the certificates directory, or an `external-etcd*` name. */
  name: string;
  /** Where it is read from and written to: relative to the certificates directory, or as configured. */
  path: string;
  /** Whether `path` is relative to the certificates directory. */
  inCertDir: boolean;
  /** Its key in the Secret's data. */
  secretKey: string;
}

/**
 * `certOrKeyNameToSecretName`: every `/` becomes `-`.
 *
 * @example
 * ```ts
 * certOrKeyNameToSecretName("etcd/ca.crt"); // "etcd-ca.crt"
 * ```
 */
export function certOrKeyNameToSecretName(name: string): string {
  return name.replaceAll("/", "-");
}

/**
 * `certsToTransfer`: the six common files, then either the local etcd CA or
 * the external etcd's three files; sorted by name (upstream's map has no order).
 *
 * @example
 * ```ts
 * certsToTransfer().map((f) => f.secretKey).includes("etcd-ca.key"); // true
 * ```
 */
export function certsToTransfer(externalEtcd?: ExternalEtcd): TransferFile[] {
  const inDir = (name: string): TransferFile => ({
    name,
    path: name,
    inCertDir: true,
    secretKey: certOrKeyNameToSecretName(name),
  });
  const files = COMMON_FILES.map(inDir);
  if (externalEtcd === undefined) {
    files.push(...LOCAL_ETCD_FILES.map(inDir));
  } else {
    const ext = (name: string, path: string): TransferFile => ({
      name,
      path,
      inCertDir: false,
      secretKey: certOrKeyNameToSecretName(name),
    });
    files.push(
      ext(EXTERNAL_ETCD.ca, externalEtcd.caFile),
      ext(EXTERNAL_ETCD.cert, externalEtcd.certFile),
      ext(EXTERNAL_ETCD.key, externalEtcd.keyFile),
    );
  }
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What {@link uploadCerts} needs, already read and parsed. */
export interface UploadOptions {
  /** The certificate key, 32 bytes. */
  key: Uint8Array;
  /** Each transferred file's bytes by kubeadm name; `undefined` = missing (uploaded empty, as kubeadm does). */
  files: ReadonlyMap<string, Uint8Array | undefined>;
  /** Which files; from {@link certsToTransfer}. */
  transfer: readonly TransferFile[];
  /** The TTL token (random in kubeadm). */
  token: Token;
  /** Its TTL in ms (kubeadm: 2h). */
  ttlMs: number;
  /** The clock. */
  now: Date;
  /**
   * The uid the API server gave the token Secret. The owner reference needs
   * it; without it the Secret is rendered without one (see docs/upload-certs.md).
   */
  ownerUid?: string;
  /** Nonces. */
  random?: RandomBytes;
}

/** What {@link uploadCerts} renders. */
export interface UploadResult {
  /** In kubeadm's creation order: token Secret, kubeadm-certs, Role, RoleBinding. */
  objects: KubeObject[];
  /** The token Secret's `expiration` (RFC 3339). */
  expiration: string;
}

/** The owner reference `metav1.NewControllerRef(tokenSecret, v1/Secret)` gives. */
export function tokenOwnerReference(tokenId: string, uid: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    blockOwnerDeletion: true,
    controller: true,
    kind: "Secret",
    name: SECRET_PREFIX + tokenId,
    uid,
  };
}

/** The Role and RoleBinding `createRBAC` creates. */
export function kubeadmCertsRbac(): KubeObject[] {
  return [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: KUBEADM_CERTS_ROLE, namespace: TOKEN_NAMESPACE },
      rules: [{
        apiGroups: [""],
        resourceNames: [KUBEADM_CERTS_SECRET],
        resources: ["secrets"],
        verbs: ["get"],
      }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: KUBEADM_CERTS_ROLE, namespace: TOKEN_NAMESPACE },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: KUBEADM_CERTS_ROLE },
      subjects: [{ kind: "Group", name: NODE_BOOTSTRAP_TOKEN_GROUP }],
    },
  ];
}

/**
 * `UploadCerts`: the token Secret (description, expiration = now + TTL, no
 * usages, no groups), `kube-system/kubeadm-certs` (each file encrypted; a
 * missing one as empty data; no `type`, so the API server makes it
 * `Opaque`; the owner reference when the token's uid is known), and the
 * Role and RoleBinding. Then it decrypts what it rendered and compares it
 * with the input (a {@link CheckError} if they differ).
 *
 * @example
 * ```ts ignore
 * uploadCerts({ key, files, transfer: certsToTransfer(), token, ttlMs: DEFAULT_CERT_TOKEN_TTL_MS, now }).objects.length; // 4
 * ```
 */
export function uploadCerts(opts: UploadOptions): UploadResult {
  const random = opts.random ?? cryptoRandom;
  const tokenSecret = tokenToSecret(
    { token: opts.token, description: CERT_TOKEN_DESCRIPTION, ttlMs: opts.ttlMs },
    opts.now,
  );
  const expiration = formatRfc3339(new Date(opts.now.getTime() + opts.ttlMs));
  const data: Record<string, string> = {};
  for (const f of opts.transfer) {
    const bytes = opts.files.get(f.name);
    data[f.secretKey] = bytes === undefined
      ? ""
      : Buffer.from(encryptBytes(bytes, opts.key, random)).toString("base64");
  }
  const metadata: Record<string, unknown> = {
    name: KUBEADM_CERTS_SECRET,
    namespace: TOKEN_NAMESPACE,
  };
  if (opts.ownerUid !== undefined) {
    metadata.ownerReferences = [tokenOwnerReference(opts.token.id, opts.ownerUid)];
  }
  const certs: KubeObject = { apiVersion: "v1", data, kind: "Secret", metadata };
  // Self-check: what a joining control plane would decrypt is what was read.
  const back = decryptSecretData(secretBytes(certs, "rendered"), opts.key);
  for (const f of opts.transfer) {
    const want = opts.files.get(f.name) ?? new Uint8Array();
    const got = back.get(f.secretKey);
    if (got === undefined || Buffer.compare(Buffer.from(got), Buffer.from(want)) !== 0) {
      throw new CheckError(`self-check: ${f.secretKey} does not decrypt to ${f.name}`);
    }
  }
  return { objects: [tokenSecret, certs, ...kubeadmCertsRbac()], expiration };
}

/**
 * The `kube-system/kubeadm-certs` Secret among parsed manifests (a stream
 * from `upload-certs` holds it with its token and RBAC).
 */
export function findKubeadmCertsSecret(text: string, source: string): KubeObject {
  const objects = parseManifests(text, source);
  const found = objects.filter((o) => {
    const meta = isObject(o.metadata) ? o.metadata : {};
    return o.kind === "Secret" && meta.name === KUBEADM_CERTS_SECRET &&
      (meta.namespace === undefined || meta.namespace === TOKEN_NAMESPACE);
  });
  if (found.length === 0) {
    throw new InputError(
      `${source}: no Secret ${TOKEN_NAMESPACE}/${KUBEADM_CERTS_SECRET} (found ${objects.length} other object(s))`,
    );
  }
  if (found.length > 1) {
    throw new InputError(`${source}: ${found.length} Secrets named ${KUBEADM_CERTS_SECRET}`);
  }
  return found[0]!;
}

/** A Secret's `data` as raw bytes (Go's `[]byte` JSON: strict base64; `null` is empty). */
export function secretBytes(obj: KubeObject, source: string): Map<string, Uint8Array> {
  const fail = (why: string) =>
    new InputError(`${source}: Secret ${TOKEN_NAMESPACE}/${KUBEADM_CERTS_SECRET}: ${why}`);
  const out = new Map<string, Uint8Array>();
  const data = obj.data;
  if (data === undefined || data === null) return out;
  if (!isObject(data)) throw fail("data is not a map");
  for (const [k, v] of Object.entries(data)) {
    if (v === null) {
      out.set(k, new Uint8Array());
      continue;
    }
    if (typeof v !== "string") throw fail(`data[${JSON.stringify(k)}] is not a string`);
    const bytes = decodeGoBase64(v);
    if (bytes === undefined) throw fail(`data[${JSON.stringify(k)}] is not valid base64`);
    out.set(k, bytes);
  }
  const sd = obj.stringData;
  if (sd !== undefined && sd !== null) {
    if (!isObject(sd)) throw fail("stringData is not a map");
    for (const [k, v] of Object.entries(sd)) {
      if (typeof v !== "string") throw fail(`stringData[${JSON.stringify(k)}] is not a string`);
      out.set(k, new Uint8Array(Buffer.from(v, "utf8")));
    }
  }
  return out;
}

/**
 * `getDataFromSecret`: every non-empty entry decrypted, empty ones kept
 * empty; one failure fails all, with kubeadm's wrapping
 * (`error decoding secret data with provided key: cipher: message authentication failed`).
 */
export function decryptSecretData(
  data: ReadonlyMap<string, Uint8Array>,
  key: Uint8Array,
): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [k, v] of [...data].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (v.length === 0) {
      out.set(k, new Uint8Array());
      continue;
    }
    try {
      out.set(k, decryptBytes(v, key));
    } catch (e) {
      if (e instanceof CheckError) {
        throw new CheckError(`error decoding secret data with provided key: ${e.message}`);
      }
      throw e;
    }
  }
  return out;
}

/** How kubeadm writes one downloaded entry (`writeCertOrKey`). */
export type EntryKind = "private key" | "certificate or public key";

/** The mode kubeadm writes each kind with (`keyutil.WriteKey`, `certutil.WriteCert`). */
export const ENTRY_MODE: Readonly<Record<EntryKind, number>> = {
  "private key": 0o600,
  "certificate or public key": 0o644,
};

function parses(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

/** `keyutil.ParsePrivateKeyPEM`: a block of a private-key type whose bytes parse as that type. */
function isPrivateKeyPem(blocks: ReturnType<typeof decodePem>): boolean {
  const types: Record<string, "sec1" | "pkcs1" | "pkcs8"> = {
    "EC PRIVATE KEY": "sec1",
    "RSA PRIVATE KEY": "pkcs1",
    "PRIVATE KEY": "pkcs8",
  };
  return blocks.some((b) => {
    const type = types[b.type];
    if (type === undefined) return false;
    const der = Buffer.from(b.der);
    return parses(() => {
      const k = createPrivateKey({ key: der, format: "der", type });
      // Go's PKCS#8 reader gives RSA, ECDSA, Ed25519 and X25519 keys; keyutil takes any of them.
      if (type === "pkcs1" && k.asymmetricKeyType !== "rsa") throw new Error("not RSA");
    });
  });
}

/**
 * `keyutil.ParsePublicKeysPEM`: any block (whatever its label) whose bytes
 * are an RSA or ECDSA key: PKIX public key, certificate, PKCS#1 or SEC 1
 * private key.
 */
function isPublicKeysPem(blocks: ReturnType<typeof decodePem>): boolean {
  const rsaOrEc = (t: string | undefined) => t === "rsa" || t === "ec";
  return blocks.some((b) => {
    const der = Buffer.from(b.der);
    return parses(() => {
      if (!rsaOrEc(createPublicKey({ key: der, format: "der", type: "spki" }).asymmetricKeyType)) {
        throw new Error("not RSA/ECDSA");
      }
    }) ||
      parses(() => {
        const alg = parseCertificate(b.der).publicKeyAlgorithm;
        if (alg !== "RSA" && alg !== "ECDSA") throw new Error("not RSA/ECDSA");
      }) ||
      parses(() => createPrivateKey({ key: der, format: "der", type: "pkcs1" })) ||
      parses(() => createPrivateKey({ key: der, format: "der", type: "sec1" }));
  });
}

/**
 * `writeCertOrKey`'s decision: a private key (written 0600), else
 * certificates or public keys (0644), else `undefined` (kubeadm: `unknown
 * data found in Secret entry`).
 */
export function entryKind(data: Uint8Array): EntryKind | undefined {
  const blocks = decodePem(Buffer.from(data).toString("latin1"));
  if (isPrivateKeyPem(blocks)) return "private key";
  if (isPublicKeysPem(blocks)) return "certificate or public key";
  return undefined;
}

/** One entry as `DownloadCerts` handles it. */
export interface DownloadedEntry {
  file: TransferFile;
  /** The decrypted bytes; empty = kubeadm skips it (not saved). */
  data: Uint8Array;
  /** How kubeadm writes it; absent for a skipped entry. */
  kind?: EntryKind;
  /** Its file mode; absent for a skipped entry. */
  mode?: number;
}

/**
 * `DownloadCerts` without the writing: decrypt all, then for every file of
 * `transfer` (the joining node's layout) the entry must exist
 * (`the Secret does not include the required certificate or key - name: …, path: …`),
 * an empty one is skipped, anything else must be a key or certificates
 * (`unknown data found in Secret entry`). Refusals are {@link CheckError}s.
 */
export function downloadCerts(
  data: ReadonlyMap<string, Uint8Array>,
  key: Uint8Array,
  transfer: readonly TransferFile[],
): DownloadedEntry[] {
  const plain = decryptSecretData(data, key);
  const out: DownloadedEntry[] = [];
  for (const file of transfer) {
    const bytes = plain.get(file.secretKey);
    if (bytes === undefined) {
      throw new CheckError(
        `the Secret does not include the required certificate or key - name: ${file.name}, path: ${file.path}`,
      );
    }
    if (bytes.length === 0) {
      out.push({ file, data: bytes });
      continue;
    }
    const kind = entryKind(bytes);
    if (kind === undefined) {
      throw new CheckError(`${file.secretKey}: unknown data found in Secret entry`);
    }
    out.push({ file, data: bytes, kind, mode: ENTRY_MODE[kind] });
  }
  return out;
}

/**
 * The layout a Secret was uploaded with: external etcd when it carries the
 * `external-etcd*` entries, else local etcd.
 */
export function secretUsesExternalEtcd(data: ReadonlyMap<string, Uint8Array>): boolean {
  return Object.values(EXTERNAL_ETCD).some((k) => data.has(k)) &&
    !LOCAL_ETCD_FILES.some((f) => data.has(certOrKeyNameToSecretName(f)));
}
