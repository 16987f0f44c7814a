/**
 * `joinkit certs generate-csr`: the keys and CSRs of `kubeadm certs
 * generate-csr` (external-CA mode, step 1: on the node's machine).
 *
 * @module
 */

import * as path from "node:path";
import { type Command, EXIT_CODES } from "../_command.ts";
import { expectArgs, flagBool, flagSet, requireOutDir } from "../_flags.ts";
import { ensureDir, writeFilesAtomic } from "../_io.ts";
import { UsageError } from "../../lib/base/errors.ts";
import {
  MAX_NODES,
  nodeFlags,
  pkiConfigFlags,
  readNodesFile,
  readPkiSpec,
  readTree,
  treePaths,
} from "./_pki_config.ts";

const FLAGS = flagSet("certs generate-csr", [
  ["out-dir", "where to write pki/ and the kubeconfigs (created 0700 with parents)"],
  ...pkiConfigFlags(false),
  ["force", "replace existing keys, CSRs and kubeconfigs (kubeadm refuses them)"],
]);

export const command: Command = {
  name: "certs generate-csr",
  options: FLAGS.options,
  help: `Write the keys and CSRs for an external CA, as kubeadm certs generate-csr does.

External-CA mode, step 1 of 3 (the CA keys never come to this machine):
  1. joinkit certs generate-csr --config kubeadm.yaml --out-dir DIR   (the node)
  2. joinkit certs sign-csr DIR --ca ca.crt --ca-key ca.key ... --out-dir SIGNED
     (the CA's machine; or any CA: openssl, Vault, ...)
  3. joinkit certs assemble --out-dir DIR SIGNED                       (the node)

DIR/pki/ gets a key (0600) and a CSR (0600) for every certificate of
kubeadm's list that a CA signs: apiserver, apiserver-kubelet-client,
front-proxy-client, etcd/server, etcd/peer, etcd/healthcheck-client,
apiserver-etcd-client (the etcd ones even with etcd.external, as kubeadm).
Each CSR asks for kubeadm's subject (O, CN) and SANs (kubeadm's computation
and order, in an extensionRequest) and nothing else: the CA decides the usages.
DIR/ gets the five kubeconfigs (admin.conf, super-admin.conf, kubelet.conf,
controller-manager.conf, scheduler.conf; 0600) with only their client key
embedded, and a CSR for each (admin.conf.csr, ...). Unlike kubeadm, it also
writes pki/sa.key and pki/sa.pub when absent: kubeadm makes no service-account
key in external-CA mode, and the API server needs one.

As kubeadm, an existing key, CSR or kubeconfig is refused ("file already
exists: key or CSR pki/apiserver"); --force replaces them. CA files are never
written; a CA key in DIR/pki is warned about (kubeadm would sign with it).

Several control-plane nodes (kubeadm's external-CA HA flow runs
generate-csr on each node): --node NAME=ADDRESS (repeatable) and/or a NODES
file (one 'NAME ADDRESS' or 'NAME=ADDRESS' per line; '#' comments), as
'joinkit certs generate' takes them, give DIR/NAME/pki and DIR/NAME/*.conf
for each node: its own keys and CSRs (its name and address in the apiserver,
etcd/server and etcd/peer SANs; its kubelet.conf; its own client keys and
CSRs, as kubeadm makes them on each node) and one service-account pair shared
by all (the one already in a node directory, or a new one). The configuration
gives the rest (--node-name and --apiserver-advertise-address are refused
with a list). Duplicate names or addresses are refused (exit 1). Sign them
all with 'certs sign-csr DIR ...' (it signs each node directory), then run
'certs assemble' and later 'certs renew' on each DIR/NAME.

Progress lines go to stderr; nothing is printed on stdout.

Configuration: --config (kubeadm's file; certificatesDir is ignored: files go
to DIR), or kubeadm's flags for the same values (--node-name and
--apiserver-advertise-address at least), as 'joinkit certs generate' takes
them; as kubeadm, --config cannot be mixed with the value flags (--node-name
may override the file's name). kubeadm's validation applies, with its texts.

Usage:
  joinkit certs generate-csr --config FILE --out-dir DIR [--node-name NAME] [--force]
  joinkit certs generate-csr --node-name NAME --apiserver-advertise-address IP
                             [--control-plane-endpoint HOST[:PORT]] ... --out-dir DIR
  joinkit certs generate-csr --config FILE --out-dir DIR [--node NAME=ADDR...] [NODES]

${FLAGS.help}
${EXIT_CODES}
  (1: a configuration kubeadm refuses, an existing file, duplicate nodes,
  node directories with different sa.key files; 2: no configuration,
  --config mixed with value flags, a malformed flag value -- e.g. a
  --service-cidr kubeadm refuses, named before any file is read; the same
  value in the --config file is 1)

Examples:
  joinkit certs generate-csr --config kubeadm.yaml --out-dir /srv/cp-1
  joinkit certs generate-csr --config kubeadm.yaml --out-dir ha \\
    --node cp-1=10.0.0.11 --node cp-2=10.0.0.12 --node cp-3=10.0.0.13
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "NODES");
    const outDir = requireOutDir(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    // Flag values first (--node included), then the files: the configuration, the NODES file.
    const listed = nodeFlags(ctx);
    const several = listed.length > 0 || ctx.args.length > 0;
    const spec = await readPkiSpec(ctx, several);
    const { generateKeysAndCsrs, generateKeysAndCsrsForNodes } = await import(
      "../../lib/phases/external_ca.ts"
    );
    let made;
    let dirs: string[];
    if (several) {
      const nodes = [...listed, ...(ctx.args[0] !== undefined ? readNodesFile(ctx.args[0]) : [])];
      if (nodes.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
      const existing = new Map(
        nodes.map((n) => [n.name, readTree(path.join(outDir, n.name), treePaths())]),
      );
      made = await generateKeysAndCsrsForNodes({ spec, nodes, existing, force });
      dirs = [...new Set(nodes.map((n) => n.name))];
    } else {
      made = await generateKeysAndCsrs({ spec, existing: readTree(outDir, treePaths()), force });
      dirs = [""];
    }
    for (const w of made.warnings) ctx.stderr(w);
    ensureDir(outDir, 0o700);
    for (const node of dirs) {
      if (node) ensureDir(path.join(outDir, node), 0o700, outDir);
      for (const d of ["pki", "pki/etcd"]) ensureDir(path.join(outDir, node, d), 0o755, outDir);
    }
    writeFilesAtomic(
      made.files.map((f) => ({
        path: path.join(outDir, f.path),
        data: f.data,
        mode: f.mode,
        root: outDir,
      })),
      force,
    );
    for (const l of made.lines) ctx.stderr(l);
    ctx.stderr(`wrote ${made.files.length} file(s) under ${outDir}`);
  },
};
