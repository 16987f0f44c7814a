/**
 * The five kubeconfigs of a control-plane node, as kubeadm's `kubeconfig`
 * phase writes them (`phases/kubeconfig/kubeconfig.go`
 * `getKubeConfigSpecsBase`, `util/kubeconfig` `CreateWithCerts`): the spec
 * table (file, user, groups, which endpoint), the kubeconfig object with
 * embedded credentials, and kubeadm's check of a kubeconfig already on disk
 * (`validateKubeConfig`: the current context's cluster must embed the CA;
 * another server URL is only a warning).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { basicKubeconfig, type KubeconfigObject } from "../discovery/bootstrap_kubeconfig.ts";
import { parseKubeconfig } from "../k8s/kubeconfig_read.ts";
import { kubeconfigYaml } from "../k8s/kubeconfig_yaml.ts";
import { type Cert, parseCertificateFrom } from "../pki/cert_info.ts";
import { certificatesFromPem } from "../pki/certsource.ts";
import { verify } from "../pki/x509_verify.ts";
import { encodePem } from "../pki/pem.ts";
import { InputError } from "../base/errors.ts";
import {
  CLUSTER_ADMINS_GROUP,
  controlPlaneEndpointUrl,
  type ControlPlanePkiSpec,
  localEndpointUrl,
  SYSTEM_MASTERS_GROUP,
} from "./certlist.ts";

/** One kubeconfig kubeadm writes (`kubeConfigSpec`). */
export interface KubeconfigSpec {
  /** The file name under the kubeconfig directory. */
  file: string;
  /** The sub-phase (`kubeadm init phase kubeconfig <name>`). */
  name: string;
  /** The client CN and user name; `undefined`: `system:node:<node name>`. */
  user?: string;
  /** The client certificate's O values. */
  organization: readonly string[];
  /** Which API server URL: the control-plane endpoint or this node's own. */
  server: "controlPlane" | "local";
  /** Differs between control-plane nodes (its user or its server). */
  perNode: boolean;
}

/** The kubeconfigs of `kubeadm init phase kubeconfig all`, in its order. */
export const KUBECONFIG_LIST: readonly KubeconfigSpec[] = [
  {
    file: "admin.conf",
    name: "admin",
    user: "kubernetes-admin",
    organization: [CLUSTER_ADMINS_GROUP],
    server: "controlPlane",
    perNode: false,
  },
  {
    file: "super-admin.conf",
    name: "super-admin",
    user: "kubernetes-super-admin",
    organization: [SYSTEM_MASTERS_GROUP],
    server: "controlPlane",
    perNode: false,
  },
  {
    file: "kubelet.conf",
    name: "kubelet",
    organization: ["system:nodes"],
    server: "controlPlane",
    perNode: true,
  },
  {
    file: "controller-manager.conf",
    name: "controller-manager",
    user: "system:kube-controller-manager",
    organization: [],
    server: "local",
    perNode: true,
  },
  {
    file: "scheduler.conf",
    name: "scheduler",
    user: "system:kube-scheduler",
    organization: [],
    server: "local",
    perNode: true,
  },
];

/** The user (and client CN) of a kubeconfig for `spec`'s node. */
export function kubeconfigUser(
  k: KubeconfigSpec,
  spec: Pick<ControlPlanePkiSpec, "nodeName">,
): string {
  return k.user ?? `system:node:${spec.nodeName}`;
}

/**
 * The server URL of a kubeconfig for `spec`'s node: the control-plane
 * endpoint or the node's own; kubelet.conf the node's own when the
 * `ControlPlaneKubeletLocalMode` gate is on (`runKubeConfigFile`).
 */
export function kubeconfigServer(k: KubeconfigSpec, spec: ControlPlanePkiSpec): string {
  const local = k.server === "local" || (k.name === "kubelet" && spec.kubeletLocalMode);
  return local ? localEndpointUrl(spec) : controlPlaneEndpointUrl(spec);
}

/**
 * The kubeconfig object (`CreateWithCerts`): cluster `<clusterName>` with the
 * server and the CA (`caPem`: the first certificate of `ca.crt`, PEM), user
 * named after the client CN with the embedded certificate and key, context
 * `<user>@<cluster>`, current.
 */
export function kubeconfigObject(
  k: KubeconfigSpec,
  spec: ControlPlanePkiSpec,
  caPem: string,
  certPem: string,
  keyPem: string,
): KubeconfigObject {
  return basicKubeconfig(
    kubeconfigServer(k, spec),
    new Uint8Array(Buffer.from(caPem, "utf8")),
    spec.clusterName,
    kubeconfigUser(k, spec),
    {
      "client-certificate-data": Buffer.from(certPem, "utf8").toString("base64"),
      "client-key-data": Buffer.from(keyPem, "utf8").toString("base64"),
    },
  );
}

/** {@link kubeconfigObject} as the bytes `clientcmd.WriteToFile` writes. */
export function kubeconfigText(
  k: KubeconfigSpec,
  spec: ControlPlanePkiSpec,
  caPem: string,
  certPem: string,
  keyPem: string,
): string {
  return kubeconfigYaml(kubeconfigObject(k, spec, caPem, certPem, keyPem));
}

/** What kubeadm concluded about a kubeconfig already on disk. */
export interface ExistingKubeconfig {
  /** A warning kubeadm prints (another server URL), if any. */
  warning?: string;
  /**
   * joinkit's warning when the current user's embedded client certificate
   * does not verify against the CA at the given time (expired, another
   * CA): kubeadm keeps such a file without looking.
   */
  clientWarning?: string;
}

/** The CA and instant to verify a kept kubeconfig's client certificate with, and its identity. */
export interface ClientCertCheck {
  ca: Cert;
  now: Date;
  /** The subject kubeadm would give it now (CN = the user, O = its groups). */
  commonName: string;
  organization: readonly string[];
}

/**
 * kubeadm's `validateKubeConfig` for an existing file: it must load, its
 * current context and that context's cluster must exist, and the cluster's
 * CA (`certificate-authority-data`, trimmed) must start with the CA
 * certificate `caDer`. Throws `InputError` with kubeadm's texts (naming
 * `path`); a different server only warns. The client certificate is not
 * checked, as in kubeadm. When the cluster has no CA data, kubeadm reads
 * the file its `certificate-authority` names (as given: relative to the
 * working directory): `readFile` reads it (throwing on failure); without
 * it, such a kubeconfig is refused.
 */
export function checkExistingKubeconfig(
  text: string,
  path: string,
  caDer: Uint8Array,
  expectedServer: string,
  readFile?: (file: string) => Uint8Array,
  client?: ClientCertCheck,
): ExistingKubeconfig {
  let cfg;
  try {
    cfg = parseKubeconfig(text, path);
  } catch (e) {
    throw new InputError(
      `failed to load kubeconfig file ${path} that already exists on disk: ${(e as Error).message}`,
    );
  }
  const clusterName = cfg.contextClusters.get(cfg.currentContext);
  if (clusterName === undefined) {
    throw new InputError(
      `failed to find CurrentContext in Contexts of the kubeconfig file ${path}`,
    );
  }
  const cluster = cfg.clusters.find((c) => c.name === clusterName);
  if (!cluster) {
    throw new InputError(
      `failed to find the given CurrentContext Cluster in Clusters of the kubeconfig file ${path}`,
    );
  }
  let caText = Buffer.from(cluster.caData).toString("utf8").trim();
  let caFileError = "";
  if (caText === "" && cluster.caFile !== "") {
    try {
      if (!readFile) throw new Error("not read");
      caText = Buffer.from(readFile(cluster.caFile)).toString("utf8").trim();
    } catch (e) {
      // kubeadm logs this and goes on with no CA data, which then does not parse.
      caFileError = `: failed to load CA cert from ${JSON.stringify(cluster.caFile)}: ${
        (e as Error).message
      }`;
    }
  }
  let first: Uint8Array | undefined;
  let count = 0;
  try {
    const certs = certificatesFromPem(caText, path);
    first = certs[0];
    count = certs.length;
  } catch {
    throw new InputError(
      `the kubeconfig file ${JSON.stringify(path)} contains an invalid CA cert${caFileError}`,
    );
  }
  if (!first || !Buffer.from(first).equals(Buffer.from(caDer))) {
    throw new InputError(
      `a kubeconfig file ${
        JSON.stringify(path)
      } exists but does not contain a trusted CA in its current context's cluster. Total CA certificates found: ${count}`,
    );
  }
  const out: ExistingKubeconfig = {};
  if (cluster.server !== expectedServer) {
    out.warning = `a kubeconfig file ${
      JSON.stringify(path)
    } exists already but has an unexpected API Server URL: expected: ${expectedServer}, got: ${cluster.server}`;
  }
  const userName = cfg.contextUsers.get(cfg.currentContext);
  const user = cfg.users.find((u) => u.name === userName);
  if (client && user && user.clientCertData.length) {
    let why: string | undefined;
    try {
      const der = certificatesFromPem(Buffer.from(user.clientCertData).toString("utf8"), path);
      const leaf = parseCertificateFrom(der[0]!, path);
      const v = verify(leaf, {
        roots: [client.ca],
        intermediates: [],
        currentTime: client.now,
        keyUsages: ["ClientAuth"],
      });
      if (!v.ok) why = v.error;
      else {
        // Another identity (a renamed node's kubelet.conf): the API server would see the old one.
        const got = subjectText(leaf.subject.commonName, leaf.subject.organization);
        const want = subjectText(client.commonName, client.organization);
        if (got !== want) {
          out.clientWarning =
            `${path}: kept, but its client certificate is ${got}, not the configuration's ${want} (kubeadm keeps it too; remove the file to have it made anew)`;
        }
      }
    } catch (e) {
      why = (e as Error).message;
    }
    if (why) {
      out.clientWarning =
        `${path}: kept, but its client certificate does not verify: ${why} (kubeadm keeps it too; joinkit certs renew makes a new one)`;
    }
  }
  return out;
}

function subjectText(cn: string, o: readonly string[]): string {
  return [...o.map((x) => `O=${x}`), `CN=${cn}`].join(", ");
}

/** The PEM kubeadm embeds as `certificate-authority-data`: the CA's first certificate. */
export function embeddedCaPem(caDer: Uint8Array): string {
  return encodePem("CERTIFICATE", caDer);
}
