/**
 * Reading Secret manifests from files and directories, as `token list` and
 * `token check --secrets` do: a file found in a directory that holds no
 * Secret (a kubeconfig, `join-command.txt`, a PEM file: what `init` writes
 * next to its Secrets) is skipped with one `warning:` line, as `doctor`
 * skips what it cannot judge. A file named on its own is read as ever: an
 * unreadable one is an error.
 *
 * @module
 */

import type { TextChunk } from "./_io.ts";

/** A `kind: Secret` line of YAML, or a JSON `"kind": "Secret"`. */
const SECRET_KIND = /^[ \t-]*kind:[ \t]*["']?Secret["']?[ \t]*(?:#.*)?\r?$|"kind"\s*:\s*"Secret"/m;

/**
 * Follows the chunks of a {@link readManifestChunks} run file by file (a
 * file's chunks come one after the other) and says which to skip.
 */
export class SecretFileSkips {
  #warn: (line: string) => void;
  #source: string | undefined;
  #inDirectory = false;
  #holdsSecret = false;
  #skipped = false;

  /** `warn` gets one line per skipped file. */
  constructor(warn: (line: string) => void) {
    this.#warn = warn;
  }

  /** Call before a chunk is parsed: false when its file is being skipped. */
  next(chunk: TextChunk): boolean {
    if (chunk.source !== this.#source) {
      this.end();
      this.#source = chunk.source;
      this.#inDirectory = chunk.inDirectory === true;
      this.#holdsSecret = false;
      this.#skipped = false;
    }
    return !this.#skipped;
  }

  /**
   * A chunk did not parse: true when its file is skipped (found in a
   * directory, no Secret read from it yet, and none named in the chunk),
   * false when the error stands.
   */
  unreadable(error: unknown, chunk: TextChunk): boolean {
    if (!this.#inDirectory || this.#holdsSecret || this.#source === undefined) return false;
    // A file that names a Secret is a Secret file with a fault: the error stands.
    if (SECRET_KIND.test(chunk.text)) return false;
    const message = (error as Error).message ?? String(error);
    const why = message.startsWith(`${this.#source}: `)
      ? message.slice(this.#source.length + 2)
      : message;
    this.#warn(`warning: ${this.#source}: skipped: not a manifest (${why})`);
    this.#skipped = true;
    return true;
  }

  /** The current file held a Secret. */
  secret(): void {
    this.#holdsSecret = true;
  }

  /** Call after the last chunk: the last file's warning, if it held no Secret. */
  end(): void {
    if (this.#source !== undefined && this.#inDirectory && !this.#holdsSecret && !this.#skipped) {
      this.#warn(`warning: ${this.#source}: skipped: holds no Secret`);
    }
    this.#source = undefined;
  }
}
