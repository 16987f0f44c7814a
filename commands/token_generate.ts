/**
 * `joinkit token generate`: new random bootstrap tokens, one per line.
 *
 * @module
 */

import { generateToken } from "../lib/tokens/token.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagInt } from "./_flags.ts";

/** Most tokens one run may generate. */
export const MAX_COUNT = 100_000;

export const command: Command = {
  name: "token generate",
  options: { count: { type: "string" } },
  help: `Print new random bootstrap tokens, one per line.

Each token has the form [a-z0-9]{6}.[a-z0-9]{16}, every character drawn
uniformly from the CSPRNG, exactly as 'kubeadm token generate' makes them.
Nothing is stored: pass a token to 'token create' to get its Secret.

Usage:
  joinkit token generate [--count N]

Flags:
  --count N   how many tokens (default 1, at most ${MAX_COUNT})

${EXIT_CODES}

Examples:
  joinkit token generate
  TOKEN=$(joinkit token generate) && joinkit token create "$TOKEN"
`,
  run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const count = flagInt(ctx.flags, "count", 1, 1, MAX_COUNT);
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(generateToken());
    ctx.stdout(lines.join("\n") + "\n");
  },
};
