/**
 * `joinkit token create`: the `bootstrap-token-<id>` Secrets `kubeadm token
 * create` would write, as manifests for `kubectl apply -f -`.
 *
 * @module
 */

import { aggregateErrors } from "../lib/go/aggregate.ts";
import {
  type BootstrapTokenSpec,
  parseTtlFlag,
  tokensToSecrets,
  tokenToSecret,
  validateBootstrapToken,
  withDefaults,
} from "../lib/tokens/bootstrap_token.ts";
import { InputError, UsageError } from "../lib/base/errors.ts";
import { renderObjects } from "../lib/k8s/manifest.ts";
import { readInitConfiguration, readKubeadmDocuments } from "../lib/kubeadm/init_config.ts";
import { readInput } from "./_read.ts";
import { readTokenFile } from "./_secret_input.ts";
import {
  checkProtectedFormat,
  protectionFromFlags,
  protectObjects,
  renderStream,
  SECRET_OUTPUT_HELP,
  type SecretProtection,
} from "./_secret_output.ts";
import {
  generateToken,
  newBootstrapTokenString,
  NODE_BOOTSTRAP_TOKEN_GROUP,
  type Token,
} from "../lib/tokens/token.ts";
import { renderYamlStream, writeYamlStream } from "../lib/tokens/token_yaml.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagInt,
  flagList,
  flagSet,
  flagString,
  flagTime,
  outputFormat,
} from "./_flags.ts";

/** Most Secrets one run may render. */
/** Secrets made and written at a time by the YAML output. */
const YAML_BATCH = 2048;

export const MAX_COUNT = 100_000;

/** A pflag string slice: comma lists, repeatable; `""` is the empty list. */
function sliceFlag(values: string[]): string[] {
  return values.flatMap((v) => (v === "" ? [] : v.split(",")));
}

const FLAGS = flagSet("token create", [
  [
    "ttl",
    "time to live, Go syntax (1s, 2m, 3h; default 24h); 0 = never expires.\nexpiration = --now (or the clock) + ttl, RFC 3339 UTC",
  ],
  "expires",
  ["usages", "signing,authentication (default both); repeatable"],
  [
    "groups",
    `extra groups (default ${NODE_BOOTSTRAP_TOKEN_GROUP});\nneed the authentication usage; must match\nsystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]; repeatable`,
  ],
  "description",
  [
    "count",
    `render N Secrets with fresh tokens (default 1, at most ${MAX_COUNT});\nnot with TOKEN`,
  ],
  "string-data",
  [
    "config",
    "kubeadm InitConfiguration (v1beta4/v1beta3): one Secret per\nbootstrapTokens entry, with its ttl, usages, groups and\ndescription; not with TOKEN or the token flags (kubeadm's rule)",
  ],
  ["output", "yaml (default; a '---' stream) or json (one object, or a v1 List)"],
  [
    "seal-cert",
    "write SealedSecrets for this Sealed Secrets controller\ncertificate instead of Secrets (as 'joinkit seal')",
  ],
  "seal-scope",
  [
    "token-file",
    "read TOKEN from FILE or stdin (-) instead of the command\nline (one token; the file must not be group/world-readable)",
  ],
  [
    "age-recipient",
    "write SOPS documents encrypted for this age recipient\ninstead of Secrets (as 'joinkit encrypt'); repeatable",
  ],
]);

export const command: Command = {
  name: "token create",
  options: FLAGS.options,
  help: `Render the bootstrap-token Secrets 'kubeadm token create' would create.

Prints one Secret per token: name bootstrap-token-<id>, namespace kube-system,
type bootstrap.kubernetes.io/token, data encoded as kubeadm encodes it. Apply
with 'kubectl apply -f -'. Without TOKEN a random one is generated; it appears
only inside the Secret (never on stderr): read it back with 'token list'.

Usage:
  joinkit token create [TOKEN] [flags]

Arguments:
  TOKEN   [a-z0-9]{6}.[a-z0-9]{16}; generated when absent

${FLAGS.help}
Output (-o json): one Secret object, or a v1 List of them, keys sorted, as
kubectl prints it.

As in kubeadm, the default group is added whenever --groups is empty, so
'--usages signing' alone fails validation exactly as 'kubeadm token create' does.
${SECRET_OUTPUT_HELP}
Errors: everything here comes from the command line, so every refusal is a
usage error (exit 2): malformed --ttl/--expires/--count/-o, and a malformed
TOKEN or kubeadm's validation (usages, groups) with kubeadm's text (the token
value itself is never printed in errors). A file is input (exit 1): a
--token-file that is unreadable, group/world-accessible or holds more than one
token, a --seal-cert that is not an RSA certificate or has expired.

${EXIT_CODES}

Examples:
  joinkit token create --now 2026-01-01T00:00:00Z | kubectl apply -f -
  joinkit token create abcdef.0123456789abcdef --ttl 0 --description "CI runners"
  joinkit token create --count 10 --usages authentication --groups system:bootstrappers:ci -o json
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "TOKEN");
    const protection = await protectionFromFlags(ctx);
    const configFile = flagString(ctx.flags, "config");
    if (configFile !== undefined) {
      return createFromConfig(ctx, configFile, protection);
    }
    const count = flagInt(ctx.flags, "count", 1, 1, MAX_COUNT);
    const tokenFile = flagString(ctx.flags, "token-file");
    if (tokenFile !== undefined && ctx.args[0] !== undefined) {
      throw new UsageError("TOKEN and --token-file: give one");
    }
    const tokenArg = tokenFile === undefined ? ctx.args[0] : readTokenFile(tokenFile, "token-file");
    if (tokenArg !== undefined && count > 1) {
      throw new UsageError("TOKEN cannot be combined with --count greater than 1");
    }
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const ttlText = flagString(ctx.flags, "ttl");
    const expiresText = flagString(ctx.flags, "expires");
    if (ttlText !== undefined && expiresText !== undefined) {
      throw new UsageError("--ttl and --expires are mutually exclusive");
    }
    const spec: BootstrapTokenSpec = {
      token: { id: "", secret: "" },
      usages: sliceFlag(flagList(ctx.flags, "usages")),
      groups: sliceFlag(flagList(ctx.flags, "groups")),
    };
    const description = flagString(ctx.flags, "description");
    if (description !== undefined) spec.description = description;
    if (ttlText !== undefined) spec.ttlMs = parseTtlFlag(ttlText);
    const expires = flagTime(ctx.flags, "expires");
    if (expires !== undefined) spec.expires = expires;
    const given = tokenArg === undefined ? undefined : tokenArgument(tokenArg);
    const full = withDefaults(spec);
    const errs = validateBootstrapToken(full);
    if (errs.length > 0) throw new UsageError(aggregateErrors(errs));
    if (full.expires && full.expires.getTime() <= ctx.now.getTime()) {
      ctx.stderr(
        `warning: --expires ${expiresText} is not after now: the token is already expired`,
      );
    }

    const tokens: Token[] = [];
    if (given) {
      tokens.push(given);
    } else {
      // Small draws come from cryptoRandom's pool: no system call per token.
      const ids = new Set<string>();
      while (tokens.length < count) {
        const t = newBootstrapTokenString(generateToken());
        if (ids.has(t.id)) continue; // kubeadm refuses a second Secret for the same ID
        ids.add(t.id);
        tokens.push(t);
      }
    }
    const stringData = flagBool(ctx.flags, "string-data");
    if (protection !== undefined) {
      checkProtectedFormat(protection, format);
      const objs = protectObjects(
        tokensToSecrets(full, tokens, ctx.now, { stringData }),
        protection,
        "token create",
      );
      ctx.stdout(format === "yaml" ? renderStream(objs) : renderObjects(objs, "json"));
      return;
    }
    if (format === "yaml") {
      // YAML goes out in pieces as it is rendered (100,000 Secrets are 41 MB), from Secrets made a
      // batch at a time: they die young instead of all surviving to the end (less GC).
      for (let i = 0; i < tokens.length; i += YAML_BATCH) {
        const batch = tokens.slice(i, i + YAML_BATCH);
        let separator = i > 0 ? "---\n" : "";
        writeYamlStream(tokensToSecrets(full, batch, ctx.now, { stringData }), (text) => {
          ctx.stdout(separator + text);
          separator = "";
        });
      }
    } else {ctx.stdout(
        renderObjects(tokensToSecrets(full, tokens, ctx.now, { stringData }), "json"),
      );}
  },
};

/** TOKEN, with kubeadm's text; a command-line value, so malformed is a usage error. */
function tokenArgument(text: string): Token {
  try {
    return newBootstrapTokenString(text);
  } catch (e) {
    if (e instanceof InputError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * `--config FILE`: the Secrets for every `bootstrapTokens` entry of a kubeadm
 * InitConfiguration, defaulted and validated as kubeadm does (a token the
 * file leaves out is generated). The file replaces the token flags:
 * mixing them is refused with kubeadm's `ValidateMixedArguments` text.
 */
function createFromConfig(ctx: Context, file: string, protection?: SecretProtection): void {
  const mixed = ["count", "description", "expires", "groups", "token-file", "ttl", "usages"].filter(
    (n) => ctx.flags[n] !== undefined,
  );
  if (mixed.length) {
    throw new UsageError(`can not mix '--config' with arguments [${mixed.join(" ")}]`);
  }
  if (ctx.args.length > 0) {
    throw new UsageError("TOKEN cannot be combined with --config: the file holds the tokens");
  }
  const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
  const input = readInput(file);
  const cfg = readInitConfiguration(readKubeadmDocuments(input.text, input.name), input.name);
  for (const w of cfg.warnings) ctx.stderr(`warning: ${input.name}: ${w}`);
  const stringData = flagBool(ctx.flags, "string-data");
  const secrets = cfg.bootstrapTokens.map((t) =>
    tokenToSecret(
      {
        token: t.token ?? newBootstrapTokenString(generateToken()),
        usages: t.usages,
        groups: t.groups,
        ...(t.description !== undefined ? { description: t.description } : {}),
        ...(t.expires !== undefined ? { expires: t.expires } : { ttlMs: t.ttlMs }),
      },
      ctx.now,
      { stringData },
    )
  );
  if (protection !== undefined) {
    checkProtectedFormat(protection, format);
    const objs = protectObjects(secrets, protection, input.name);
    ctx.stdout(format === "yaml" ? renderStream(objs) : renderObjects(objs, "json"));
    return;
  }
  ctx.stdout(format === "yaml" ? renderYamlStream(secrets) : renderObjects(secrets, "json"));
}
