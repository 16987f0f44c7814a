/**
 * `joinkit certs assemble`: the signed certificates of an external CA put
 * into the generate-csr tree and its kubeconfigs, checked as kubeadm's
 * external-CA detection checks them (external-CA mode, step 3).
 *
 * @module
 */

import * as path from "node:path";
import { CheckError, InputError, UsageError } from "../../lib/base/errors.ts";
import type { CaName } from "../../lib/phases/certs.ts";
import type { SignedInput } from "../../lib/phases/external_ca.ts";
import { type Command, EXIT_CODES } from "../_command.ts";
import { flagBool, flagSet, flagString, requireOutDir } from "../_flags.ts";
import { ensureDir, readInput, readInputs, writeFilesAtomic } from "../_io.ts";
import { type ControlPlanePkiSpec, specForNode } from "../../lib/phases/certlist.ts";
import { nodeFs } from "../_read.ts";
import { nodeFlags, readPkiConfig, readTree, treePaths } from "./_pki_config.ts";

const FLAGS = flagSet("certs assemble", [
  ["out-dir", "the certs generate-csr directory (pki/ and the kubeconfigs)"],
  ["config", "the kubeadm configuration: node name, servers, external etcd"],
  ["node-name", "override nodeRegistration.name"],
  [
    "node",
    "NAME=ADDRESS: a node of a several-node generate-csr (DIR itself or\nDIR/NAME): overrides the file's name and advertise address; repeatable",
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

Several control-plane nodes: when DIR holds the node directories of a
several-node 'certs generate-csr' (DIR/<node>/pki), each node is assembled
from SIGNED/<node> (sign-csr's layout; default: its own directory), every
node checked before anything is written, lines prefixed with '<node>: '.
With --config, give each node's address as --node NAME=ADDRESS (repeatable),
so that its kubeconfigs' servers and kubelet.conf's user are judged as its
own. One node directory can also be assembled alone (DIR=HA/NAME, with
--node NAME=ADDRESS).

Usage:
  joinkit certs assemble --out-dir DIR [--config FILE] [--ca ca.crt] [SIGNED...]
  joinkit certs assemble --out-dir HA [--config FILE --node NAME=ADDRESS...]
    [--ca ca.crt ...] [SIGNED]

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
    const listed = nodeFlags(ctx);
    const nameFlag = flagString(ctx.flags, "node-name");
    if (listed.length && nameFlag !== undefined) {
      throw new UsageError("--node and --node-name both name the node: give one");
    }
    if (flagString(ctx.flags, "config") === undefined) {
      if (nameFlag !== undefined) {
        throw new UsageError("--node-name overrides --config's name: give --config");
      }
      if (listed.length) throw new UsageError("--node overrides --config's node: give --config");
    }
    const spec = await readPkiConfig(ctx, false);
    const { assembleExternalCa } = await import("../../lib/phases/external_ca.ts");
    const cas: Partial<Record<CaName, SignedInput>> = {};
    for (const name of ["ca", "front-proxy-ca", "etcd-ca"] as CaName[]) {
      const f = flagString(ctx.flags, name);
      if (f !== undefined) {
        const i = readInput(f);
        cas[name] = { source: i.name, text: i.text };
      }
    }
    // DIR is one tree, or holds the node directories of a several-node generate-csr.
    const top = readTree(outDir, treePaths());
    const nodes = top.size ? [] : nodeDirectories(outDir);
    const jobs: { prefix: string; existing: Map<string, Uint8Array>; sources: string[] }[] = [];
    const specs = new Map<string, ControlPlanePkiSpec | undefined>();
    if (nodes.length === 0) {
      if (listed.length > 1) throw new UsageError("--node given more than once: DIR is one node's");
      jobs.push({ prefix: "", existing: top, sources: ctx.args.length ? ctx.args : [outDir] });
      // One node directory: its name and address, the file's rest.
      specs.set(
        "",
        spec && listed[0] ? specForNode(spec, listed[0].name, listed[0].advertiseAddress) : spec,
      );
    } else {
      if (nameFlag !== undefined) {
        throw new UsageError(
          `--node-name names one node: ${outDir} holds node directories (give --node NAME=ADDRESS for each)`,
        );
      }
      const byName = new Map(listed.map((n) => [n.name, n]));
      if (spec) {
        const missing = nodes.find((n) => !byName.has(n));
        if (missing !== undefined) {
          throw new UsageError(
            `--config with node directories: give --node ${missing}=ADDRESS (its advertise address) for ${outDir}/${missing}`,
          );
        }
      }
      const stray = listed.find((n) => !nodes.includes(n.name));
      if (stray) throw new InputError(`${outDir}/${stray.name}: no such node directory (--node)`);
      for (const n of nodes) {
        // Each node's signed certificates: SIGNED/<node> (sign-csr's layout), or its own directory.
        const sources = ctx.args.length
          ? ctx.args.map((a) => path.join(a, n)).filter((d) => nodeFs().existsSync(d))
          : [path.join(outDir, n)];
        if (sources.length === 0) {
          throw new InputError(`${ctx.args.join(", ")}: no directory ${n}/ of signed certificates`);
        }
        jobs.push({
          prefix: `${n}/`,
          existing: readTree(path.join(outDir, n), treePaths()),
          sources,
        });
        const node = byName.get(n);
        specs.set(
          `${n}/`,
          spec && node ? specForNode(spec, node.name, node.advertiseAddress) : undefined,
        );
      }
    }
    // Every tree is checked before anything is written.
    const done = jobs.map(({ prefix, existing, sources }) => {
      const signed: SignedInput[] = readInputs(sources).map((i) => ({
        source: i.name,
        text: i.text,
      }));
      // SIGNED given but holding no certificate: nothing to assemble (a wrong path, an empty copy).
      if (ctx.args.length && !signed.some((s) => s.text.includes("-----BEGIN CERTIFICATE-----"))) {
        throw new InputError(`${sources.join(", ")}: no certificate found`);
      }
      const nodeSpec = specs.get(prefix);
      try {
        const r = assembleExternalCa({
          existing,
          signed,
          cas,
          now: ctx.now,
          force,
          ...(nodeSpec ? { spec: nodeSpec } : {}),
        });
        return { prefix, r };
      } catch (e) {
        // Name the node directory; the class (exit code) stays.
        if (prefix && e instanceof CheckError) throw new CheckError(`${prefix}${e.message}`);
        if (prefix && e instanceof InputError) throw new InputError(`${prefix}${e.message}`);
        throw e;
      }
    });
    const files = done.flatMap(({ prefix, r }) =>
      r.files.map((f) => ({ ...f, path: path.join(outDir, prefix + f.path) }))
    );
    const label = (prefix: string, l: string) => (prefix ? `${prefix.slice(0, -1)}: ${l}` : l);
    for (const { prefix, r } of done) for (const w of r.warnings) ctx.stderr(label(prefix, w));
    for (const d of new Set(files.map((f) => path.dirname(f.path)))) ensureDir(d, 0o755, outDir);
    // Certificates and kubeconfigs that exist are replaced only after every check passed.
    writeFilesAtomic(files.map((f) => ({ ...f, root: outDir })), true);
    for (const { prefix, r } of done) for (const l of r.lines) ctx.stderr(label(prefix, l));
    ctx.stderr(`wrote ${files.length} file(s) under ${outDir}`);
  },
};

/** The subdirectories of `dir` holding a generate-csr tree (`<node>/pki/`), sorted; links are not followed. */
function nodeDirectories(dir: string): string[] {
  const fs = nodeFs();
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return [];
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "pki")))
    .map((e) => e.name)
    .sort();
}
