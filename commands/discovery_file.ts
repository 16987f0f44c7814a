/**
 * `joinkit discovery-file`: the kubeconfig for `kubeadm join --discovery-file`.
 *
 * @module
 */

import { CheckError, JoinkitError, UsageError } from "../lib/base/errors.ts";
import { findClusterInfo, JWS_KEY_PREFIX, KUBECONFIG_KEY } from "../lib/discovery/cluster_info.ts";
import { pinnedClusterOf } from "../lib/discovery/discovery.ts";
import { checkDiscoveryFile, discoveryFileKubeconfig } from "../lib/discovery/discovery_file.ts";
import { DEFAULT_CLUSTER_NAME, TLS_BOOTSTRAP_USER } from "../lib/discovery/bootstrap_kubeconfig.ts";
import { detachedTokenIsValid } from "../lib/discovery/jws.ts";
import { renderKubeconfig } from "../lib/k8s/kubeconfig_yaml.ts";
import { parseManifests } from "../lib/k8s/manifest.ts";
import { isObject } from "../lib/base/object.ts";
import { parseCertificate } from "../lib/pki/cert_info.ts";
import { parseCertsPem, readClusterCa } from "../lib/pki/certsource.ts";
import { PinSet } from "../lib/pki/pin.ts";
import { tokenString } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { requirePinsOrUnsafe } from "./cluster_info_verify.ts";
import {
  expectArgs,
  flagBool,
  flagOut,
  flagPins,
  flagSet,
  flagString,
  flagToken,
  flagUnsafe,
  givenName,
  outputFormat,
  parseServerFlag,
} from "./_flags.ts";
import { ensureParentDir, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("discovery-file", [
  [
    "cluster-info",
    "take server and CA from this cluster-info ConfigMap (or its\nkubeconfig, or an existing discovery file)",
  ],
  ["server", "instead of --cluster-info: API server, https://HOST:PORT (or HOST:PORT)"],
  ["ca", "instead of --cluster-info: the cluster CA certificate or bundle (PEM)"],
  [
    "discovery-token-ca-cert-hash",
    "sha256:<hex> CA pin, repeatable or comma-separated: the CA must hold a\npinned key (required with --cluster-info)",
  ],
  [
    "discovery-token-unsafe-skip-ca-verification",
    "with --cluster-info: accept its CA without a pin",
  ],
  ["token", "the TLS bootstrap token, written as the file's user (default: no user)"],
  ["cluster-name", `with --token: cluster name (default ${DEFAULT_CLUSTER_NAME})`],
  ["user", `with --token: user name (default ${TLS_BOOTSTRAP_USER})`],
  [
    "out",
    "write here (mode 0600, atomically; missing directories created 0700)\ninstead of stdout",
  ],
  ["force", "overwrite --out if it exists"],
  ["output", "yaml (default) or json: the kubeconfig's serialisation"],
]);

export const command: Command = {
  name: "discovery-file",
  options: FLAGS.options,
  help: `Write the kubeconfig for 'kubeadm join --discovery-file' (file discovery).

The cluster is exactly the one cluster-info holds: its server and its whole CA
bundle, byte for byte. From --cluster-info FILE it is chosen and pin-checked
as 'cluster-info verify' does (the unnamed cluster "", else the current
context's; every cluster's CA must hold a key pinned by
--discovery-token-ca-cert-hash, unless
--discovery-token-unsafe-skip-ca-verification). FILE may be the ConfigMap, a
whole 'joinkit init' stream, its data.kubeconfig, or an existing discovery
file (checked as kubeadm checks one first). With --token and a cluster-info
that carries a jws-kubeconfig-<id> signature for its ID, the signature must
verify. From --server and --ca the CA file is embedded as is, after it loads
as client-go loads it; pins are optional there, and checked when given.

Without --token the file is the cluster-info kubeconfig: one cluster named ""
and no user (kubeadm then needs the TLS bootstrap token from the
JoinConfiguration's discovery.tlsBootstrapToken or --tls-bootstrap-token).
With --token it is the TLS-bootstrap kubeconfig kubeadm builds
(CreateWithToken): cluster "kubernetes", user "tls-bootstrap-token-user",
context <user>@<cluster>, current; kubeadm then uses those credentials, so
the file is a secret (mode 0600). Either is byte-identical to what kubectl
config writes for the same inputs (set-cluster --embed-certs,
set-credentials --token, set-context, use-context). Before it is written the
file is checked as kubeadm's file discovery checks it (ValidateConfigInfo:
a cluster, the cluster choice, clientcmd.Validate) and for what travels to
another host: the CA and credentials embedded, not file paths.

Usage:
  joinkit discovery-file --cluster-info FILE --discovery-token-ca-cert-hash H... [--token T] [flags]
  joinkit discovery-file --server https://HOST:PORT --ca CA.crt [--token T] [flags]

${FLAGS.help}
Output (-o json): the same kubeconfig (apiVersion v1, kind Config) as JSON,
keys sorted; client-go reads either form. -o applies to --out too.

${EXIT_CODES}
A CA that does not hold a pinned key, a signature that does not verify with
--token and a cluster kubeadm would refuse are 3; nothing is written then.

Examples:
  kubectl -n kube-public get cm cluster-info -o yaml > ci.yaml
  joinkit discovery-file --cluster-info ci.yaml \\
    --discovery-token-ca-cert-hash "$(joinkit ca hash pki/ca.crt)" --out discovery.conf
  joinkit discovery-file --server 10.0.0.1:6443 --ca pki/ca.crt --token "$TOKEN" \\
    --out /etc/kubernetes/discovery.conf
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const token = flagToken(ctx.flags);
    const clusterName = flagString(ctx.flags, "cluster-name");
    const user = flagString(ctx.flags, "user");
    if (clusterName === "") throw new UsageError("--cluster-name must not be empty");
    if (user === "") throw new UsageError("--user must not be empty");
    if (token === undefined && (clusterName !== undefined || user !== undefined)) {
      throw new UsageError(
        "--cluster-name and --user go with --token (without a user the cluster stays unnamed, as in cluster-info)",
      );
    }
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const out = flagOut(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    const pins = flagPins(ctx.flags);
    const unsafe = flagUnsafe(ctx.flags);
    const clusterInfoFile = flagString(ctx.flags, "cluster-info");
    const serverFlag = flagString(ctx.flags, "server");
    const caFlag = flagString(ctx.flags, "ca");
    const secret = token === undefined ? undefined : tokenString(token);

    let server: string;
    let caData: Uint8Array;
    let note: string;
    let source: string;
    if (clusterInfoFile !== undefined) {
      if (serverFlag !== undefined || caFlag !== undefined) {
        throw new UsageError("--cluster-info replaces --server and --ca: give one or the other");
      }
      requirePinsOrUnsafe(pins, unsafe);
      const input = readInput(clusterInfoFile);
      const fail = (why: string) => new CheckError(`${input.name}: ${why}`);
      source = input.name;
      const objects = parseManifests(input.text, input.name);
      let kubeconfig: string;
      let what: string;
      if (objects.length > 0 && objects.every((o) => isObject(o) && o.kind === "Config")) {
        // A kubeconfig: cluster-info's data.kubeconfig, or a discovery file to re-check.
        if (objects.length > 1) throw fail("more than one kubeconfig");
        try {
          checkDiscoveryFile(input.text);
        } catch (e) {
          if (e instanceof JoinkitError) throw fail(e.message);
          throw e;
        }
        kubeconfig = input.text;
        what = "kubeconfig";
      } else {
        const info = findClusterInfo(objects, input.name);
        kubeconfig = Object.hasOwn(info.data, KUBECONFIG_KEY) ? info.data[KUBECONFIG_KEY]! : "";
        if (kubeconfig === "") {
          throw fail(
            "there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect",
          );
        }
        what = "cluster-info";
        if (token !== undefined) {
          const sig = info.data[JWS_KEY_PREFIX + token.id];
          if (typeof sig === "string" && sig !== "") {
            if (!detachedTokenIsValid(sig, kubeconfig, token.id, token.secret)) {
              throw fail(
                `the cluster-info's signature for token ID ${
                  JSON.stringify(token.id)
                } does not verify with --token: it is not this cluster's token`,
              );
            }
            what += `, signature for token ID ${JSON.stringify(token.id)} valid`;
          }
        }
      }
      const pinSet = new PinSet();
      pinSet.allow(...pins);
      const r = pinnedClusterOf(kubeconfig, pinSet, fail);
      server = r.chosen.cluster.server;
      caData = r.chosen.cluster.caData;
      if (caData.length === 0) {
        throw fail(`cluster ${JSON.stringify(r.chosen.name)} has no certificate-authority-data`);
      }
      note = `${what}; ${
        r.pinnedIndex >= 0
          ? `CA certificate ${r.pinnedIndex + 1} is pinned`
          : "CA NOT pinned (unsafe)"
      }`;
    } else {
      if (unsafe) {
        throw new UsageError(
          `${
            givenName(ctx.flags, "discovery-token-unsafe-skip-ca-verification")
          } goes with --cluster-info`,
        );
      }
      if (serverFlag === undefined) {
        throw new UsageError("missing required flag --cluster-info (or --server and --ca)");
      }
      server = parseServerFlag(serverFlag).url;
      if (caFlag === undefined) throw new UsageError("missing required flag --ca");
      const ca = readInput(caFlag);
      await readClusterCa(ca.bytes, ca.name); // Go loads it, a CA first, nothing but certificates
      caData = ca.bytes;
      source = ca.name;
      note = `CA ${ca.name}`;
      if (pins.length > 0) {
        const certs = parseCertsPem(caData, parseCertificate);
        const pinSet = new PinSet();
        pinSet.allow(...pins);
        let index: number;
        try {
          index = pinSet.checkAny(certs.map((c) => c.der));
        } catch (e) {
          if (!(e instanceof JoinkitError)) throw e;
          throw new CheckError(`${ca.name}: ${e.message}`);
        }
        note += `; CA certificate ${index + 1} is pinned`;
      }
    }

    const config = discoveryFileKubeconfig({
      server,
      caData,
      ...(secret !== undefined ? { token: secret } : {}),
      ...(clusterName !== undefined ? { clusterName } : {}),
      ...(user !== undefined ? { user } : {}),
    });
    const text = renderKubeconfig(config, format);
    // What kubeadm's file discovery will do with it (an input kubeadm would refuse, e.g. a
    // cluster without a server or, unpinned, a CA that does not parse).
    let check;
    try {
      check = checkDiscoveryFile(text);
    } catch (e) {
      if (!(e instanceof JoinkitError)) throw e;
      throw new CheckError(
        `${source}: kubeadm's file discovery would refuse the result: ${e.message}`,
      );
    }
    if (check.cluster.server !== server || check.hasCredentials !== (secret !== undefined)) {
      throw new Error("discovery file self-check: the file does not say what was asked");
    }
    if (out !== undefined) {
      ensureParentDir(out);
      writeFilesAtomic([{ path: out, data: text, mode: 0o600 }], force);
    }
    ctx.stderr(
      `[discovery-file] ${note}; API server ${JSON.stringify(server)}; ${
        secret === undefined
          ? "no user: the JoinConfiguration must give tlsBootstrapToken"
          : `user ${JSON.stringify(user ?? TLS_BOOTSTRAP_USER)} with the bootstrap token`
      }`,
    );
    if (out === undefined) ctx.stdout(text);
    else ctx.stderr(`wrote ${out} (mode 0600)`);
  },
};
