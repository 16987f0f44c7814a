/**
 * `joinkit doctor`: reads what joinkit renders and kubeadm writes (token
 * Secrets, RBAC, cluster-info, bootstrap and other kubeconfigs, discovery
 * files, JoinConfigurations, join commands, certificates) and proves them
 * consistent, offline:
 *
 * - every token a kubeconfig, join command or JoinConfiguration refers to
 *   exists as a bootstrap-token Secret with the usage it needs (`signing` for
 *   discovery, `authentication` for the TLS bootstrap) and is not expired,
 *   judged as kube-apiserver's authenticator and the bootstrapsigner do;
 * - cluster-info carries exactly the signatures the bootstrapsigner would
 *   write, each valid (`jws.DetachedTokenIsValid`);
 * - every CA pin matches the CA in cluster-info (`CheckAny`), and every
 *   kubeconfig's CA and server agree with it;
 * - RBAC binds the groups the authentication tokens carry to CSR creation
 *   and auto-approval, and cluster-info is readable anonymously;
 * - certificates chain to a CA found in the input and are inside their
 *   lifetimes;
 * - every Kubernetes object validates against the OpenAPI schema
 *   (`k8s/schema.ts`).
 *
 * Files it cannot read or does not recognise are reported as skipped, never
 * fatal. Pure: the command reads the files.
 *
 * @module
 */

import { isObject } from "../base/object.ts";
import { decodeGoBase64 } from "../base/base64.ts";
import { parseManifests } from "../k8s/manifest.ts";
import { type DecodedSecret, decodeSecret, describeObject, getData } from "../k8s/secret.ts";
import { validateObject } from "../k8s/schema.ts";
import { type Cert, parseCertificate } from "../pki/cert_info.ts";
import { decodePem, looksLikePem } from "../pki/pem.ts";
import { PinSet } from "../pki/pin.ts";
import { verify } from "../pki/x509_verify.ts";
import { formatRfc3339 } from "../go/time.ts";
import { authenticateBootstrapToken } from "../tokens/authenticator.ts";
import { getExpiration, getGroups } from "../tokens/bootstrap_token.ts";
import { RBAC_NAMES } from "../tokens/rbac.ts";
import {
  BOOTSTRAP_USER_PREFIX,
  KEYS,
  NODE_BOOTSTRAP_TOKEN_GROUP,
  SECRET_PREFIX,
  SECRET_TYPE,
  TOKEN_NAMESPACE,
  tokenFromString,
} from "../tokens/token.ts";
import { selectSigningTokens } from "../discovery/bootstrap_signer.ts";
import {
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  JWS_KEY_PREFIX,
  KUBECONFIG_KEY,
} from "../discovery/cluster_info.ts";
import { detachedTokenIsValid } from "../discovery/jws.ts";
import { checkDiscoveryFile } from "../discovery/discovery_file.ts";
import { messageOf } from "../base/errors.ts";
import { GCM_NONCE_SIZE } from "../pki/aes_gcm.ts";
import { readInitConfiguration } from "../kubeadm/init_config.ts";
import {
  decodeJoinConfiguration,
  NO_DISCOVERY_CREDENTIALS,
  validateJoinConfig,
} from "../kubeadm/join_config.ts";
import { KUBEADM_CERTS_SECRET } from "./upload_certs.ts";
import { isArtefactPath, payloadFiles } from "./payload_files.ts";
import { checkPkiTree, findPkiTrees } from "./pki_check.ts";
import type { ControlPlanePkiSpec } from "./certlist.ts";

/** One file to examine. */
export interface DoctorFile {
  /** Its name in the report (a path, or `stdin`). */
  name: string;
  text: string;
  bytes: Uint8Array;
}

/** One inconsistency. */
export interface Finding {
  file: string;
  /** The object: `Secret kube-system/bootstrap-token-abcdef`, `join command`, `certificate CN=…`. */
  object: string;
  /** The field within it (`data.expiration`, `spec.request`, `--discovery-token-ca-cert-hash`). */
  field: string;
  /** The check that said no: token, signature, pin, rbac, certificate, schema, config. */
  check: string;
  message: string;
}

/** A file that was not examined. */
export interface Skipped {
  file: string;
  reason: string;
}

/** What doctor found. */
export interface DoctorReport {
  files: number;
  /** Node payloads (cloud-config, Ignition) whose files were read and checked. */
  payloads: number;
  /** kubeadm configurations judged by kubeadm's rules (JoinConfiguration; Init+Cluster per file). */
  kubeadmConfigs: number;
  /** `kube-system/kubeadm-certs` Secrets (upload-certs output) whose ciphertexts were checked. */
  kubeadmCertsSecrets: number;
  /** Payload entries that hold no artefact (scripts, placeholders): read, nothing to check. */
  payloadOtherFiles: number;
  objects: number;
  /** Token references checked (kubeconfigs, join commands, JoinConfigurations). */
  tokenReferences: number;
  /** Bootstrap-token Secrets read. */
  tokenSecrets: number;
  certificates: number;
  /** Objects validated against the schema. */
  validated: number;
  /** Objects of a kind with no schema here (`apiVersion/kind`), not validated. */
  unvalidatedKinds: string[];
  findings: Finding[];
  skipped: Skipped[];
  /** kubeadm PKI trees (`pki/ca.crt` and what is beside it) checked as a whole; absent when none. */
  pkiTrees?: number;
}

type Need = "signing" | "authentication";

interface TokenRef {
  file: string;
  object: string;
  field: string;
  token: string;
  needs: Need[];
  /** The `auth-extra-groups` the Secret must carry (an InitConfiguration's declared groups). */
  groups?: string[];
}

interface PinRef {
  file: string;
  object: string;
  field: string;
  pins: string[];
  unsafe: boolean;
}

interface CertItem {
  file: string;
  object: string;
  cert: Cert;
  /** The certificates after it in the same file or field (candidate intermediates). */
  rest: Cert[];
}

interface KubeconfigItem {
  file: string;
  object: string;
  caDers: Uint8Array[];
  server: string;
}

interface Located<T> {
  file: string;
  object: string;
  value: T;
}

const KUBEADM_GROUP = /^kubeadm\.k8s\.io\//;

/** The words of a join command (line continuations joined, `#` comments dropped). */
function joinWords(text: string): string[] | undefined {
  const lines = text.replace(/\\\r?\n/g, " ").split(/\r?\n/).map((l) => l.trim()).filter((l) =>
    l !== "" && !l.startsWith("#")
  );
  if (lines.length !== 1) return undefined;
  const words = lines[0]!.split(/\s+/).filter((w) => w !== "" && w !== "sudo");
  if (words[0] !== "kubeadm" || words[1] !== "join") return undefined;
  return words.slice(2);
}

/** `--flag value` and `--flag=value` pairs of a join command, in order. */
function flagPairs(words: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (!w.startsWith("--")) continue;
    const eq = w.indexOf("=");
    if (eq >= 0) out.push([w.slice(2, eq), w.slice(eq + 1)]);
    else if (i + 1 < words.length && !words[i + 1]!.startsWith("--")) {
      out.push([w.slice(2), words[++i]!]);
    } else out.push([w.slice(2), "true"]);
  }
  return out;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

function decodeB64(v: unknown): Uint8Array | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  return decodeGoBase64(v);
}

function certsOfPem(text: string): Cert[] {
  const out: Cert[] = [];
  for (const block of decodePem(text)) {
    if (block.type === "CERTIFICATE") out.push(parseCertificate(block.der));
  }
  return out;
}

function certsOfBytes(bytes: Uint8Array): Cert[] {
  const text = new TextDecoder().decode(bytes);
  if (looksLikePem(text)) return certsOfPem(text);
  return [parseCertificate(bytes)];
}

function subjectOf(c: Cert): string {
  return c.subject.commonName !== "" ? `certificate CN=${c.subject.commonName}` : "certificate";
}

/** Options of {@link doctor}. */
export interface DoctorOptions {
  /** The configuration kubeadm PKI trees were made from: their SANs and servers are checked against it. */
  pkiSpec?: ControlPlanePkiSpec;
}

/**
 * Examines `files` at `now`. Never throws for a bad file: it is skipped and
 * listed.
 *
 * @example
 * ```ts ignore
 * const report = await doctor(files, new Date());
 * report.findings.length === 0; // consistent
 * ```
 */
export async function doctor(
  files: readonly DoctorFile[],
  now: Date,
  opts: DoctorOptions = {},
): Promise<DoctorReport> {
  const findings: Finding[] = [];
  const skipped: Skipped[] = [];
  const add = (f: Finding) => findings.push(f);
  const secrets: Located<DecodedSecret>[] = [];
  const clusterInfos: Located<Record<string, string>>[] = [];
  const bindings: Located<Record<string, unknown>>[] = [];
  const tokenRefs: TokenRef[] = [];
  const pinRefs: PinRef[] = [];
  const certs: CertItem[] = [];
  const kubeconfigs: KubeconfigItem[] = [];
  const unvalidated = new Set<string>();
  let objects = 0;
  let validated = 0;
  let payloads = 0;
  let kubeadmConfigs = 0;
  let kubeadmCertsSecrets = 0;
  let payloadOtherFiles = 0;

  /** A token reference; the same token in the same field twice (`--token`: discovery and TLS) is one. */
  const addRef = (ref: TokenRef) => {
    const same = tokenRefs.find((r) =>
      r.file === ref.file && r.object === ref.object && r.field === ref.field &&
      r.token === ref.token
    );
    if (!same) tokenRefs.push(ref);
    else {
      for (const n of ref.needs) if (!same.needs.includes(n)) same.needs.push(n);
      same.needs.sort(); // authentication first: its reasons are the authenticator's
    }
  };

  /** Each certificate of a file (named by its subject) or of a field (`field[i]` in a bundle). */
  const addCerts = (file: string, field: string | undefined, list: Cert[]) => {
    list.forEach((cert, i) => {
      const object = field === undefined
        ? subjectOf(cert)
        : list.length > 1
        ? `${field}[${i}]`
        : field;
      certs.push({ file, object, cert, rest: list.slice(i + 1) });
    });
  };

  /** Certificates held base64-encoded in an object's field (schema errors are reported apart). */
  const embeddedCerts = (file: string, object: string, field: string, value: unknown) => {
    const raw = decodeB64(value);
    if (!raw) return;
    try {
      addCerts(file, `${object} ${field}`, certsOfBytes(raw));
    } catch (e) {
      add({ file, object, field, check: "certificate", message: (e as Error).message });
    }
  };

  const readKubeconfig = (file: string, obj: Record<string, unknown>) => {
    const object = `kubeconfig ${describeObject(obj).replace(/^Config /, "")}`.replace(
      / without metadata\.name$/,
      "",
    );
    const what = object === "kubeconfig Config" ? "kubeconfig" : object;
    const clusters = Array.isArray(obj.clusters) ? obj.clusters : [];
    clusters.forEach((c, i) => {
      const cluster = isObject(c) && isObject(c.cluster) ? c.cluster : {};
      const field = `clusters[${i}].cluster.certificate-authority-data`;
      const raw = decodeB64(cluster["certificate-authority-data"]);
      let caDers: Uint8Array[] = [];
      if (cluster["certificate-authority-data"] !== undefined && raw === undefined) {
        add({ file, object: what, field, check: "config", message: "not valid base64" });
      } else if (raw) {
        try {
          const list = certsOfBytes(raw);
          caDers = list.map((c) => c.der);
          addCerts(file, `${what} ${field}`, list);
        } catch (e) {
          add({ file, object: what, field, check: "config", message: (e as Error).message });
        }
      }
      kubeconfigs.push({ file, object: what, caDers, server: str(cluster.server) });
    });
    const users = Array.isArray(obj.users) ? obj.users : [];
    users.forEach((u, i) => {
      const user = isObject(u) && isObject(u.user) ? u.user : {};
      const token = str(user.token);
      if (token !== "" && tokenFromString(token)) {
        addRef({
          file,
          object: what,
          field: `users[${i}].user.token`,
          token,
          needs: ["authentication"],
        });
      }
      const raw = decodeB64(user["client-certificate-data"]);
      if (raw) {
        try {
          addCerts(file, `${what} users[${i}].user.client-certificate-data`, certsOfBytes(raw));
        } catch (e) {
          add({
            file,
            object: what,
            field: `users[${i}].user.client-certificate-data`,
            check: "certificate",
            message: (e as Error).message,
          });
        }
      }
    });
  };

  const readJoinConfiguration = (file: string, obj: Record<string, unknown>) => {
    const object = `JoinConfiguration (${str(obj.apiVersion)})`;
    const discovery = isObject(obj.discovery) ? obj.discovery : {};
    const bt = isObject(discovery.bootstrapToken) ? discovery.bootstrapToken : undefined;
    const discoveryToken = bt ? str(bt.token) : "";
    if (bt && discoveryToken !== "") {
      addRef({
        file,
        object,
        field: "discovery.bootstrapToken.token",
        token: discoveryToken,
        needs: ["signing"],
      });
      const hashes = Array.isArray(bt.caCertHashes) ? bt.caCertHashes.map(String) : [];
      pinRefs.push({
        file,
        object,
        field: "discovery.bootstrapToken.caCertHashes",
        pins: hashes,
        unsafe: bt.unsafeSkipCAVerification === true,
      });
    }
    // kubeadm's defaulting: tlsBootstrapToken falls back to the discovery token.
    const tls = str(discovery.tlsBootstrapToken) || discoveryToken;
    if (tls !== "") {
      addRef({
        file,
        object,
        field: discovery.tlsBootstrapToken
          ? "discovery.tlsBootstrapToken"
          : "discovery.bootstrapToken.token",
        token: tls,
        needs: ["authentication"],
      });
    }
  };

  // kubeadm's bootstrapTokens: each must have been rendered with its usages and groups
  // (defaults: signing and authentication, the default node-token group).
  const readInitTokens = (file: string, obj: Record<string, unknown>) => {
    const object = `InitConfiguration (${str(obj.apiVersion)})`;
    const list = Array.isArray(obj.bootstrapTokens) ? obj.bootstrapTokens : [];
    list.forEach((bt, i) => {
      if (!isObject(bt) || str(bt.token) === "") return;
      const usages = Array.isArray(bt.usages)
        ? bt.usages.map(String)
        : ["signing", "authentication"];
      const groups = Array.isArray(bt.groups)
        ? bt.groups.map(String)
        : [NODE_BOOTSTRAP_TOKEN_GROUP];
      addRef({
        file,
        object,
        field: `bootstrapTokens[${i}].token`,
        token: str(bt.token),
        needs: usages.filter((u): u is Need => u === "signing" || u === "authentication"),
        ...(usages.includes("authentication") ? { groups } : {}),
      });
    });
  };

  const readJoinCommand = (file: string, words: string[]) => {
    const object = "join command";
    const flags = flagPairs(words);
    const get = (n: string) => flags.filter(([k]) => k === n).map(([, v]) => v);
    const token = get("token").pop();
    const discovery = get("discovery-token").pop() ??
      (get("discovery-file").length ? undefined : token);
    const tls = get("tls-bootstrap-token").pop() ?? token;
    if (discovery !== undefined) {
      addRef({
        file,
        object,
        field: get("discovery-token").length ? "--discovery-token" : "--token",
        token: discovery,
        needs: ["signing"],
      });
      pinRefs.push({
        file,
        object,
        field: "--discovery-token-ca-cert-hash",
        pins: get("discovery-token-ca-cert-hash").flatMap((v) => v.split(",")),
        unsafe: get("discovery-token-unsafe-skip-ca-verification").some((v) => v !== "false"),
      });
    }
    if (tls !== undefined) {
      addRef({
        file,
        object,
        field: get("tls-bootstrap-token").length ? "--tls-bootstrap-token" : "--token",
        token: tls,
        needs: ["authentication"],
      });
    }
  };

  /**
   * kubeadm's own judgement of the kubeadm configs in one file: a
   * JoinConfiguration decoded as `kubeadm join --config` does (unknown fields
   * are findings: kubeadm join ignores them, `kubeadm config validate`
   * refuses them) and judged by `ValidateJoinConfiguration`, then file
   * discovery's credentials (the discovery file found in the same payload);
   * an Init/ClusterConfiguration read as `kubeadm init --config` does.
   */
  const checkKubeadmDocs = (
    file: string,
    docs: readonly Record<string, unknown>[],
    inPayload: ReadonlyMap<string, string> | undefined,
  ) => {
    const kubeadm = docs.filter((d) => KUBEADM_GROUP.test(str(d.apiVersion)));
    for (const obj of kubeadm.filter((d) => d.kind === "JoinConfiguration")) {
      kubeadmConfigs++;
      const object = `JoinConfiguration (${str(obj.apiVersion)})`;
      const at = { file, object, check: "kubeadm" };
      let decoded;
      try {
        decoded = decodeJoinConfiguration(obj, file);
      } catch (e) {
        add({ ...at, field: "", message: messageOf(e).replace(`${file}: `, "") });
        continue;
      }
      for (const w of decoded.warnings) {
        add({
          ...at,
          field: (/unknown field "([^"]*)"/.exec(w) ?? [])[1] ?? "",
          message: `${w}: kubeadm join ignores it ('kubeadm config validate' refuses it)`,
        });
      }
      const errs = validateJoinConfig(decoded.config, { joinTime: false });
      for (const e of errs) add({ ...at, field: "", message: e });
      const d = decoded.config.discovery;
      if (errs.length || !d.file || d.bootstrapToken || d.tlsBootstrapToken) continue;
      const onNode = d.file.kubeConfigPath;
      const text = inPayload?.get(onNode);
      if (text === undefined) {
        add({
          ...at,
          field: "discovery.file.kubeConfigPath",
          message:
            `file discovery without tlsBootstrapToken: kubeadm join needs credentials in ${onNode}, which is not in ${
              inPayload ? "the payload" : "the input"
            }`,
        });
        continue;
      }
      let creds = false;
      try {
        creds = checkDiscoveryFile(text).hasCredentials;
      } catch (e) {
        add({
          ...at,
          field: "discovery.file.kubeConfigPath",
          message: `${onNode}: ${messageOf(e)}`,
        });
        continue;
      }
      if (!creds) {
        add({ ...at, field: "discovery.file.kubeConfigPath", message: NO_DISCOVERY_CREDENTIALS });
      }
    }
    const init = kubeadm.filter((d) =>
      d.kind === "InitConfiguration" || d.kind === "ClusterConfiguration"
    );
    if (init.length) {
      kubeadmConfigs++;
      try {
        const r = readInitConfiguration(init, file);
        for (const w of r.warnings.filter((x) => x.startsWith("strict decoding error"))) {
          add({
            file,
            object: "InitConfiguration",
            field: (/unknown field "([^"]*)"/.exec(w) ?? [])[1] ?? "",
            check: "kubeadm",
            message: `${w}: kubeadm init ignores it ('kubeadm config validate' refuses it)`,
          });
        }
      } catch (e) {
        add({
          file,
          object: "InitConfiguration",
          field: "",
          check: "kubeadm",
          message: messageOf(e).replace(`${file}: `, ""),
        });
      }
    }
  };

  /** One file (loose, or inside a payload: then `inPayload` maps node paths to texts). */
  const examine = async (f: DoctorFile, inPayload?: ReadonlyMap<string, string>) => {
    // A payload entry that is no artefact (a script, a placeholder) is passed over, counted; one
    // whose path says it holds an artefact (YAML, JSON, kubeconfig, PEM) must read as one.
    const skip = (s: Skipped) => {
      if (inPayload && !isArtefactPath(f.name)) payloadOtherFiles++;
      else skipped.push(s);
    };
    const payload = inPayload ? undefined : payloadFiles(f.text);
    if (payload) {
      payloads++;
      for (const p of payload.problems) {
        add({
          file: f.name,
          object: `${payload.format} payload`,
          field: p.path,
          check: "payload",
          message: p.reason,
        });
      }
      const byPath = new Map(payload.files.map((e) => [e.path, e.text]));
      for (const e of payload.files) {
        await examine({ name: `${f.name}:${e.path}`, text: e.text, bytes: e.bytes }, byPath);
      }
      return;
    }
    const pem = looksLikePem(f.text);
    if (pem) {
      let list: Cert[];
      try {
        list = certsOfPem(f.text);
      } catch (e) {
        skip({ file: f.name, reason: (e as Error).message });
        return;
      }
      addCerts(f.name, undefined, list);
      return; // keys, CSRs: nothing to check
    }
    if (f.bytes[0] === 0x30 && f.bytes.some((b) => b === 0)) {
      try {
        const c = parseCertificate(f.bytes);
        addCerts(f.name, undefined, [c]);
      } catch (e) {
        skip({
          file: f.name,
          reason: `binary, not a DER certificate: ${(e as Error).message}`,
        });
      }
      return;
    }
    const words = joinWords(f.text);
    if (words) {
      readJoinCommand(f.name, words);
      return;
    }
    let docs: Record<string, unknown>[];
    try {
      docs = parseManifests(f.text, f.name) as Record<string, unknown>[];
    } catch (e) {
      skip({ file: f.name, reason: (e as Error).message.replace(`${f.name}: `, "") });
      return;
    }
    if (docs.length === 0) {
      skip({ file: f.name, reason: "no objects" });
      return;
    }
    for (const obj of docs) {
      objects++;
      const apiVersion = str(obj.apiVersion);
      const kind = str(obj.kind);
      if (kind === "Config" && (obj.clusters !== undefined || obj.users !== undefined)) {
        readKubeconfig(f.name, obj);
        continue;
      }
      if (KUBEADM_GROUP.test(apiVersion)) {
        if (kind === "JoinConfiguration") readJoinConfiguration(f.name, obj);
        if (kind === "InitConfiguration") readInitTokens(f.name, obj);
        continue;
      }
      if (apiVersion === "" || kind === "") {
        skip({ file: f.name, reason: `${describeObject(obj)}: no apiVersion and kind` });
        continue;
      }
      const object = describeObject(obj);
      const violations = await validateObject(obj);
      if (violations === undefined) unvalidated.add(`${apiVersion}/${kind}`);
      else {
        validated++;
        for (const v of violations) {
          add({ file: f.name, object, field: v.field, check: "schema", message: v.message });
        }
      }
      if (kind === "Secret" && obj.type === SECRET_TYPE) {
        try {
          secrets.push({ file: f.name, object, value: decodeSecret(obj, f.name) });
        } catch (e) {
          add({
            file: f.name,
            object,
            field: "data",
            check: "token",
            message: (e as Error).message,
          });
        }
      } else if (kind === "ConfigMap") {
        const meta = isObject(obj.metadata) ? obj.metadata : {};
        if (
          meta.name === CLUSTER_INFO_NAME &&
          (meta.namespace === CLUSTER_INFO_NAMESPACE || meta.namespace === undefined) &&
          isObject(obj.data)
        ) {
          const data: Record<string, string> = {};
          for (const [k, v] of Object.entries(obj.data)) if (typeof v === "string") data[k] = v;
          clusterInfos.push({ file: f.name, object, value: data });
        }
      } else if (kind === "ClusterRoleBinding" || kind === "RoleBinding") {
        bindings.push({ file: f.name, object, value: obj });
      } else if (kind === "CertificateSigningRequest" && isObject(obj.status)) {
        // An issued certificate: status.certificate (base64 PEM).
        embeddedCerts(f.name, object, "status.certificate", obj.status.certificate);
      }
      if (kind === "Secret" && isKubeadmCerts(obj)) {
        // upload-certs output: every value is AES-GCM ciphertext (nonce, data, tag) or empty;
        // without the certificate key only its shape can be checked, not parsed as PEM.
        kubeadmCertsSecrets++;
        const data = isObject(obj.data) ? obj.data : {};
        for (const [key, value] of Object.entries(data)) {
          const raw = typeof value === "string" ? decodeGoBase64(value) : undefined;
          const why = raw === undefined
            ? "not valid base64"
            : raw.length > 0 && raw.length < GCM_NONCE_SIZE + 16
            ? `${raw.length} bytes: too short for AES-GCM (a ${GCM_NONCE_SIZE}-byte nonce and a 16-byte tag)`
            : undefined;
          if (why) {
            add({
              file: f.name,
              object,
              field: `data.${key}`,
              check: "upload-certs",
              message: why,
            });
          }
        }
      } else if (kind === "Secret" && isObject(obj.data)) {
        for (const key of ["ca.crt", "tls.crt"]) {
          embeddedCerts(f.name, object, `data.${key}`, obj.data[key]);
        }
      }
    }
    checkKubeadmDocs(f.name, docs, inPayload);
  };

  for (const f of files) await examine(f);

  // --- cluster-info: its CA and signatures -------------------------------------------------
  const clusterInfo = clusterInfos[clusterInfos.length - 1];
  let clusterCa: Uint8Array[] = [];
  let clusterServer = "";
  if (clusterInfos.length > 1) {
    for (const ci of clusterInfos.slice(0, -1)) {
      add({
        file: ci.file,
        object: ci.object,
        field: "metadata.name",
        check: "config",
        message: `more than one cluster-info; the one in ${clusterInfo!.file} is used`,
      });
    }
  }
  if (clusterInfo) {
    const kc = clusterInfo.value[KUBECONFIG_KEY];
    const at = { file: clusterInfo.file, object: clusterInfo.object };
    if (kc === undefined) {
      add({ ...at, field: `data.${KUBECONFIG_KEY}`, check: "config", message: "missing" });
    } else {
      try {
        const parsed = parseManifests(kc, "cluster-info kubeconfig")[0] ?? {};
        const clusters = Array.isArray(parsed.clusters) ? parsed.clusters : [];
        const c0 = isObject(clusters[0]) && isObject(clusters[0].cluster)
          ? clusters[0].cluster
          : {};
        clusterServer = str(c0.server);
        const raw = decodeB64(c0["certificate-authority-data"]);
        if (!raw) throw new Error("no certificate-authority-data");
        const list = certsOfBytes(raw);
        clusterCa = list.map((c) => c.der);
        addCerts(at.file, `${at.object} data.kubeconfig`, list);
      } catch (e) {
        add({
          ...at,
          field: `data.${KUBECONFIG_KEY}`,
          check: "config",
          message: `the kubeconfig's cluster CA: ${(e as Error).message}`,
        });
      }
      const decoded = secrets.map((s) => s.value);
      const { tokens: signing } = selectSigningTokens(decoded, now);
      const expected = new Map(signing.map((t) => [t.id, t.secret]));
      for (const [key, value] of Object.entries(clusterInfo.value)) {
        if (!key.startsWith(JWS_KEY_PREFIX)) continue;
        const id = key.slice(JWS_KEY_PREFIX.length);
        const secret = expected.get(id);
        if (secret === undefined) {
          add({
            ...at,
            field: `data.${key}`,
            check: "signature",
            message:
              `no Secret ${TOKEN_NAMESPACE}/${SECRET_PREFIX}${id} that signs (missing, expired or without usage-bootstrap-signing): the bootstrapsigner would remove it`,
          });
        } else if (!detachedTokenIsValid(value, kc, id, secret)) {
          add({
            ...at,
            field: `data.${key}`,
            check: "signature",
            message: `the JWS does not verify with token ${id}: discovery with it fails`,
          });
        }
      }
      for (const t of signing) {
        if (clusterInfo.value[JWS_KEY_PREFIX + t.id] === undefined) {
          const s = secrets.find((x) => x.value.name === SECRET_PREFIX + t.id)!;
          add({
            file: clusterInfo.file,
            object: clusterInfo.object,
            field: `data.${JWS_KEY_PREFIX}${t.id}`,
            check: "signature",
            message: `missing: ${s.object} (${s.file}) signs, so the bootstrapsigner would add it`,
          });
        }
      }
    }
  }

  // --- token references ------------------------------------------------------------------------
  const secretList = secrets.map((s) => s.value);
  const secretByName = new Map<string, Located<DecodedSecret>>();
  for (const s of secrets) {
    if (s.value.namespace === TOKEN_NAMESPACE || s.value.namespace === "") {
      secretByName.set(s.value.name, s);
    }
  }
  for (const ref of tokenRefs) {
    const at = { file: ref.file, object: ref.object, field: ref.field };
    const parsed = tokenFromString(ref.token);
    if (!parsed) {
      add({ ...at, check: "token", message: "not a bootstrap token ([a-z0-9]{6}.[a-z0-9]{16})" });
      continue;
    }
    const name = SECRET_PREFIX + parsed.id;
    const secret = secretByName.get(name);
    if (!secret) {
      add({
        ...at,
        check: "token",
        message: `token ${parsed.id}: no Secret ${TOKEN_NAMESPACE}/${name} in the input`,
      });
      continue;
    }
    if (ref.groups) {
      const have = getData(secret.value, KEYS.extraGroups).split(",").filter((g) => g !== "");
      const want = [...new Set(ref.groups)].sort();
      if ([...new Set(have)].sort().join(",") !== want.join(",")) {
        add({
          ...at,
          field: at.field.replace(/\.token$/, ".groups"),
          check: "token",
          message: `token ${parsed.id}: ${secret.object} has auth-extra-groups ${
            JSON.stringify(have.join(","))
          }, the configuration declares ${JSON.stringify(want.join(","))} (${secret.file})`,
        });
      }
    }
    for (const need of ref.needs) {
      if (need === "authentication") {
        const r = authenticateBootstrapToken(ref.token, secretList, now);
        if (!r.authenticated) {
          add({
            ...at,
            check: "token",
            message: `token ${parsed.id}: ${r.reason} (${secret.file})`,
          });
          break; // one finding per reference
        }
        continue;
      }
      const v = secret.value;
      const why = getData(v, KEYS.secret) !== parsed.secret
        ? `${secret.object} has a different token-secret`
        : getExpiration(v, now).expired
        ? `${secret.object} has expired (expiration ${getData(v, KEYS.expiration)})`
        : getData(v, KEYS.usageSigning) !== "true"
        ? `${secret.object} not marked ${KEYS.usageSigning}=true: discovery cannot verify cluster-info`
        : !clusterInfo
        ? "no kube-public/cluster-info ConfigMap in the input to discover with"
        : undefined;
      if (why) {
        add({ ...at, check: "token", message: `token ${parsed.id}: ${why} (${secret.file})` });
      }
    }
  }

  // --- pins ------------------------------------------------------------------------------------
  const caCerts = certs.filter((c) => c.cert.basicConstraints?.isCA).map((c) => c.cert);
  const pinTarget = clusterCa.length ? clusterCa : caCerts.map((c) => c.der);
  for (const ref of pinRefs) {
    const at = { file: ref.file, object: ref.object, field: ref.field };
    if (ref.pins.length === 0) {
      // A JoinConfiguration's missing pins are ValidateJoinConfiguration's to report (kubeadm's text).
      if (!ref.unsafe && !ref.object.startsWith("JoinConfiguration")) {
        add({
          ...at,
          check: "pin",
          message:
            "no CA pin and no unsafe skip of CA verification: kubeadm join refuses token discovery without one",
        });
      }
      continue;
    }
    const set = new PinSet();
    try {
      set.allow(...ref.pins);
    } catch (e) {
      add({ ...at, check: "pin", message: (e as Error).message });
      continue;
    }
    if (pinTarget.length === 0) {
      add({
        ...at,
        check: "pin",
        message: "no cluster-info or CA certificate in the input to check the pins against",
      });
      continue;
    }
    try {
      set.checkAny(pinTarget);
    } catch (e) {
      add({
        ...at,
        check: "pin",
        message: `cluster CA found in cluster-info ConfigMap is invalid: ${(e as Error).message}`,
      });
    }
  }

  // --- kubeconfigs agree with cluster-info -----------------------------------------------------
  if (clusterInfo && clusterCa.length) {
    const key = (d: Uint8Array) => Array.from(d).join(",");
    const known = new Set(clusterCa.map(key));
    kubeconfigs.forEach((k) => {
      if (k.caDers.length && !k.caDers.some((d) => known.has(key(d)))) {
        add({
          file: k.file,
          object: k.object,
          field: "clusters.cluster.certificate-authority-data",
          check: "config",
          message: `none of its CA certificates is the CA in cluster-info (${clusterInfo.file})`,
        });
      }
      if (
        k.server !== "" && clusterServer !== "" && k.server !== clusterServer && k.caDers.length
      ) {
        add({
          file: k.file,
          object: k.object,
          field: "clusters.cluster.server",
          check: "config",
          message: `server ${k.server} is not cluster-info's ${clusterServer}`,
        });
      }
    });
  }

  // --- RBAC --------------------------------------------------------------------------------------
  if (secrets.length) checkRbac(secrets, bindings, clusterInfo, now, add);

  // --- certificates ------------------------------------------------------------------------------
  const roots = dedupe(caCerts);
  for (const item of certs) {
    const c = item.cert;
    const at = { file: item.file, object: item.object };
    if (now < c.notBefore) {
      add({
        ...at,
        field: "notBefore",
        check: "certificate",
        message: `not valid before ${formatRfc3339(c.notBefore)}`,
      });
    } else if (now > c.notAfter) {
      add({
        ...at,
        field: "notAfter",
        check: "certificate",
        message: `expired at ${formatRfc3339(c.notAfter)}`,
      });
    }
    if (roots.length === 0) continue;
    // Judge the chain inside the leaf's lifetime, so an expiry is reported once, above.
    const t = new Date(
      Math.min(Math.max(now.getTime(), c.notBefore.getTime()), c.notAfter.getTime()),
    );
    const r = verify(c, { roots, intermediates: item.rest, currentTime: t, keyUsages: ["Any"] });
    if (!r.ok) {
      add({
        ...at,
        field: "issuer",
        check: "certificate",
        message: `does not chain to a CA in the input: ${r.error}`,
      });
    }
  }

  // --- kubeadm PKI trees: each certificate against its own CA, keys, subjects, kubeconfigs -------
  const trees = findPkiTrees(files.map((f) => f.name));
  for (const t of trees) {
    const rel = new Map<string, Uint8Array>();
    for (const f of files) {
      if (f.name.startsWith(t.root)) rel.set(f.name.slice(t.root.length), f.bytes);
    }
    const found = checkPkiTree(rel, {
      now,
      pkiPrefix: t.pki.slice(t.root.length),
      ...(opts.pkiSpec ? { spec: opts.pkiSpec } : {}),
    });
    for (const p of found) {
      add({
        file: t.root + p.file,
        object: "kubeadm PKI",
        field: p.rule,
        check: "pki",
        message: p.message,
      });
    }
  }

  const order = (f: Finding) => [f.file, f.object, f.field];
  findings.sort((a, b) => {
    const x = order(a), y = order(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  });
  return {
    files: files.length,
    payloads,
    kubeadmConfigs,
    kubeadmCertsSecrets,
    payloadOtherFiles,
    objects,
    tokenReferences: tokenRefs.length,
    tokenSecrets: secrets.length,
    certificates: certs.length,
    validated,
    unvalidatedKinds: [...unvalidated].sort(),
    findings,
    skipped,
    ...(trees.length ? { pkiTrees: trees.length } : {}),
  };
}

/** `kube-system/kubeadm-certs`: upload-certs' encrypted Secret. */
function isKubeadmCerts(obj: Record<string, unknown>): boolean {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  return meta.name === KUBEADM_CERTS_SECRET &&
    (meta.namespace === TOKEN_NAMESPACE || meta.namespace === undefined);
}

function dedupe(list: readonly Cert[]): Cert[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const k = Array.from(c.der.subarray(0, 64)).join(",") + c.der.length;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

interface Subject {
  kind: string;
  name: string;
}

function subjectsOf(binding: Record<string, unknown>): Subject[] {
  const list = Array.isArray(binding.subjects) ? binding.subjects : [];
  return list.filter(isObject).map((s) => ({ kind: str(s.kind), name: str(s.name) }));
}

function roleRefOf(binding: Record<string, unknown>): { kind: string; name: string } {
  const r = isObject(binding.roleRef) ? binding.roleRef : {};
  return { kind: str(r.kind), name: str(r.name) };
}

/**
 * The bindings each authentication token needs, as kubeadm creates them:
 * its user or one of its groups bound to ClusterRole
 * `system:node-bootstrapper` (create CSRs) and to the `nodeclient`
 * auto-approval ClusterRole; and, with a cluster-info, anonymous `get` on it.
 * Tokens with the same groups are reported once.
 */
function checkRbac(
  secrets: readonly Located<DecodedSecret>[],
  bindings: readonly Located<Record<string, unknown>>[],
  clusterInfo: Located<Record<string, string>> | undefined,
  now: Date,
  add: (f: Finding) => void,
): void {
  const clusterBindings = bindings.filter((b) => b.value.kind === "ClusterRoleBinding");
  const boundTo = (role: string) => {
    const users = new Set<string>();
    const groups = new Set<string>();
    for (const b of clusterBindings) {
      const ref = roleRefOf(b.value);
      if (ref.kind !== "ClusterRole" || ref.name !== role) continue;
      for (const s of subjectsOf(b.value)) {
        if (s.kind === "Group") groups.add(s.name);
        if (s.kind === "User") users.add(s.name);
      }
    }
    return { users, groups };
  };
  const needed = [
    { role: RBAC_NAMES.nodeBootstrapper, why: "post CSRs", binding: RBAC_NAMES.kubeletBootstrap },
    {
      role: RBAC_NAMES.nodeClient,
      why: "have its client CSRs auto-approved",
      binding: RBAC_NAMES.autoApproveBootstrap,
    },
  ].map((n) => ({ ...n, ...boundTo(n.role) }));
  const reported = new Map<string, { finding: Finding; count: number }>();
  for (const s of secrets) {
    const v = s.value;
    if (v.namespace !== TOKEN_NAMESPACE && v.namespace !== "") continue;
    if (getData(v, KEYS.usageAuthentication) !== "true" || getExpiration(v, now).expired) continue;
    let groups: string[];
    try {
      groups = getGroups(v);
    } catch (e) {
      add({
        file: s.file,
        object: s.object,
        field: `data.${KEYS.extraGroups}`,
        check: "token",
        message: (e as Error).message,
      });
      continue;
    }
    const user = BOOTSTRAP_USER_PREFIX + getData(v, KEYS.id);
    for (const n of needed) {
      if (n.users.has(user) || groups.some((g) => n.groups.has(g))) continue;
      const key = `${n.role}\0${groups.join(",")}`;
      const seen = reported.get(key);
      if (seen) {
        seen.count++;
        continue;
      }
      const finding: Finding = {
        file: s.file,
        object: s.object,
        field: `data.${KEYS.extraGroups}`,
        check: "rbac",
        message: `none of its groups (${
          groups.join(", ")
        }) is bound to ClusterRole ${n.role}: the node cannot ${n.why} (kubeadm's ClusterRoleBinding ${n.binding})`,
      };
      reported.set(key, { finding, count: 1 });
    }
  }
  for (const { finding, count } of reported.values()) {
    if (count > 1) finding.object += ` (and ${count - 1} more with the same groups)`;
    add(finding);
  }
  if (clusterInfo) {
    const ok = bindings.some((b) => {
      const meta = isObject(b.value.metadata) ? b.value.metadata : {};
      const ref = roleRefOf(b.value);
      return b.value.kind === "RoleBinding" && meta.namespace === CLUSTER_INFO_NAMESPACE &&
        ref.name === RBAC_NAMES.clusterInfo &&
        subjectsOf(b.value).some((s) => s.kind === "User" && s.name === "system:anonymous");
    });
    if (!ok) {
      add({
        file: clusterInfo.file,
        object: clusterInfo.object,
        field: "metadata.name",
        check: "rbac",
        message:
          `no RoleBinding ${CLUSTER_INFO_NAMESPACE}/${RBAC_NAMES.clusterInfo} for system:anonymous: joining nodes cannot read it`,
      });
    }
  }
}
