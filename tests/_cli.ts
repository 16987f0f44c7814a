/**
 * Runs the joinkit CLI for tests. {@link runCli} spawns it, for black-box
 * tests (names starting with "CLI "): by default `deno run -A main.ts`; set
 * `JOINKIT_BIN` to a built binary (`dist/joinkit`) to run the same tests
 * against it. {@link runInProcess} calls cli.ts's `run()` in this process,
 * the dispatcher main.ts wires to the process, for fast table tests and
 * fuzzers.
 *
 * @module
 */

import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { run } from "../cli.ts";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/** What one run of the CLI did. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@link runCli}. */
export interface CliOptions {
  /** Text fed to stdin (default: none, stdin closed). */
  stdin?: string | Uint8Array;
  /** Working directory (default: the repository root). */
  cwd?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

/** The command that runs joinkit: the binary under test, or deno run main.ts. */
export function cliCommand(): string[] {
  const bin = process.env.JOINKIT_BIN;
  if (bin) return [path.resolve(ROOT, bin)];
  return [process.execPath, "run", "-A", "--quiet", path.join(ROOT, "main.ts")];
}

/** Runs `joinkit <args>` and collects its exit code and both streams. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const [cmd, ...pre] = cliCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, [...pre, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: "1", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Uint8Array[] = [];
    const err: Uint8Array[] = [];
    child.stdout.on("data", (d: Uint8Array) => out.push(d));
    child.stderr.on("data", (d: Uint8Array) => err.push(d));
    child.on("error", reject);
    child.on("close", (code: number | null) => {
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.on("error", () => {});
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
  });
}

/** What an in-process run did. */
export interface InProcessResult {
  /** The exit code main.ts would set. */
  code: number;
  stdout: string;
  /** The stderr lines, each ending in a newline, `error: …` for a thrown error included. */
  stderr: string;
  /** The value run() caught, if any (a JoinkitError is a refusal; anything else is a crash). */
  thrown?: unknown;
}

/** Options for {@link runInProcess}. */
export interface InProcessOptions {
  /** The environment run() sees (default: none). */
  env?: Record<string, string>;
  /** The clock when `--now` is absent (default: the system clock). */
  clock?: () => Date;
}

/**
 * Runs `joinkit <argv>` in this process through `run()`: the same
 * dispatcher, flag parsing and error mapping as the binary, without a spawn.
 * Stdin is this process's (commands read file descriptor 0).
 */
export async function runInProcess(
  argv: readonly string[],
  opts: InProcessOptions = {},
): Promise<InProcessResult> {
  let stdout = "";
  let stderr = "";
  let thrown: unknown;
  let caught = false;
  const code = await run(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (l) => void (stderr += l + "\n"),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    onError: (e) => {
      caught = true;
      thrown = e;
    },
  });
  return caught ? { code, stdout, stderr, thrown } : { code, stdout, stderr };
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export function tempDir(prefix = "joinkit-test-"): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Absolute path of a file in the repository. */
export function repoPath(...parts: string[]): string {
  return path.join(ROOT, ...parts);
}

/** Modules reachable from `entry` through static imports only (`deno info --json`). */
export function staticGraph(entry: string): string[] {
  const info = JSON.parse(
    execFileSync(process.execPath, ["info", "--json", repoPath(entry)], {
      env: { ...process.env, NO_COLOR: "1" },
    }).toString(),
  ) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  };
  const bySpec = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [info.modules.find((m) => m.specifier.endsWith(entry))!.specifier];
  while (todo.length) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of bySpec.get(s)?.dependencies ?? []) {
      if (!d.isDynamic && d.code) todo.push(d.code.specifier);
    }
  }
  return [...seen];
}
