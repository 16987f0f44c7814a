/**
 * `joinkit certs assemble`: the signed certificates of an external CA put
 * into the generate-csr tree and its kubeconfigs, checked as kubeadm's
 * external-CA detection checks them (external-CA mode, step 3).
 *
 * @module
 */

import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import type { CaName } from "../../lib/phases/certs.ts";
import type { SignedInput } from "../../lib/phases/external_ca.ts";
import { type Command, EXIT_CODES } from "../_command.ts";
import { flagBool, flagSet, flagString, requireOutDir } from "../_flags.ts";
import { ensureDir, readInput, readInputs, writeFilesAtomic } from "../_io.ts";
import { specForNode } from "../../lib/phases/certlist.ts";
import { nodeFlags, readPkiConfig, readTree, treePaths } from "./_pki_config.ts";

const FLAGS = flagSet("certs assemble", [
  ["out-dir", "the certs generate-csr directory (pki/ and the kubeconfigs)"],
  ["config", "the kubeadm configuration: node name, servers, external etcd"],
  ["node-name", "override nodeRegistration.name"],
  [
    "node",
    "NAME=ADDRESS: DIR is this node's directory of a several-node generate-csr\n(overrides the file's name and advertise address)",
  ],
  ["ca", "the cluster CA certificate (else DIR/pki/ca.crt); copied to DIR/pki"],
  ["front-proxy-ca", "the front-proxy CA certificate (else DIR/pki/front-proxy-ca.crt)"],
  ["etcd-ca", "the etcd CA certificate (else DIR/pki/etcd/ca.crt)"],
  ["force", "replace a different certificate already in DIR/pki"],
]);

export const command: Command = {
  name: "certs assemble",
  options: FLAGS.options,
  help: `Put an external CA's signed certificates into the tree and its kubeconfigs.

External-CA mode, step 3 of 3 (see 'joinkit certs generate-csr'). DIR is the
generate-csr directory; SIGNED... are the files or directories holding the
signed certificates (default: DIR itself). The certificates may have any file
names: each is matched to the key it was issued for (pki/apiserver.key,
admin.conf's client key, ...). The CA certificates (no keys) come from
--ca/--front-proxy-ca/--etcd-ca or DIR/pki.

Then DIR is what kubeadm's external-CA mode expects, checked as kubeadm checks
it (UsingExternalCA, UsingExternalFrontProxyCA, UsingExternalEtcdCA,
ValidateKubeconfigsForExternalCA) and more strictly -- refused, one line,
nothing written (exit codes below), when:
  - a CA key is in DIR/pki (ca.key, front-proxy-ca.key, etcd/ca.key): the
    point of the mode is that it is not on this machine;
  - a CA certificate is missing or not a CA;
  - a key has no signed certificate ("failure loading certificate for API
    server: ... missing"), or a signed certificate matches no key;
  - a certificate does not chain to its CA or is outside its lifetime
    (kubeadm's "certificate API server is not signed by corresponding CA:
    x509: ..."), or does not match its key;
  - a certificate has another subject than kubeadm's, lacks kubeadm's
    extended key usages (when it has the extension) or a SAN its CSR asks for;
  - a kubeconfig (all five, super-admin.conf included) is missing, or its
    client certificate is wrong in any of these ways;
  - pki/sa.key or pki/sa.pub is missing or they do not match.
With etcd.external in --config (or no etcd key, CA or certificate at all),
the etcd certificates are left out.
It writes pki/<name>.crt (0644) for every leaf, the CA certificates given by
flag, and each kubeconfig with certificate-authority-data (ca.crt) and
client-certificate-data (0600); kubeconfigs keep everything else. Run again,
it writes nothing. 'kubeadm init phase certs all' then says "Using existing"
for every file, and 'kubeadm init' runs in external-CA mode.

Several control-plane nodes: run it on each node directory of a several-node
'certs generate-csr' with that node's signed certificates (sign-csr's
--out-dir/<node>), and with --config give the node as --node NAME=ADDRESS so
that its kubeconfigs' servers and kubelet.conf's user are judged as its own.

Usage:
  joinkit certs assemble --out-dir DIR [--config FILE] [--ca ca.crt] [SIGNED...]
  joinkit certs assemble --out-dir HA/NAME --config FILE --node NAME=ADDRESS
    [--ca ca.crt ...] SIGNED/NAME

${FLAGS.help}
Lifetimes are judged at the global --now (default: the system time).

${EXIT_CODES}
  (3: a check above said no: a CA key here, a CA that is not a CA, a
  certificate that does not chain, is outside its lifetime, has another
  subject, usages or fewer SANs, or is not its key's, sa.pub not sa.key's;
  1: a file missing or unreadable, a signed certificate that matches no key,
  SIGNED given but holding no certificate; 2: a bad flag, --node-name or
  --node without --config)

Examples:
  joinkit certs assemble --out-dir /srv/cp-1 signed/
  joinkit certs assemble --out-dir /srv/cp-1 --config kubeadm.yaml --ca ca.crt \\
    --front-proxy-ca front-proxy-ca.crt --etcd-ca etcd-ca.crt signed/
`,
  async run(ctx) {
    const outDir = requireOutDir(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    const node = nodeFlags(ctx);
    if (node.length > 1) throw new UsageError("--node given more than once: DIR is one node's");
    const nameFlag = flagString(ctx.flags, "node-name");
    if (node.length && nameFlag !== undefined) {
      throw new UsageError("--node and --node-name both name the node: give one");
    }
    if (flagString(ctx.flags, "config") === undefined) {
      if (nameFlag !== undefined) {
        throw new UsageError("--node-name overrides --config's name: give --config");
      }
      if (node.length) throw new UsageError("--node overrides --config's node: give --config");
    }
    let spec = await readPkiConfig(ctx, false);
    // One node directory of a several-node generate-csr: its name and address, the file's rest.
    if (spec && node[0]) spec = specForNode(spec, node[0].name, node[0].advertiseAddress);
    const { assembleExternalCa } = await import("../../lib/phases/external_ca.ts");
    const existing = readTree(outDir, treePaths());
    const signed: SignedInput[] = readInputs(ctx.args.length ? ctx.args : [outDir]).map((i) => ({
      source: i.name,
      text: i.text,
    }));
    // SIGNED given but holding no certificate: nothing to assemble (a wrong path, an empty copy).
    if (ctx.args.length && !signed.some((s) => s.text.includes("-----BEGIN CERTIFICATE-----"))) {
      throw new InputError(`${ctx.args.join(", ")}: no certificate found`);
    }
    const cas: Partial<Record<CaName, SignedInput>> = {};
    for (const name of ["ca", "front-proxy-ca", "etcd-ca"] as CaName[]) {
      const f = flagString(ctx.flags, name);
      if (f !== undefined) {
        const i = readInput(f);
        cas[name] = { source: i.name, text: i.text };
      }
    }
    const r = assembleExternalCa({
      existing,
      signed,
      cas,
      now: ctx.now,
      force,
      ...(spec ? { spec } : {}),
    });
    for (const w of r.warnings) ctx.stderr(w);
    for (const d of new Set(r.files.map((f) => path.dirname(path.join(outDir, f.path))))) {
      ensureDir(d, 0o755, outDir);
    }
    // Certificates and kubeconfigs that exist are replaced only after every check passed.
    writeFilesAtomic(
      r.files.map((f) => ({
        path: path.join(outDir, f.path),
        data: f.data,
        mode: f.mode,
        root: outDir,
      })),
      true,
    );
    for (const l of r.lines) ctx.stderr(l);
    ctx.stderr(`wrote ${r.files.length} file(s) under ${outDir}`);
  },
};
