/**
 * joinkit's one exit-code rule, as the README states it, over every command:
 * a malformed flag value (duration, time, count, format, token, URL, pin) is
 * a usage error, 2; an input file of the wrong kind or that does not parse is
 * bad input, 1; a check that ran and said no is 3. Each refusal is one stderr
 * line and leaves stdout empty, except the reports the checking commands
 * print (marked `report`).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { COMMANDS as TABLE } from "../../commands/_table.ts";
import { runCli, tempDir } from "../_cli.ts";
import { FIXTURE_NOW, FIXTURE_SERVER, FIXTURE_TOKEN, makeFixtures } from "../_fuzz.ts";

const BATCH = Number(process.env.JOINKIT_TEST_BATCH ?? 4);
const NOW = ["--now", FIXTURE_NOW];
const BAD_TOKEN = "ABCDEF.0123456789abcdef";
const OTHER_PIN = "sha256:" + "ab".repeat(32);

const root = tempDir("joinkit-exit-");
const F = await makeFixtures(root.dir);
const garbage = path.join(root.dir, "garbage.txt");
fs.writeFileSync(garbage, "this is not a certificate, a CSR or a manifest\n");
const badYaml = path.join(root.dir, "bad.yaml");
fs.writeFileSync(badYaml, "kind: [unclosed\n");
const out = (n: string) => path.join(root.dir, "out", n);
const kubeadmFile = (name: string, text: string) => {
  const p = path.join(root.dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const JC_NO_DISCOVERY = kubeadmFile(
  "join-no-discovery.yaml",
  "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery: {}\n",
);
const JC_OLD = kubeadmFile(
  "join-old.yaml",
  "apiVersion: kubeadm.k8s.io/v1beta2\nkind: JoinConfiguration\n",
);
const IC_BAD_TOKEN = kubeadmFile(
  "init-bad-token.yaml",
  "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nbootstrapTokens: [{token: ABCDEF.0123456789abcdef}]\n",
);
const IC_UNKNOWN = kubeadmFile(
  "init-v9.yaml",
  "apiVersion: kubeadm.k8s.io/v9\nkind: InitConfiguration\n",
);
/** An existing directory with nothing in it (no CSR, no tree). */
const EMPTY_DIR = path.join(root.dir, "empty");
fs.mkdirSync(EMPTY_DIR);
const JC_TOKEN = ["join-config", "--server", FIXTURE_SERVER, "--token", FIXTURE_TOKEN];
const UC_PKI = "tests/fixtures/upload_certs/pki";
const UC_SECRET = "tests/fixtures/upload_certs/kubeadm-certs.yaml";
const UC_KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";
const NP_JOIN = "tests/fixtures/node_payload/join.yaml";
const NP_NO_PINS = "tests/fixtures/node_payload/join-no-pins.yaml";
const GITOPS_CERT = "tests/fixtures/gitops/controller-2048.crt";
const AGE_RECIPIENT = "age1f7q34mhfnuf7vyp9t57ght97c0mjdchj0lmfsgcx3hwptf7wqd3qmkd2af";

interface Row {
  /** What the row shows. */
  what: string;
  argv: string[];
  code: 1 | 2 | 3;
  /** A check's report on stdout (exit 3 of the checking commands). */
  report?: boolean;
}

const ROWS: Row[] = [
  // token generate
  { what: "count", argv: ["token", "generate", "--count", "x"], code: 2 },
  { what: "format", argv: ["token", "generate", "-o", "xml"], code: 2 },
  // token create
  { what: "duration", argv: ["token", "create", "--ttl", "1d"], code: 2 },
  { what: "time", argv: ["token", "create", "--expires", "tomorrow"], code: 2 },
  { what: "count", argv: ["token", "create", "--count", "0"], code: 2 },
  { what: "format", argv: ["token", "create", "-o", "xml"], code: 2 },
  { what: "token", argv: ["token", "create", BAD_TOKEN], code: 2 },
  { what: "groups", argv: ["token", "create", "--groups", "foo"], code: 2 },
  { what: "time (global --now)", argv: ["token", "create", "--now", "soon"], code: 2 },
  // token list
  { what: "format", argv: ["token", "list", F.secrets, "-o", "xml"], code: 2 },
  { what: "no parse", argv: ["token", "list", badYaml], code: 1 },
  // token check
  {
    what: "format",
    argv: ["token", "check", FIXTURE_TOKEN, "--secrets", F.secrets, "-o", "x"],
    code: 2,
  },
  { what: "no parse", argv: ["token", "check", FIXTURE_TOKEN, "--secrets", badYaml], code: 1 },
  {
    what: "check",
    argv: ["token", "check", "zzzzzz.0123456789abcdef", "--secrets", F.secrets, ...NOW],
    code: 3,
  },
  // token auth-file
  { what: "format", argv: ["token", "auth-file", "-o", "xml"], code: 2 },
  // ca create
  { what: "duration", argv: ["ca", "create", "--out-dir", out("ca"), "--ttl", "10y"], code: 2 },
  { what: "old name", argv: ["ca", "create", "--out-dir", out("ca"), "--validity", "0"], code: 2 },
  { what: "format", argv: ["ca", "create", "--out-dir", out("ca"), "-o", "xml"], code: 2 },
  { what: "key type", argv: ["ca", "create", "--out-dir", out("ca"), "--key-type", "x"], code: 2 },
  // ca hash
  { what: "format", argv: ["ca", "hash", F.caCrt, "-o", "xml"], code: 2 },
  { what: "wrong kind", argv: ["ca", "hash", garbage], code: 1 },
  // ca pin-check
  {
    what: "pin",
    argv: ["ca", "pin-check", "--discovery-token-ca-cert-hash", "xyz", F.caCrt],
    code: 2,
  },
  {
    what: "format",
    argv: ["ca", "pin-check", "--ca-cert-hash", F.pin, F.caCrt, "-o", "x"],
    code: 2,
  },
  { what: "wrong kind", argv: ["ca", "pin-check", "--ca-cert-hash", F.pin, garbage], code: 1 },
  { what: "check", argv: ["ca", "pin-check", "--ca-cert-hash", OTHER_PIN, F.caCrt], code: 3 },
  // ca rotation-check
  { what: "format", argv: ["ca", "rotation-check", "--ca", F.caCrt, F.caCrt, "-o", "x"], code: 2 },
  { what: "wrong kind", argv: ["ca", "rotation-check", "--ca", garbage, F.caCrt], code: 1 },
  // a leaf given as "the new CA": the CA file does not hold it, so old-only
  {
    what: "check",
    argv: ["ca", "rotation-check", "--ca", F.nodeCrt, F.caCrt],
    code: 3,
    report: true,
  },
  // cluster-info create
  {
    what: "URL",
    argv: ["cluster-info", "create", "--server", "http://10.0.0.1:6443", "--ca", F.caCrt],
    code: 2,
  },
  {
    what: "token",
    argv: ["cluster-info", "create", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "--token", "x"],
    code: 2,
  },
  {
    what: "format",
    argv: ["cluster-info", "create", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "-o", "x"],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["cluster-info", "create", "--server", FIXTURE_SERVER, "--ca", F.secrets],
    code: 1,
  },
  // cluster-info sign
  {
    what: "format",
    argv: ["cluster-info", "sign", F.clusterInfo, "--secrets", F.secrets, "-o", "x"],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["cluster-info", "sign", F.secrets, "--secrets", F.secrets],
    code: 1,
  },
  { what: "no parse", argv: ["cluster-info", "sign", badYaml, "--secrets", F.secrets], code: 1 },
  // cluster-info verify
  {
    what: "token",
    argv: ["cluster-info", "verify", F.clusterInfo, "--token", BAD_TOKEN, "--ca-cert-hash", F.pin],
    code: 2,
  },
  {
    what: "pin",
    argv: [
      "cluster-info",
      "verify",
      F.clusterInfo,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      "x",
    ],
    code: 2,
  },
  {
    what: "no pin",
    argv: ["cluster-info", "verify", F.clusterInfo, "--token", FIXTURE_TOKEN],
    code: 2,
  },
  {
    what: "format",
    argv: [
      "cluster-info",
      "verify",
      F.clusterInfo,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
      "-o",
      "x",
    ],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["cluster-info", "verify", F.secrets, "--token", FIXTURE_TOKEN, "--ca-cert-hash", F.pin],
    code: 1,
  },
  {
    what: "check",
    argv: [
      "cluster-info",
      "verify",
      F.clusterInfo,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      OTHER_PIN,
    ],
    code: 3,
  },
  // kubeconfig bootstrap
  {
    what: "token",
    argv: ["kubeconfig", "bootstrap", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "--token", "x"],
    code: 2,
  },
  {
    what: "URL",
    argv: [
      "kubeconfig",
      "bootstrap",
      "--server",
      "ftp://h:1",
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
    ],
    code: 2,
  },
  {
    what: "format",
    argv: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
      "-o",
      "x",
    ],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: [
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      garbage,
      "--token",
      FIXTURE_TOKEN,
    ],
    code: 1,
  },
  {
    what: "check",
    argv: [
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      F.clusterInfo,
      "--token",
      FIXTURE_TOKEN,
      "--discovery-token-ca-cert-hash",
      OTHER_PIN,
    ],
    code: 3,
  },
  // join-command
  {
    what: "token",
    argv: ["join-command", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "--token", BAD_TOKEN],
    code: 2,
  },
  {
    what: "URL",
    argv: [
      "join-command",
      "--server",
      "http://10.0.0.1:6443",
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
    ],
    code: 2,
  },
  {
    what: "format",
    argv: [
      "join-command",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      F.caCrt,
      "--token",
      FIXTURE_TOKEN,
      "-o",
      "x",
    ],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["join-command", "--server", FIXTURE_SERVER, "--ca", garbage, "--token", FIXTURE_TOKEN],
    code: 1,
  },
  // join-config
  { what: "no certificate key", argv: [...JC_TOKEN, "--ca", F.caCrt, "--control-plane"], code: 2 },
  {
    what: "certificate key length",
    argv: [...JC_TOKEN, "--ca", F.caCrt, "--certificate-key", UC_KEY.slice(2)],
    code: 2,
  },
  {
    what: "certificate key hex",
    argv: [...JC_TOKEN, "--ca", F.caCrt, "--certificate-key", "zz"],
    code: 2,
  },
  { what: "node name", argv: [...JC_TOKEN, "--ca", F.caCrt, "--node", "bad_name"], code: 2 },
  { what: "no pins", argv: JC_TOKEN, code: 2 },
  { what: "api version", argv: [...JC_TOKEN, "--ca", F.caCrt, "--api-version", "v1"], code: 2 },
  { what: "wrong kind", argv: [...JC_TOKEN, "--ca", garbage], code: 1 },
  { what: "old version", argv: ["join-config", JC_OLD], code: 1 },
  { what: "kubeadm refuses", argv: ["join-config", JC_NO_DISCOVERY], code: 3 },
  // rbac
  { what: "format", argv: ["rbac", "-o", "xml"], code: 2 },
  { what: "groups", argv: ["rbac", "--groups", "foo"], code: 2 },
  // csr create
  {
    what: "duration",
    argv: ["csr", "create", "--node", "n1", "--out-dir", out("csr"), "--ttl", "1m"],
    code: 2,
  },
  {
    what: "old name",
    argv: ["csr", "create", "--node", "n1", "--out-dir", out("csr"), "--expiration-seconds", "x"],
    code: 2,
  },
  {
    what: "format",
    argv: ["csr", "create", "--node", "n1", "--out-dir", out("csr"), "-o", "xml"],
    code: 2,
  },
  // csr inspect
  { what: "format", argv: ["csr", "inspect", F.nodeCsr, "-o", "xml"], code: 2 },
  { what: "wrong kind", argv: ["csr", "inspect", garbage], code: 1 },
  {
    what: "check",
    argv: ["csr", "inspect", F.nodeCsr, "--signer-name", "kubernetes.io/kubelet-serving"],
    code: 3,
    report: true,
  },
  // csr approve
  {
    what: "CIDR",
    argv: ["csr", "approve", F.csrObject, "--provider-ip-prefixes", "10.0.0.0/33"],
    code: 2,
  },
  { what: "regex", argv: ["csr", "approve", F.csrObject, "--provider-regex", "a(?=b)"], code: 2 },
  { what: "format", argv: ["csr", "approve", F.csrObject, "-o", "xml"], code: 2 },
  { what: "wrong kind", argv: ["csr", "approve", garbage], code: 1 },
  { what: "policy file", argv: ["csr", "approve", F.csrObject, "--policy", badYaml], code: 1 },
  // a client CSR whose requester no bound group holds: refused, the objects still printed
  { what: "check", argv: ["csr", "approve", F.csrObject, ...NOW], code: 3, report: true },
  // csr sign
  {
    what: "duration",
    argv: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", F.caKey, "--ttl", "1d"],
    code: 2,
  },
  {
    what: "old name",
    argv: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", F.caKey, "--duration", "x"],
    code: 2,
  },
  {
    what: "format",
    argv: ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", F.caKey, "-o", "xml"],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["csr", "sign", garbage, "--ca", F.caCrt, "--ca-key", F.caKey, ...NOW],
    code: 1,
  },
  {
    what: "check",
    argv: [
      "csr",
      "sign",
      F.nodeCsr,
      "--ca",
      F.caCrt,
      "--ca-key",
      F.caKey,
      "--signer-name",
      "kubernetes.io/kubelet-serving",
      ...NOW,
    ],
    code: 3,
  },
  // certs check-expiration
  {
    what: "duration",
    argv: ["certs", "check-expiration", F.caCrt, "--expiring-within", "1d"],
    code: 2,
  },
  { what: "format", argv: ["certs", "check-expiration", F.caCrt, "-o", "xml"], code: 2 },
  { what: "wrong kind", argv: ["certs", "check-expiration", garbage], code: 1 },
  {
    what: "expiring",
    argv: ["certs", "check-expiration", F.caCrt, "--expiring-within", "1000000h", ...NOW],
    code: 3,
    report: true,
  },
  // doctor
  { what: "format", argv: ["doctor", F.kubeconfig, "-o", "xml"], code: 2 },
  { what: "missing file", argv: ["doctor", path.join(root.dir, "absent.yaml")], code: 1 },
  // The bootstrap kubeconfig alone: its token has no Secret.
  { what: "inconsistent", argv: ["doctor", F.kubeconfig, ...NOW], code: 3, report: true },
  // cert inspect
  { what: "format", argv: ["cert", "inspect", F.nodeCrt, "-o", "xml"], code: 2 },
  { what: "wrong kind", argv: ["cert", "inspect", garbage], code: 1 },
  // cert verify
  { what: "time", argv: ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "--at", "soon"], code: 2 },
  { what: "format", argv: ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "-o", "xml"], code: 2 },
  { what: "wrong kind", argv: ["cert", "verify", garbage, "--ca", F.caCrt], code: 1 },
  {
    what: "check",
    argv: ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "--node", "worker-9", ...NOW],
    code: 3,
    report: true,
  },
  // discovery-file
  {
    what: "no pin",
    argv: ["discovery-file", "--cluster-info", F.clusterInfo, "--out", out("df")],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["discovery-file", "--cluster-info", garbage, "--discovery-token-ca-cert-hash", F.pin],
    code: 1,
  },
  {
    what: "check",
    argv: [
      "discovery-file",
      "--cluster-info",
      F.clusterInfo,
      "--discovery-token-ca-cert-hash",
      OTHER_PIN,
      "--out",
      out("df"),
    ],
    code: 3,
  },
  // kubeconfig node
  {
    what: "node name",
    argv: [
      "kubeconfig",
      "node",
      "--node",
      "Worker_1",
      "--ca",
      F.caCrt,
      "--ca-key",
      F.caKey,
      "--server",
      FIXTURE_SERVER,
      "--out-dir",
      out("kn"),
    ],
    code: 2,
  },
  {
    what: "CA key mismatch",
    argv: [
      "kubeconfig",
      "node",
      "--node",
      "worker-1",
      "--ca",
      F.caCrt,
      "--ca-key",
      F.nodeKey,
      "--server",
      FIXTURE_SERVER,
      "--out-dir",
      out("kn"),
    ],
    code: 1,
  },
  {
    what: "check (CA expired)",
    argv: [
      "kubeconfig",
      "node",
      "--node",
      "worker-1",
      "--ca",
      F.caCrt,
      "--ca-key",
      F.caKey,
      "--server",
      FIXTURE_SERVER,
      "--out-dir",
      out("kn"),
      "--now",
      "2100-01-01T00:00:00Z",
    ],
    code: 3,
  },
  // upload-certs, download-certs, certs certificate-key
  {
    what: "certificate key length",
    argv: ["upload-certs", "--pki-dir", UC_PKI, "--certificate-key", "abcd", "--out", out("uc")],
    code: 2,
  },
  {
    what: "missing pki/ file",
    argv: ["upload-certs", "--pki-dir", root.dir, "--certificate-key", UC_KEY, "--out", out("uc")],
    code: 1,
  },
  {
    what: "certificate key not hex",
    argv: ["download-certs", UC_SECRET, "--certificate-key", "g".repeat(64)],
    code: 2,
  },
  { what: "wrong kind", argv: ["download-certs", garbage, "--certificate-key", UC_KEY], code: 1 },
  {
    what: "check (wrong key)",
    argv: ["download-certs", UC_SECRET, "--certificate-key", "0".repeat(64), "--out-dir", out("d")],
    code: 3,
  },
  { what: "argument", argv: ["certs", "certificate-key", "extra"], code: 2 },
  // node-payload
  {
    what: "node name",
    argv: ["node-payload", "--config", NP_JOIN, "--node", "Bad_Name", "--out-dir", out("np")],
    code: 2,
  },
  { what: "format", argv: ["node-payload", "--config", NP_JOIN, "--format", "xml"], code: 2 },
  { what: "wrong kind", argv: ["node-payload", "--config", garbage, "--node", "w-1"], code: 1 },
  {
    what: "check (kubeadm refuses the config)",
    argv: ["node-payload", "--config", NP_NO_PINS, "--node", "w-1", "--out-dir", out("np")],
    code: 3,
  },
  // init (its flags come from the same vocabulary)
  {
    what: "token",
    argv: ["init", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "--token", BAD_TOKEN],
    code: 2,
  },
  {
    what: "duration",
    argv: ["init", "--server", FIXTURE_SERVER, "--ca", F.caCrt, "--ttl", "1d"],
    code: 2,
  },
  { what: "URL", argv: ["init", "--server", "http://10.0.0.1:6443", "--ca", F.caCrt], code: 2 },
  {
    what: "--config mixed",
    argv: ["init", "--config", IC_UNKNOWN, "--ca", F.caCrt, "--ttl", "1h"],
    code: 2,
  },
  { what: "config version", argv: ["init", "--config", IC_UNKNOWN, "--ca", F.caCrt], code: 1 },
  { what: "config token", argv: ["token", "create", "--config", IC_BAD_TOKEN], code: 1 },
  {
    what: "config mixed",
    argv: ["token", "create", "--config", IC_BAD_TOKEN, "--ttl", "1h"],
    code: 2,
  },
  {
    what: "wrong kind",
    argv: ["init", "--server", FIXTURE_SERVER, "--ca", F.secrets, "--token", FIXTURE_TOKEN],
    code: 1,
  },
  // seal (issue 21): flags 2; a controller certificate that is no certificate, expired or
  // not RSA, and an input that does not parse, 1
  { what: "scope", argv: ["seal", "--cert", GITOPS_CERT, "--scope", "x", F.secrets], code: 2 },
  { what: "format", argv: ["seal", "--cert", GITOPS_CERT, "-o", "xml", F.secrets], code: 2 },
  {
    what: "wrong kind",
    argv: ["seal", "--cert", garbage, "--out-dir", out("seal"), F.secrets],
    code: 1,
  },
  {
    what: "expired",
    argv: [
      "seal",
      "--cert",
      "tests/fixtures/gitops/expired.crt",
      "--out-dir",
      out("seal"),
      F.secrets,
    ],
    code: 1,
  },
  { what: "not RSA", argv: ["seal", "--cert", "tests/fixtures/gitops/ec.crt", F.secrets], code: 1 },
  {
    what: "no parse",
    argv: ["seal", "--cert", GITOPS_CERT, "--out-dir", out("seal"), badYaml],
    code: 1,
  },
  // encrypt (issue 21): a malformed recipient or two outputs 2, an input that does not parse 1
  { what: "recipient", argv: ["encrypt", "--age-recipient", "age1xyz", F.secrets], code: 2 },
  {
    what: "two outputs",
    argv: [
      "encrypt",
      "--age-recipient",
      AGE_RECIPIENT,
      "--out",
      out("sops.yaml"),
      "--out-dir",
      out("sops"),
      F.secrets,
    ],
    code: 2,
  },
  {
    what: "no parse",
    argv: ["encrypt", "--age-recipient", AGE_RECIPIENT, "--out-dir", out("sops"), badYaml, ...NOW],
    code: 1,
  },
  // certs generate: a malformed flag value 2; a configuration kubeadm refuses, a CA file that
  // holds no certificate 1
  { what: "format", argv: ["certs", "generate", "--out-dir", out("cg"), "-o", "xml"], code: 2 },
  { what: "node", argv: ["certs", "generate", "--out-dir", out("cg"), "--node", "x"], code: 2 },
  {
    what: "CIDR",
    argv: [
      ...["certs", "generate", "--out-dir", out("cg"), "--service-cidr", "notacidr"],
      ...["--node-name", "cp-1", "--apiserver-advertise-address", "10.0.0.10"],
    ],
    code: 2,
  },
  {
    what: "duration",
    argv: ["certs", "generate", "--out-dir", out("cg"), "--certificate-validity-period", "1y"],
    code: 2,
  },
  {
    what: "config version",
    argv: ["certs", "generate", "--config", IC_UNKNOWN, "--out-dir", out("cg")],
    code: 1,
  },
  {
    what: "wrong kind",
    argv: [
      "certs",
      "generate",
      ...["--node-name", "cp-1", "--apiserver-advertise-address", "10.0.0.10"],
      ...["--ca", garbage, "--encryption-algorithm", "ECDSA-P256", "--out-dir", out("cg")],
    ],
    code: 1,
  },
  // certs generate-csr: a value kubeadm refuses is 2 as a flag (before the missing --out-dir),
  // 1 in the file
  {
    what: "CIDR",
    argv: ["certs", "generate-csr", "--service-cidr", "notacidr", "--node-name", "cp-1"],
    code: 2,
  },
  {
    what: "algorithm",
    argv: ["certs", "generate-csr", "--encryption-algorithm", "RSA-1024", "--out-dir", out("gc")],
    code: 2,
  },
  {
    what: "config version",
    argv: ["certs", "generate-csr", "--config", IC_UNKNOWN, "--out-dir", out("gc")],
    code: 1,
  },
  // certs sign-csr: the duration before the (missing) files; nothing to sign 1
  {
    what: "duration",
    argv: [
      "certs",
      "sign-csr",
      path.join(root.dir, "nothing"),
      ...["--ca", garbage, "--ca-key", garbage, "--out-dir", out("sc")],
      ...["--certificate-validity-period", "xyz"],
    ],
    code: 2,
  },
  {
    what: "no CSR",
    argv: [
      "certs",
      "sign-csr",
      EMPTY_DIR,
      "--ca",
      F.caCrt,
      "--ca-key",
      F.caKey,
      "--out-dir",
      out("sc"),
    ],
    code: 1,
  },
  // certs assemble: 2 a malformed --node-name (before the config is read); 1 no certificate
  // or an unreadable CA; 3 kubeadm's external-CA check says no (a CA that is not a CA)
  {
    what: "node name",
    argv: [
      "certs",
      "assemble",
      "--out-dir",
      EMPTY_DIR,
      "--config",
      IC_UNKNOWN,
      "--node-name",
      "A_B",
    ],
    code: 2,
  },
  { what: "no certificate", argv: ["certs", "assemble", "--out-dir", EMPTY_DIR, garbage], code: 1 },
  {
    what: "wrong kind",
    argv: ["certs", "assemble", "--out-dir", EMPTY_DIR, "--ca", garbage, F.nodeCrt],
    code: 1,
  },
  {
    what: "check",
    argv: ["certs", "assemble", "--out-dir", EMPTY_DIR, "--ca", F.nodeCrt, F.nodeCrt],
    code: 3,
  },
  // certs renew: 2 all mixed with names, a name kubeadm lacks, a malformed --now; 1 nothing to
  // renew, a bad config
  { what: "name", argv: ["certs", "renew", "kubelet.conf", "--out-dir", EMPTY_DIR], code: 2 },
  {
    what: "all mixed",
    argv: ["certs", "renew", "all", "apiserver", "--out-dir", EMPTY_DIR],
    code: 2,
  },
  {
    what: "time (global --now)",
    argv: ["certs", "renew", "all", "--out-dir", EMPTY_DIR, "--now", "soon"],
    code: 2,
  },
  {
    what: "nothing to renew",
    argv: ["certs", "renew", "all", "--out-dir", path.join(root.dir, "nothing")],
    code: 1,
  },
  {
    what: "config version",
    argv: ["certs", "renew", "all", "--out-dir", EMPTY_DIR, "--config", IC_UNKNOWN],
    code: 1,
  },
];

// Every command of the table but completion (which prints no data and reads no file) has
// rows: a new command cannot escape the rule.
const COMMANDS = TABLE.map((e) => e.name).filter((n) => n !== "completion");

function commandOf(argv: readonly string[]): string {
  const two = argv.slice(0, 2).join(" ");
  return COMMANDS.includes(two) ? two : argv[0]!;
}

Deno.test("exit-code table covers every command with each kind of refusal it can make", () => {
  assert.ok(COMMANDS.length > 30 && COMMANDS.includes("certs renew"), "the table was read");
  for (const c of COMMANDS) {
    const codes = new Set(ROWS.filter((r) => commandOf(r.argv) === c).map((r) => r.code));
    assert.ok(codes.has(2), `${c}: no exit-2 row`);
  }
  const checking = [
    "token check",
    "ca pin-check",
    "ca rotation-check",
    "cluster-info verify",
    "csr inspect",
    "csr approve",
    "csr sign",
    "download-certs",
    "node-payload",
    "certs assemble",
  ];
  for (
    const c of [
      ...checking,
      "cert verify",
      "certs check-expiration",
      "doctor",
      "kubeconfig bootstrap",
      "discovery-file",
      "kubeconfig node",
      "join-config",
    ]
  ) {
    assert.ok(COMMANDS.includes(c), `${c}: not in the command table`);
    assert.ok(ROWS.some((r) => commandOf(r.argv) === c && r.code === 3), `${c}: no exit-3 row`);
  }
});

Deno.test("CLI exit codes: 2 malformed flag value, 1 bad input file, 3 a check said no", async () => {
  const failures: string[] = [];
  for (let i = 0; i < ROWS.length; i += BATCH) {
    await Promise.all(
      ROWS.slice(i, i + BATCH).map(async (row) => {
        const r = await runCli(row.argv);
        const label = `${commandOf(row.argv)} (${row.what}): joinkit ${row.argv.join(" ")}`;
        const lines = r.stderr.split("\n").filter((l) => l !== "");
        if (r.code !== row.code) {
          failures.push(`${label}: exit ${r.code}, want ${row.code}: ${r.stderr}`);
        } else if (lines.length !== 1 || !lines[0]!.startsWith("error: ")) {
          failures.push(
            `${label}: want one "error: " line on stderr, got ${JSON.stringify(r.stderr)}`,
          );
        } else if (!row.report && r.stdout !== "") {
          failures.push(`${label}: stdout not empty: ${JSON.stringify(r.stdout.slice(0, 80))}`);
        } else if (row.report && r.stdout === "") {
          failures.push(`${label}: the check's report is missing on stdout`);
        }
      }),
    );
  }
  assert.deepEqual(failures, []);
  // Nothing was written by a refused run.
  assert.equal(fs.existsSync(path.join(root.dir, "out")), false);
});

// A top-level cleanup: Deno runs unload handlers once the tests are done.
globalThis.addEventListener("unload", () => root.cleanup());
