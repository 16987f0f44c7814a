/**
 * `joinkit cluster-info create`: the `kube-public/cluster-info` ConfigMap as
 * kubeadm writes it, signed as the bootstrapsigner controller would sign it.
 *
 * @module
 */

import {
  secretsIn,
  selectSigningTokens,
  signClusterInfoData,
} from "../lib/discovery/bootstrap_signer.ts";
import type { Token as SigningToken } from "../lib/tokens/token.ts";
import { readClusterCa } from "../lib/pki/certsource.ts";
import { clusterInfoConfigMap, KUBECONFIG_KEY } from "../lib/discovery/cluster_info.ts";
import { clusterInfoKubeconfig } from "../lib/discovery/bootstrap_kubeconfig.ts";
import { kubeconfigYaml } from "../lib/k8s/kubeconfig_yaml.ts";
import { parseManifests, renderObjects } from "../lib/k8s/manifest.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagList,
  flagSet,
  flagTokens,
  outputFormat,
  requireServer,
  requireString,
} from "./_flags.ts";
import { readInputs } from "./_io.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("cluster-info create", [
  ["server", "API server, https://HOST:PORT (or HOST:PORT) (required)"],
  [
    "ca",
    "PEM CA certificate or bundle (required; only CERTIFICATE blocks):\nread as client-go reads it (certutil.ParseCertsPEM), the\nfirst certificate must be a CA; embedded re-encoded, so\nexactly what Go loads from the file",
  ],
  ["token", "a signing token, repeatable"],
  "secrets",
  ["output", "yaml (default) or json"],
]);

/** Adds to `tokens` those of the `--secrets` files that sign at `ctx.now`. */
function addTokensFromSecrets(ctx: Context, tokens: SigningToken[]): SigningToken[] {
  const secrets = readInputs(flagList(ctx.flags, "secrets")).flatMap((input) =>
    secretsIn(parseManifests(input.text, input.name), input.name)
  );
  const { tokens: fromSecrets, skipped } = selectSigningTokens(secrets, ctx.now);
  for (const s of skipped) ctx.stderr(`[bootstrap-signer] skipping Secret ${s.name}: ${s.reason}`);
  for (const t of fromSecrets) {
    if (tokens.some((x) => x.id === t.id)) {
      ctx.stderr(`[bootstrap-signer] token ID ${JSON.stringify(t.id)} given twice; the first wins`);
    } else {
      tokens.push(t);
    }
  }
  return tokens;
}

export const command: Command = {
  name: "cluster-info create",
  options: FLAGS.options,
  help: `Render the kube-public/cluster-info ConfigMap with its JWS signatures.

data.kubeconfig is what kubeadm stores: a kubeconfig with one cluster named ""
holding the server and the CA bundle (certificate-authority-data), no users,
no contexts, serialised as client-go writes it. One jws-kubeconfig-<id> key is
added per token the bootstrapsigner controller would sign with: every --token,
and each bootstrap-token Secret in --secrets that is in kube-system (or has no
namespace), named bootstrap-token-<token-id>, has a token-secret,
usage-bootstrap-signing "true" and has not expired at --now. Skipped Secrets are named on stderr with the
reason (never a secret value).

Usage:
  joinkit cluster-info create --server https://HOST:PORT --ca CA.crt [flags]

${FLAGS.help}
Output (-o json): the ConfigMap object, keys sorted, as kubectl prints it.

${EXIT_CODES}

Examples:
  joinkit cluster-info create --server https://10.0.0.1:6443 --ca pki/ca.crt \\
    --token abcdef.0123456789abcdef
  joinkit token create -o yaml > tokens.yaml
  joinkit cluster-info create --server https://10.0.0.1:6443 --ca pki/ca.crt --secrets tokens.yaml
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const server = requireServer(ctx.flags);
    const given: SigningToken[] = flagTokens(ctx.flags);
    const caInput = readInput(requireString(ctx.flags, "ca"));
    const ca = await readClusterCa(caInput.bytes, caInput.name);
    const kubeconfig = kubeconfigYaml(clusterInfoKubeconfig(server.url, ca.pem));
    const tokens = addTokensFromSecrets(ctx, given);
    const signed = signClusterInfoData({ [KUBECONFIG_KEY]: kubeconfig }, tokens);
    if (tokens.length === 0) {
      ctx.stderr("[bootstrap-signer] no signing token: cluster-info has no JWS signature");
    }
    for (const id of signed.added) {
      ctx.stderr(`[bootstrap-signer] signed cluster-info for token ID ${JSON.stringify(id)}`);
    }
    ctx.stdout(renderObjects([clusterInfoConfigMap(signed.data)], format));
  },
};
