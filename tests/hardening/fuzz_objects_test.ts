/**
 * Fuzz tests for the Kubernetes objects joinkit reads, fed as structured
 * values (wrong types, missing and renamed fields, huge values, deep
 * nesting) and as mutated text: token Secrets (decodeSecret, the kubeadm
 * reader, the bootstrap authenticator, the bootstrapsigner), kubeconfigs,
 * cluster-info ConfigMaps through token discovery, CSR objects, and
 * `--server` URLs. Token secrets must never appear in an error.
 * See tests/_fuzz.ts.
 */

import * as path from "node:path";
import { oneLine } from "../../lib/base/errors.ts";
import { decodeSecret } from "../../lib/k8s/secret.ts";
import { bootstrapTokenFromSecret } from "../../lib/tokens/bootstrap_token.ts";
import { authenticateBootstrapToken } from "../../lib/tokens/authenticator.ts";
import { selectSigningTokens, signClusterInfoData } from "../../lib/discovery/bootstrap_signer.ts";
import { clusterOf, parseKubeconfig } from "../../lib/k8s/kubeconfig_read.ts";
import { findClusterInfo } from "../../lib/discovery/cluster_info.ts";
import { verifyClusterInfo } from "../../lib/discovery/discovery.ts";
import { readCsrObject } from "../../lib/kubelet/csr_object.ts";
import { parseJoinEndpoint, parseServerUrl } from "../../lib/k8s/server_url.ts";
import { type KubeObject, parseManifests } from "../../lib/k8s/manifest.ts";
import { isObject } from "../../lib/base/object.ts";
import { tempDir } from "../_cli.ts";
import {
  FIXTURE_NOW,
  FIXTURE_SECRET,
  FIXTURE_TOKEN,
  fuzz,
  JoinkitError,
  makeFixtures,
  mutateValue,
  type Rng,
} from "../_fuzz.ts";

const root = tempDir("joinkit-fuzzobj-");
const F = await makeFixtures(path.join(root.dir));
globalThis.addEventListener("unload", root.cleanup);
const NOW = new Date(FIXTURE_NOW);
const SECRET = parseManifests(F.text["secrets.yaml"]!, "s")[0]!;
const STRING_SECRET = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
  type: "bootstrap.kubernetes.io/token",
  stringData: {
    "token-id": "abcdef",
    "token-secret": FIXTURE_SECRET,
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
    "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
    expiration: "2026-11-23T00:00:00Z",
    description: "d",
  },
};
const CLUSTER_INFO = parseManifests(F.text["cluster-info.yaml"]!, "ci")[0]!;
const CSR = parseManifests(F.text["csr.yaml"]!, "csr")[0]!;

/** Structured mutation of a JSON-able sample. */
const structured = <T>(rng: Rng, sample: T) => {
  const m = mutateValue(rng, sample);
  return { input: m.value as T, how: m.how };
};

/** Rethrows, failing when an error message, as joinkit prints it, shows the token secret. */
function noSecret(e: unknown): never {
  if (e instanceof JoinkitError && oneLine(e).includes(FIXTURE_SECRET)) {
    throw new Error(`token secret in error: ${oneLine(e)}`);
  }
  throw e;
}

Deno.test("decodeSecret() → kubeadm reader, authenticator and signer fuzz: token Secrets", async () => {
  await fuzz<unknown>({
    name: "token-secret-pipeline",
    maxMessage: Infinity, // messages quote input; main.ts cuts every stderr line
    samples: [SECRET, STRING_SECRET],
    iterations: 1500,
    mutate: structured,
    run: (obj) => {
      try {
        const s = decodeSecret(obj, "s.yaml");
        const auth = authenticateBootstrapToken(FIXTURE_TOKEN, [s], NOW);
        if (JSON.stringify(auth).includes(FIXTURE_SECRET)) throw new Error("secret in auth result");
        const { tokens } = selectSigningTokens([s], NOW);
        if (tokens.length) signClusterInfoData({ kubeconfig: "x" }, tokens, "ci.yaml");
        return bootstrapTokenFromSecret(s);
      } catch (e) {
        noSecret(e);
      }
    },
  });
});

Deno.test("parseKubeconfig() fuzz: kubeconfigs as text and as structure", async () => {
  await fuzz<string>({
    name: "parseKubeconfig",
    maxMessage: Infinity, // messages quote input; main.ts cuts every stderr line
    samples: [
      F.text["kubeconfig"]!,
      String((CLUSTER_INFO.data as Record<string, string>).kubeconfig),
    ],
    iterations: 300,
    maxInput: 8192,
    run: (t) => {
      try {
        const k = parseKubeconfig(t, "kubeconfig");
        clusterOf(k);
        return k;
      } catch (e) {
        noSecret(e);
      }
    },
  });
  const obj = parseManifests(F.text["kubeconfig"]!, "k")[0]!;
  await fuzz<string>({
    name: "parseKubeconfig-structure",
    maxMessage: Infinity, // messages quote input; main.ts cuts every stderr line
    samples: [JSON.stringify(obj)],
    iterations: 250,
    mutate: (rng, s) => {
      const m = mutateValue(rng, JSON.parse(s));
      return { input: JSON.stringify(m.value) ?? "null", how: m.how };
    },
    run: (t) => {
      try {
        return clusterOf(parseKubeconfig(t, "kubeconfig"));
      } catch (e) {
        noSecret(e);
      }
    },
  });
});

Deno.test("findClusterInfo() → verifyClusterInfo() fuzz: cluster-info ConfigMaps through token discovery", async () => {
  await fuzz<unknown>({
    name: "cluster-info-discovery",
    maxMessage: Infinity, // messages quote input; main.ts cuts every stderr line
    samples: [CLUSTER_INFO],
    iterations: 750,
    mutate: structured,
    run: (obj) => {
      try {
        const ci = findClusterInfo([obj], "ci.yaml");
        return verifyClusterInfo({
          data: ci.data,
          token: FIXTURE_TOKEN,
          caCertHashes: [F.pin],
          unsafeSkipCAVerification: false,
        });
      } catch (e) {
        noSecret(e);
      }
    },
  });
});

Deno.test("readCsrObject() fuzz: CertificateSigningRequest objects", async () => {
  await fuzz<unknown>({
    name: "readCsrObject",
    maxMessage: Infinity, // messages quote input; main.ts cuts every stderr line
    samples: [CSR, { ...CSR, apiVersion: "certificates.k8s.io/v1beta1" }],
    iterations: 1000,
    mutate: structured,
    // Its callers hand it parsed objects only (parseManifests guarantees that).
    run: (obj) => (isObject(obj) ? readCsrObject(obj as KubeObject, "csr.yaml") : undefined),
  });
});

Deno.test("parseServerUrl() / parseJoinEndpoint() fuzz: --server values", async () => {
  const samples = [
    "https://10.0.0.1:6443",
    "https://[fd00::1]:6443",
    "https://cp.example.com:443",
    "10.0.0.1:6443",
    "[::1]:6443",
  ];
  await fuzz<string>({
    name: "parseServerUrl",
    samples: samples.slice(0, 3),
    iterations: 1250,
    maxInput: 4096,
    maxMessage: Infinity, // echoes the flag value; main.ts cuts every stderr line
    run: (s) => parseServerUrl(s, "--server"),
  });
  await fuzz<string>({
    name: "parseJoinEndpoint",
    samples: samples.slice(3),
    iterations: 1250,
    maxInput: 4096,
    maxMessage: Infinity,
    run: (s) => parseJoinEndpoint(s, "--server"),
  });
});
