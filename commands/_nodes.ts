/**
 * The node names a bulk command works on: `--node` flags and a NODES file,
 * read the same way by every command that takes them.
 *
 * @module
 */

import { InputError, quote, UsageError } from "../lib/base/errors.ts";
import { nodeNameProblem } from "../lib/kubelet/node_kubeconfig.ts";
import type { Flags } from "./_command.ts";
import { flagList } from "./_flags.ts";
import { readInput } from "./_read.ts";

/** The `--node` flags, each checked to be a Node name (a usage error names the first that is not). */
export function flagNodeNames(flags: Flags): string[] {
  const nodes = flagList(flags, "node");
  for (const n of nodes) {
    const why = nodeNameProblem(n);
    if (why !== undefined) throw new UsageError(`--node ${quote(n)} cannot be a Node name: ${why}`);
  }
  return nodes;
}

/** The node names a NODES file lists: one per line, blank lines and `#` comments skipped. */
export function readNodeList(file: string): string[] {
  const input = readInput(file);
  const names: string[] = [];
  for (const [i, raw] of input.text.replace(/^\uFEFF/, "").split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const why = nodeNameProblem(line);
    if (why !== undefined) {
      // The line itself is not echoed: a key or secret given as NODES must not reach stderr.
      throw new InputError(`${input.name}:${i + 1}: not a Node name: ${why}`);
    }
    names.push(line);
  }
  if (names.length === 0) throw new InputError(`${input.name}: no node names`);
  return names;
}
