/**
 * Fuzz tests for the text parsers every command shares: Go durations,
 * RFC 3339 times, bootstrap tokens, PEM and Kubernetes manifests.
 * See tests/_fuzz.ts for the harness and its environment variables.
 */

import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "../../lib/go/duration.ts";
import { formatRfc3339, parseRfc3339 } from "../../lib/go/time.ts";
import { parseToken } from "../../lib/tokens/token.ts";
import { decodePem, encodePem } from "../../lib/pki/pem.ts";
import { parseManifests, renderObjects, toYaml } from "../../lib/k8s/manifest.ts";
import { isObject } from "../../lib/base/object.ts";
import { fuzz, type Rng } from "../_fuzz.ts";

Deno.test("parseDuration() fuzz: a number of ms or a JoinkitError", async () => {
  await fuzz<string>({
    name: "parseDuration",
    samples: [
      "24h",
      "1h30m",
      "90s",
      "0",
      "-1.5h",
      "300ms",
      "1µs",
      "2h45m10.5s",
      "+15m",
      ".5s",
      "1ns",
    ],
    iterations: 2000,
    run: (s) => parseDuration(s),
    check: (r) => {
      assert.equal(typeof r, "number");
      assert.ok(Number.isFinite(r as number), `not finite: ${r}`);
      formatDuration(r as number);
    },
  });
});

Deno.test("parseRfc3339() fuzz: a valid Date or a JoinkitError", async () => {
  await fuzz<string>({
    name: "parseRfc3339",
    samples: [
      "2026-11-22T00:00:00Z",
      "1970-01-01T01:01:01Z",
      "2024-02-29T23:59:59.999999999+05:30",
      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59-23:59",
      "2026-01-02T5:04:05,5+24:00",
    ],
    iterations: 2000,
    run: (s) => parseRfc3339(s, "--now"),
    check: (r) => {
      assert.ok(r instanceof Date);
      assert.ok(Number.isFinite(r.getTime()), "invalid date");
      formatRfc3339(r);
    },
  });
});

Deno.test("parseToken() fuzz: a token or a JoinkitError, never echoing the input", async () => {
  await fuzz<string>({
    name: "parseToken",
    samples: ["abcdef.0123456789abcdef", "07401b.f395accd246ae52d", "zzzzzz.zzzzzzzzzzzzzzzz"],
    iterations: 1500,
    run: (s) => {
      try {
        return parseToken(s);
      } catch (e) {
        // The message must not contain any 16-character run of the input (a secret).
        const m = /[a-z0-9]{16}/.exec(s);
        if (m && (e as Error).message.includes(m[0])) throw new Error("secret echoed in error");
        throw e;
      }
    },
    check: (r) => {
      const t = r as { id: string; secret: string };
      assert.match(t.id, /^[a-z0-9]{6}$/);
      assert.match(t.secret, /^[a-z0-9]{16}$/);
    },
  });
});

const CERT = `-----BEGIN CERTIFICATE-----
MIIBVTCB/aADAgECAgEBMAoGCCqGSM49BAMCMBUxEzARBgNVBAMTCmt1YmVybmV0
ZXMwHhcNMjYwMTAxMDAwMDAwWhcNMzYwMTAxMDAwMDAwWjAVMRMwEQYDVQQDEwpr
dWJlcm5ldGVzMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAAECAwQFBgcICQoL
DA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7
PD0+P6NCMEAwDgYDVR0PAQH/BAQDAgKkMA8GA1UdEwEB/wQFMAMBAf8wHQYDVR0O
BBYEFAABAgMEBQYHCAkKCwwNDg8QERITMAoGCCqGSM49BAMCA0cAMEQCIAABAgME
-----END CERTIFICATE-----
`;

Deno.test("decodePem() fuzz: blocks with DER or a JoinkitError", async () => {
  const legacy = `-----BEGIN RSA PRIVATE KEY-----
Proc-Type: 4,ENCRYPTED
DEK-Info: AES-128-CBC,0123456789ABCDEF0123456789ABCDEF

AAECAwQFBgcICQoLDA0ODw==
-----END RSA PRIVATE KEY-----
`;
  await fuzz<string>({
    name: "decodePem",
    samples: [
      CERT,
      CERT + CERT,
      CERT.replace(/\n/g, "\r\n"),
      "\uFEFF\n" + CERT.replace(/\n/g, "\r\n"),
      "text before\n" + CERT + "text after\n",
      legacy,
      encodePem("PRIVATE KEY", new Uint8Array(100).fill(7)),
    ],
    iterations: 1500,
    run: (s) => decodePem(s, "ca.crt"),
    check: (r) => {
      assert.ok(Array.isArray(r));
      for (const b of r) {
        assert.equal(typeof b.type, "string");
        // Go's pem.Decode returns an empty body as empty bytes.
        assert.ok(b.der instanceof Uint8Array);
        // What was decoded re-encodes and decodes to the same bytes.
        const again = decodePem(encodePem(b.type, b.der), "x")[0]!;
        assert.deepEqual(again.der, b.der);
      }
    },
  });
});

const SECRET_YAML = `apiVersion: v1
kind: Secret
metadata:
  name: bootstrap-token-abcdef
  namespace: kube-system
type: bootstrap.kubernetes.io/token
stringData:
  token-id: abcdef
  token-secret: 0123456789abcdef
  usage-bootstrap-authentication: "true"
  usage-bootstrap-signing: "true"
  auth-extra-groups: system:bootstrappers:kubeadm:default-node-token
  expiration: "2026-11-23T00:00:00Z"
`;

const CLUSTER_INFO = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cluster-info", namespace: "kube-public" },
  data: {
    kubeconfig:
      'apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: AAAA\n    server: https://10.0.0.1:6443\n  name: ""\nkind: Config\n',
    "jws-kubeconfig-abcdef": "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..abc",
  },
};

const SECRET_OBJ = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
  type: "bootstrap.kubernetes.io/token",
  data: { "token-id": "YWJjZGVm", "token-secret": "MDEyMzQ1Njc4OWFiY2RlZg==" },
};

const CSR_OBJ = {
  apiVersion: "certificates.k8s.io/v1",
  kind: "CertificateSigningRequest",
  metadata: { name: "node-csr-1" },
  spec: {
    request: "LS0tLS1CRUdJTi",
    signerName: "kubernetes.io/kube-apiserver-client-kubelet",
    usages: ["digital signature", "client auth"],
    expirationSeconds: 86400,
  },
};

function checkManifests(r: unknown) {
  assert.ok(Array.isArray(r));
  for (const o of r) assert.ok(isObject(o), "not an object");
  // Whatever parses must also render (commands print what they read).
  renderObjects(r, "json");
  renderObjects(r, "yaml");
}

Deno.test("parseManifests() fuzz (text): objects or a JoinkitError", async () => {
  await fuzz<string>({
    name: "parseManifests-text",
    samples: [
      SECRET_YAML,
      SECRET_YAML + "---\n" + toYaml(CLUSTER_INFO),
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [SECRET_OBJ, CLUSTER_INFO] }),
      JSON.stringify(CSR_OBJ, null, 2),
      "\uFEFF" + SECRET_YAML.replace(/\n/g, "\r\n"),
      "a: &a [x, y]\nb: *a\nc: {<<: {k: v}}\n",
      "---\n---\n",
    ],
    iterations: 500,
    maxInput: 16_384,
    run: (s) => parseManifests(s, "in.yaml"),
    check: checkManifests,
  });
});

Deno.test("parseManifests() fuzz (structure): wrong types and huge values survive JSON and YAML", async () => {
  const samples = [SECRET_OBJ, CLUSTER_INFO, CSR_OBJ, {
    kind: "List",
    items: [SECRET_OBJ, CSR_OBJ],
  }];
  await fuzz<string>({
    name: "parseManifests-structure",
    samples: samples.map((s) => JSON.stringify(s)),
    iterations: 400,
    mutate: (rng: Rng, sample: string) => {
      const { mutateValue } = fuzzMutators;
      const m = mutateValue(rng, JSON.parse(sample));
      let text: string;
      try {
        text = rng.chance(0.5) ? JSON.stringify(m.value) ?? "null" : toYaml(m.value);
      } catch {
        text = JSON.stringify(m.value) ?? "null";
      }
      return { input: text, how: m.how };
    },
    run: (s) => parseManifests(s, "in.json"),
    check: checkManifests,
  });
});

// Bound lazily so the harness stays the single import site.
import * as fuzzMutators from "../_fuzz.ts";
