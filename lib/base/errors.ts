/**
 * Error types that carry joinkit's documented exit codes.
 *
 * `lib/` throws these; `main.ts` is the only place that turns them into an
 * exit code and a single `error: …` line on stderr. Messages must never
 * contain a private key or a token secret.
 *
 * @module
 */

/** Exit codes, as documented in `joinkit --help`. */
export const ExitCode = {
  /** Success. */
  ok: 0,
  /** Bad input or an I/O failure. */
  input: 1,
  /** Usage error: unknown flag, missing or extra argument. */
  usage: 2,
  /** A check ran and said no: invalid, expired, untrusted. */
  check: 3,
} as const;

/** Base class of every error joinkit reports to the user. */
export class JoinkitError extends Error {
  /** The process exit code this error maps to. */
  readonly exitCode: number;
  constructor(message: string, exitCode: number = ExitCode.input, options?: ErrorOptions) {
    super(message, options);
    this.name = "JoinkitError";
    this.exitCode = exitCode;
  }
}

/** Bad input or I/O failure (exit 1). */
export class InputError extends JoinkitError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.input, options);
    this.name = "InputError";
  }
}

/** Usage error: unknown flag, missing argument (exit 2). */
export class UsageError extends JoinkitError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.usage, options);
    this.name = "UsageError";
  }
}

/** A check ran and said no: invalid, expired, untrusted (exit 3). */
export class CheckError extends JoinkitError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.check, options);
    this.name = "CheckError";
  }
}

/** Longest line {@link diagnosticLine} returns: an input echoed in a message cannot flood stderr. */
export const MAX_MESSAGE_CHARS = 2000;

/**
 * The message of any thrown value, rendered by {@link diagnosticLine}.
 *
 * @example
 * ```ts
 * oneLine(new Error("open a\nb")); // "open a\\nb"
 * ```
 */
export function oneLine(err: unknown): string {
  return diagnosticLine(messageOf(err));
}

/** The raw message of any thrown value (render it with {@link diagnosticLine}). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// The secret half of anything shaped like a bootstrap token, in either case: 16 lower-case
// letters or digits (or 16 upper-case ones: a token typed in capitals) after a dot that follows
// a letter or digit. The ID part may be cut short or run into other text (a value quoted from a
// mangled file); the secret part may not. Mixed case is an ordinary word, not a token: a field
// path such as `nodeRegistration.kubeletExtraArgs` stays as it is.
const TOKEN_LIKE = /(?<=[A-Za-z0-9])\.(?:[a-z0-9]{16}|[A-Z0-9]{16})(?![A-Za-z0-9])/g;

/**
 * Replaces the secret half of anything shaped like a bootstrap token with
 * `<value withheld>`: a token typed where a file name or another argument
 * belongs must not reach stderr, logs or CI output through an error message.
 *
 * @example
 * ```ts
 * redactTokens('open "abcdef.0123456789abcdef"'); // 'open "abcdef.<value withheld>"'
 * ```
 */
export function redactTokens(text: string): string {
  // Only a dot starts a match (a fleet's 10,000 report lines have none: no regex run).
  return text.includes(".") ? text.replace(TOKEN_LIKE, ".<value withheld>") : text;
}

// Whatever a terminal or a log reader may take as the end of a line or as a command: C0
// controls, DEL, C1 controls (U+0085 is NEL), U+2028 and U+2029.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeControl(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ??
    (code < 0x100
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`);
}

/**
 * The one renderer of a diagnostic line: every line joinkit writes to stderr
 * goes through it (main.ts hands commands nothing else). Control characters
 * inside it (a file name or value holding `\n`, `\r`, ESC …) are escaped as
 * `\n`, `\r`, `\xNN`, so one call is one line whatever it echoes; then token
 * secrets are withheld and the line is cut to {@link MAX_MESSAGE_CHARS}.
 * Trailing line breaks are dropped. Linear in the input.
 *
 * @example
 * ```ts
 * diagnosticLine("open a\nerror: fake: no such file"); // 'open a\\nerror: fake: no such file'
 * ```
 */
export function diagnosticLine(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === "\n" || line[end - 1] === "\r")) end--;
  const text = end === line.length ? line : line.slice(0, end);
  return clipLine(redactTokens(text.replace(CONTROL, escapeControl)));
}

/**
 * Cuts a line to `max` characters, marking the cut (a helper of
 * {@link diagnosticLine}).
 *
 * @example
 * ```ts
 * clipLine("x".repeat(5000)).length; // 2000 + the marker
 * ```
 */
export function clipLine(line: string, max = MAX_MESSAGE_CHARS): string {
  return line.length <= max ? line : `${line.slice(0, max)}… (${line.length - max} more chars)`;
}

/**
 * Quotes a user-supplied value for an error message (JSON string syntax, so
 * control characters are escaped), cut to `max` characters so a huge input
 * cannot turn into a huge message.
 *
 * @example
 * ```ts
 * quote("x".repeat(1000), 5); // '"xxxxx…" (1000 chars)'
 * ```
 */
export function quote(text: string, max = 64): string {
  if (text.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}
