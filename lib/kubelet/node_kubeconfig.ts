/**
 * A pre-signed `kubelet.conf` for a node: the client key and certificate the
 * kubelet's TLS bootstrap would have obtained (signed by `sign_batch.ts`,
 * the same judgement and signer as `csr sign`), the kubeconfig kubeadm
 * writes for a kubelet (`phases/kubeconfig`, `CreateWithCerts`), and the
 * kubelet's certificate store files (`kubelet-client-<ts>.pem`,
 * `kubelet-client-current.pem`; client-go `util/certificate/certificate_store.go`).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import {
  basicKubeconfig,
  DEFAULT_CLUSTER_NAME,
  type KubeconfigObject,
} from "../discovery/bootstrap_kubeconfig.ts";
import { exportPrivateKeyPem, exportSpki, generateKeyPair, type KeyType } from "../pki/keys.ts";
import { BOOTSTRAP_CLIENT_USAGES } from "../pki/usages.ts";
import { KUBELET_CLIENT_SIGNER } from "./approver.ts";
import { createCsr, csrPem } from "./csr.ts";
import { isDns1123Subdomain } from "./csr_validation.ts";
import { signPemCsr } from "./sign_batch.ts";
import type { SigningCa } from "./signer.ts";

/** The kubelet's default `--cert-dir`. */
export const KUBELET_CERT_DIR = "/var/lib/kubelet/pki";

/** The certificate store's name prefix for the kubelet client pair. */
export const KUBELET_CLIENT_PREFIX = "kubelet-client";

/** The store's pointer to the pair in use (`<prefix>-current.pem`). */
export const KUBELET_CLIENT_CURRENT = `${KUBELET_CLIENT_PREFIX}-current.pem`;

/** kubeadm's user for a node: `system:node:<name>` (`constants.NodesUserPrefix`). */
export function nodeUser(node: string): string {
  return `system:node:${node}`;
}

/** kubeadm's `constants.NodesGroup`. */
export const NODES_GROUP = "system:nodes";

/**
 * Why `name` cannot be a Node's name (apimachinery `ValidateNodeName`: a
 * DNS-1123 subdomain), or `undefined` when it can.
 *
 * @example
 * ```ts
 * nodeNameProblem("worker-1"); // undefined
 * ```
 */
export function nodeNameProblem(name: string): string | undefined {
  const errs = isDns1123Subdomain(name);
  return errs.length ? errs.join("; ") : undefined;
}

/**
 * The store's file name for a pair made at `at`: `kubelet-client-` plus Go's
 * `Format("2006-01-02-15-04-05")`. The kubelet uses the host's local time;
 * joinkit uses UTC, since the node's zone is unknown (the name is never
 * parsed back).
 *
 * @example
 * ```ts
 * pairFileName(new Date("2026-08-21T13:29:23Z")); // "kubelet-client-2026-08-21-13-29-23.pem"
 * ```
 */
export function pairFileName(at: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const ts = `${at.getUTCFullYear()}-${p(at.getUTCMonth() + 1)}-${p(at.getUTCDate())}-${
    p(at.getUTCHours())
  }-${p(at.getUTCMinutes())}-${p(at.getUTCSeconds())}`;
  return `${KUBELET_CLIENT_PREFIX}-${ts}.pem`;
}

/** Inputs of {@link nodeKubeconfig}. */
export interface NodeKubeconfigOptions {
  /** API server URL. */
  server: string;
  /** The CA bundle to embed (PEM bytes). */
  caData: Uint8Array;
  /** The node name. */
  node: string;
  /** Cluster name (default `kubernetes`). */
  clusterName?: string;
  /** Embedded credentials: the certificate and key PEM. */
  embedded?: { certPem: string; keyPem: string };
  /** File-referenced credentials: the path both `client-certificate` and `client-key` name. */
  pairFile?: string;
}

/**
 * The kubelet.conf kubeadm writes (`CreateWithCerts`): cluster `<cluster>`
 * with the server and CA, user `system:node:<node>`, context
 * `system:node:<node>@<cluster>`, current. Credentials either embedded
 * (`client-certificate-data`/`client-key-data`, as the kubeconfig phase
 * writes them) or both pointing at the store's current pair (as
 * `kubelet-finalize` rewrites them once rotation is on). Serialised as
 * kubectl writes it (`preferences: {}`).
 *
 * @example
 * ```ts ignore
 * nodeKubeconfig({ server, caData, node: "worker-1", pairFile: "/var/lib/kubelet/pki/kubelet-client-current.pem" });
 * ```
 */
export function nodeKubeconfig(opts: NodeKubeconfigOptions): KubeconfigObject {
  const credentials: Record<string, string> = opts.embedded
    ? {
      "client-certificate-data": Buffer.from(opts.embedded.certPem, "utf8").toString("base64"),
      "client-key-data": Buffer.from(opts.embedded.keyPem, "utf8").toString("base64"),
    }
    : { "client-certificate": opts.pairFile ?? "", "client-key": opts.pairFile ?? "" };
  return basicKubeconfig(
    opts.server,
    opts.caData,
    opts.clusterName ?? DEFAULT_CLUSTER_NAME,
    nodeUser(opts.node),
    credentials,
  );
}

/** A node's fresh client credentials. */
export interface NodeCredentials {
  /** The private key, PEM as the kubelet writes it (`EC PRIVATE KEY` for ECDSA). */
  keyPem: string;
  /** The CSR that was judged and signed (PEM). */
  csrPem: string;
  /** The issued certificate (PEM). */
  certPem: string;
}

/** Inputs of {@link issueNodeCredentials}. */
export interface IssueOptions {
  ca: SigningCa;
  /** The signer's `--cluster-signing-duration`, ms. */
  ttlMs: number;
  now: Date;
  keyType: KeyType;
}

/**
 * What the kubelet's TLS bootstrap obtains, without the cluster: a fresh key,
 * a CSR with `CN=system:node:<node>`, `O=system:nodes` and the bootstrap
 * CSR's usages (digital signature, key encipherment, client auth), judged and
 * signed by `signPemCsr` exactly as `csr sign` does for
 * `kubernetes.io/kube-apiserver-client-kubelet` (that signer's validator,
 * lifetime and backdate rules). Refusals come back as thrown `JoinkitError`s
 * naming `node`; the key never appears in them.
 */
export async function issueNodeCredentials(
  node: string,
  o: IssueOptions,
): Promise<NodeCredentials> {
  const pair = await generateKeyPair(o.keyType);
  const spki = await exportSpki(pair.publicKey);
  const der = await createCsr(pair.privateKey, spki, {
    commonName: nodeUser(node),
    organization: [NODES_GROUP],
  });
  const request = csrPem(der);
  const certPem = await signPemCsr(request, `node ${JSON.stringify(node)}`, {
    ca: o.ca,
    ttlMs: o.ttlMs,
    now: o.now,
    signerName: KUBELET_CLIENT_SIGNER,
    usages: BOOTSTRAP_CLIENT_USAGES,
  });
  return { keyPem: await exportPrivateKeyPem(pair.privateKey), csrPem: request, certPem };
}
