/**
 * `joinkit token generate`: new random bootstrap tokens, one per line.
 *
 * @module
 */

import { generateToken } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagInt, flagSet, optionalOutput, renderData } from "./_flags.ts";

/** Most tokens one run may generate. */
export const MAX_COUNT = 100_000;

const FLAGS = flagSet("token generate", [
  ["count", `how many tokens (default 1, at most ${MAX_COUNT})`],
  ["output", "text (default: one token per line), json or yaml"],
]);

export const command: Command = {
  name: "token generate",
  options: FLAGS.options,
  help: `Print new random bootstrap tokens, one per line.

Each token has the form [a-z0-9]{6}.[a-z0-9]{16}, every character drawn
uniformly from the CSPRNG, exactly as 'kubeadm token generate' makes them.
Nothing is stored: pass a token to 'token create' to get its Secret.

Usage:
  joinkit token generate [--count N] [-o text|json|yaml]

${FLAGS.help}
Output (-o json): an array with one object per token: id (the public part)
and token (id.secret). Keys sorted; -o yaml is the same array.

${EXIT_CODES}

Examples:
  joinkit token generate
  TOKEN=$(joinkit token generate) && joinkit token create "$TOKEN"
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const count = flagInt(ctx.flags, "count", 1, 1, MAX_COUNT);
    const format = optionalOutput(ctx.flags, ["text", "json", "yaml"] as const) ?? "text";
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(generateToken());
    if (format === "text") ctx.stdout(lines.join("\n") + "\n");
    else ctx.stdout(await renderData(lines.map((t) => ({ id: t.slice(0, 6), token: t })), format));
  },
};
