/**
 * Secrets off the command line. A command's arguments are visible to every
 * user of the host (`ps`, `/proc/<pid>/cmdline`) and land in shell history,
 * so every flag that carries a secret has a file form that reads it from a
 * file or stdin instead: `--token-file`, `--certificate-key-file`,
 * `--tls-bootstrap-token-file`. A file that its group or others may read or
 * write is refused, as ssh refuses such a private key (`mode & 0o077`);
 * a token file must hold exactly one token.
 *
 * `_flags.ts` turns a file form into its flag's value on first read
 * ({@link materializeSecretFlag}), so every command that reads `--token`
 * accepts `--token-file` without code of its own.
 *
 * @module
 */

import { InputError, UsageError } from "../lib/base/errors.ts";
import type { Flags } from "./_command.ts";
import { nodeFs, readInput } from "./_read.ts";

/** Each secret-carrying flag and its file form. */
export const SECRET_FILE_FLAGS: Readonly<Record<string, string>> = {
  token: "token-file",
  "certificate-key": "certificate-key-file",
  "tls-bootstrap-token": "tls-bootstrap-token-file",
};

/** Why file forms exist, for help texts. */
export const SECRET_INPUT_HELP =
  `Secrets off the command line: every secret flag (--token, --certificate-key,
--tls-bootstrap-token) has a file form (--token-file FILE|-, ...) that reads
it from FILE or stdin: arguments are visible to every user of the host (ps,
/proc) and kept in shell history. Like ssh with a private key, a file that
its group or others can access (mode & 077) is refused: chmod 600 it.
`;

/**
 * Reads a secret from `file` (`-` is stdin) for `flag`: refuses a file its
 * group or others may access, and returns the text without surrounding
 * whitespace. Errors name the file, never its content.
 */
export function readSecretFile(file: string, flag: string): string {
  if (file === "") throw new UsageError(`--${flag} must not be empty`);
  if (file !== "-") {
    let mode: number;
    try {
      mode = nodeFs().statSync(file).mode;
    } catch {
      mode = 0; // missing or unreadable: readInput says why
    }
    if (mode & 0o077) {
      const octal = (mode & 0o777).toString(8).padStart(4, "0");
      throw new InputError(
        `${file}: permissions ${octal} are too open: a --${flag} file must not be accessible by group or others (chmod 600 ${file})`,
      );
    }
  }
  const text = readInput(file).text.trim();
  if (text === "") {
    throw new InputError(`${file === "-" ? "stdin" : file}: empty, no secret for --${flag}`);
  }
  return text;
}

/** One token from a token file: exactly one non-empty line with one word. */
export function readTokenFile(file: string, flag: string): string {
  return readOneValue(file, flag, "token");
}

/**
 * One value (`what`: token, key) from a secret file: exactly one word. A
 * second word is refused naming the file, never echoed: it may be another
 * secret, or half of one that a parser would quote.
 */
export function readOneValue(file: string, flag: string, what: string): string {
  const text = readSecretFile(file, flag);
  const words = text.split(/\s+/).filter((w) => w !== "");
  if (words.length > 1) {
    throw new InputError(
      `${
        file === "-" ? "stdin" : file
      }: holds ${words.length} values; --${flag} takes exactly one ${what}`,
    );
  }
  return words[0]!;
}

/** The file flags that may name stdin (`-`): the secret file forms and `--seal-cert`. */
const STDIN_FLAGS = [...Object.values(SECRET_FILE_FLAGS), "seal-cert"];

/**
 * Refuses a second flag naming stdin (`-`) next to `flag`: stdin can be read
 * once, so the second reader would get nothing, or the first one would take
 * the other's text (a certificate key read as a token, Secrets as a
 * certificate). A usage error naming both.
 */
export function refuseSecondStdinReader(flags: Flags, flag: string): void {
  const other = STDIN_FLAGS.find((f) => f !== flag && [flags[f]].flat().includes("-"));
  if (other !== undefined) {
    const [a, b] = [flag, other].sort((x, y) => STDIN_FLAGS.indexOf(x) - STDIN_FLAGS.indexOf(y));
    throw new UsageError(`--${a} and --${b} both read stdin (-): give one a file`);
  }
}

/**
 * When `flags` has the file form of `name` (`--token-file`), reads it once and
 * stores the value as `name`'s (`--token`), so the usual readers see it.
 * Giving both forms is a usage error. Repeatable flags get a one-element list.
 */
export function materializeSecretFlag(flags: Flags, name: string, multiple: boolean): void {
  const fileFlag = SECRET_FILE_FLAGS[name];
  if (fileFlag === undefined) return;
  const raw = flags[fileFlag];
  if (raw === undefined) return;
  if (flags[name] !== undefined) throw new UsageError(`--${name} and --${fileFlag}: give one`);
  const files = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  if (files.length > 1) throw new UsageError(`--${fileFlag} given more than once`);
  const file = files[0]!;
  if (file === "-") refuseSecondStdinReader(flags, fileFlag);
  const value = readOneValue(file, fileFlag, name === "certificate-key" ? "key" : "token");
  flags[name] = multiple ? [value] : value;
  delete flags[fileFlag];
}
