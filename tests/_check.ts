/**
 * Assertions for CLI runs where a check said no (exit 3): the specific
 * upstream reason, on exactly one stderr line, and nothing on stdout. Use it
 * for every exit-3 path so a changed reason, a second line or stray output
 * fails a test.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CliResult } from "./_cli.ts";

/** Options for {@link assertRefused}. */
export interface RefusalOptions {
  /** The expected exit code (default 3). */
  code?: number;
  /**
   * What the stderr line names before the reason (a file, `file (object)`),
   * matched exactly when a string. Default: anything.
   */
  where?: string | RegExp;
  /** Allow output on stdout (reporting commands such as `csr inspect`). */
  stdout?: "empty" | "any";
}

/**
 * Asserts that `r` exited 3 (or `o.code`) with exactly one stderr line,
 * `error: <where>: <reason>` — `reason` compared exactly when a string, matched
 * against the text after `error: ` when a RegExp — and an empty stdout unless
 * `o.stdout` is `any`. Returns the line.
 */
export function assertRefused(
  r: CliResult,
  reason: string | RegExp,
  o: RefusalOptions = {},
): string {
  const ctx = `exit ${r.code}\nstdout: ${r.stdout.slice(0, 400)}\nstderr: ${r.stderr}`;
  assert.equal(r.code, o.code ?? 3, ctx);
  assert.ok(r.stderr.endsWith("\n"), `stderr must end with a newline: ${ctx}`);
  const lines = r.stderr.slice(0, -1).split("\n");
  assert.equal(lines.length, 1, `exactly one stderr line: ${ctx}`);
  const line = lines[0]!;
  assert.ok(line.startsWith("error: "), `the line starts with "error: ": ${ctx}`);
  const body = line.slice("error: ".length);
  if (typeof reason === "string") {
    assert.ok(body.endsWith(reason), `reason ${JSON.stringify(reason)} ends the line: ${ctx}`);
    const where = body.slice(0, body.length - reason.length);
    if (typeof o.where === "string") assert.equal(where, `${o.where}: `, ctx);
    else if (o.where) assert.match(where, o.where, ctx);
  } else {
    assert.match(body, reason, ctx);
    if (typeof o.where === "string") assert.ok(body.startsWith(`${o.where}: `), ctx);
    else if (o.where) assert.match(body, o.where, ctx);
  }
  if ((o.stdout ?? "empty") === "empty") assert.equal(r.stdout, "", ctx);
  return line;
}
