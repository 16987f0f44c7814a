/**
 * `joinkit token auth-file`: a line for kube-apiserver's `--token-auth-file`
 * with a fresh token, in the format of the kubelet TLS-bootstrapping docs.
 *
 * @module
 */

import { UsageError } from "../lib/base/errors.ts";
import { cryptoRandom } from "../lib/base/random.ts";
import { BOOTSTRAP_DEFAULT_GROUP } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagList, flagSet, flagString, optionalOutput, renderData } from "./_flags.ts";

/** Characters that would break the CSV line the API server reads. */
const UNSAFE = /[",\r\n]/;

function field(value: string, name: string): string {
  if (UNSAFE.test(value)) {
    throw new UsageError(`--${name} must not contain commas, quotes or line breaks`);
  }
  return value;
}

const FLAGS = flagSet("token auth-file", [
  ["user", "user name (default kubelet-bootstrap)"],
  ["uid", "user ID (default 10001)"],
  ["groups", "comma-separated groups, repeatable (default system:bootstrappers)"],
  ["output", "text (default: the line), json or yaml"],
]);

export const command: Command = {
  name: "token auth-file",
  options: FLAGS.options,
  help: `Print a line for kube-apiserver's --token-auth-file (static token file).

The token is 128 bits from the CSPRNG as 32 lowercase hex digits, like
'head -c 16 /dev/urandom | od -An -t x | tr -d " "' in the kubelet
TLS-bootstrapping docs; the line is token,user,uid,"group1,group2":

  02b50b05283e98dd0fd71db496ef01e8,kubelet-bootstrap,10001,"system:bootstrappers"

Append it to the file named by --token-auth-file and restart kube-apiserver;
the token is the secret, so keep the file 0600. Static tokens never expire:
prefer bootstrap tokens ('token create') where you can.

Usage:
  joinkit token auth-file [--user NAME] [--uid UID] [--groups LIST] [-o text|json|yaml]

${FLAGS.help}
Output (-o json): one object: groups, line (the line, without its newline),
token, uid and user. Keys sorted; -o yaml is the same object.

${EXIT_CODES}

Examples:
  joinkit token auth-file >> /etc/kubernetes/token.csv
  joinkit token auth-file --user ci-bootstrap --uid 10002 --groups system:bootstrappers,ci
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const format = optionalOutput(ctx.flags, ["text", "json", "yaml"] as const) ?? "text";
    const user = field(flagString(ctx.flags, "user") ?? "kubelet-bootstrap", "user");
    if (user === "") throw new UsageError("--user must not be empty");
    const uid = field(flagString(ctx.flags, "uid") ?? "10001", "uid");
    let groups = flagList(ctx.flags, "groups", true).filter((g) => g !== "");
    if (flagList(ctx.flags, "groups").length === 0) groups = [BOOTSTRAP_DEFAULT_GROUP];
    for (const g of groups) field(g, "groups");
    const token = Array.from(cryptoRandom(16), (b) => b.toString(16).padStart(2, "0")).join("");
    const groupField = groups.length ? `,"${groups.join(",")}"` : "";
    const line = `${token},${user},${uid}${groupField}`;
    if (format === "text") ctx.stdout(line + "\n");
    else ctx.stdout(await renderData({ groups, line, token, uid, user }, format));
  },
};
