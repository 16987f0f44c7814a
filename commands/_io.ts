/**
 * File I/O for commands, through `node:` built-ins so the same code runs on
 * Deno and on Node (the single binary). Reads are size-limited; writes are
 * atomic (temporary file in the same directory, then link or rename), never
 * clobber without `force`, and write keys 0600.
 *
 * Reading one input ({@link readInput}) lives in `_read.ts`, which a command
 * that only reads its inputs imports alone (start-up under `deno run`);
 * `node:fs` is loaded on first use.
 *
 * @module
 */

import type * as NodeFs from "node:fs";
import * as path from "node:path";
import { Buffer, isAscii } from "node:buffer";
import process from "node:process";
import { InputError } from "../lib/base/errors.ts";
import { MAX_INPUT_BYTES } from "../lib/base/limits.ts";
import { JsonListReader } from "../lib/k8s/json_stream.ts";
import { memoryCheckpoint } from "./_memory.ts";
import { probes } from "./_command.ts";
import { describeIoError as describe, type Input, nodeFs, readInput } from "./_read.ts";

export { type Input, readInput } from "./_read.ts";

/** Most files one run reads (directories expand to their files). */
export const MAX_INPUT_FILES = 10_000;

/** Most bytes one run reads across all its inputs. */
export const MAX_TOTAL_INPUT_BYTES = 4 * MAX_INPUT_BYTES;

/**
 * Reads every input named: files, `-` for stdin, and directories (their
 * regular files, recursively, in sorted order, skipping dot-files).
 */
export function readInputs(names: readonly string[]): Input[] {
  const out: Input[] = [];
  let total = 0;
  const add = (input: Input) => {
    total += input.bytes.length;
    if (total > MAX_TOTAL_INPUT_BYTES) {
      throw new InputError(
        `${input.name}: inputs larger than ${MAX_TOTAL_INPUT_BYTES} bytes in all`,
      );
    }
    out.push(input);
  };
  for (const name of names) {
    if (name !== "-" && isDirectory(name)) {
      const files = listFiles(name);
      if (out.length + files.length > MAX_INPUT_FILES) {
        throw new InputError(`${name}: more than ${MAX_INPUT_FILES} files to read`);
      }
      for (const file of files) add(readInput(file));
    } else {
      if (out.length + 1 > MAX_INPUT_FILES) {
        throw new InputError(`${name}: more than ${MAX_INPUT_FILES} files to read`);
      }
      add(readInput(name));
    }
  }
  return out;
}

/**
 * {@link readInputs} one input at a time, for bulk commands: each file is
 * read (at most {@link MAX_INPUT_BYTES}) only when the previous one is done
 * with, so a directory of up to {@link MAX_STREAM_FILES} files is never in
 * memory at once, and no total over all inputs applies.
 */
export function* eachInput(
  names: readonly string[],
  opts: { pemPieces?: boolean } = {},
): Generator<InputPiece> {
  for (const file of streamFiles(names)) {
    // The common case (a fleet's certificates, a file each): one open, fstat and read.
    const small = file === "-" ? undefined : readSmallFile(file, opts.pemPieces);
    if (small) {
      yield small;
      memoryCheckpoint(small.bytes.length);
      continue;
    }
    if (opts.pemPieces && isLongPem(file)) {
      for (const piece of pemPieces(file)) {
        yield piece;
        memoryCheckpoint(piece.bytes.length);
      }
      continue;
    }
    const input = readInput(file);
    yield input;
    memoryCheckpoint(input.bytes.length);
  }
}

/** {@link readSmallFile}'s buffer, reused from file to file (grown as needed). */
let scratch: Buffer | undefined;

/**
 * A regular file read whole as {@link readInput} reads it (the same bytes and
 * text), with one open, one `fstat` and, when the file is the size `fstat`
 * gave, one read into a buffer reused across files: what a directory of
 * 10,000 certificates costs per file (readInput's 64 KiB zeroed buffer, its
 * read to the end and its three copies were a third of `cert inspect`'s
 * time). Undefined for anything else: a file larger than a piece (with
 * `pieces`) or than {@link MAX_INPUT_BYTES}, not a regular file, a file that
 * grew while read, or any error; the caller then reads it as before, which
 * words the refusal. The text is decoded on first read (`cert inspect`
 * reads only the bytes).
 */
function readSmallFile(file: string, pieces = false): Input | undefined {
  const fs = nodeFs();
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    const size = st.size;
    if (!st.isFile() || size > (pieces ? PIECE_BYTES : MAX_INPUT_BYTES)) return undefined;
    // One byte more than fstat said: a file that grew is seen, and read as before.
    if (!scratch || scratch.length < size + 1) {
      scratch = Buffer.allocUnsafe(Math.max(size + 1, 1 << 16));
    }
    let n = 0;
    // A short read before `size` bytes (a file that shrank, a file system that reads in
    // parts) reads on to the end; a read of exactly `size` bytes is the whole file.
    while (n < size) {
      const r = fs.readSync(fd, scratch, n, size + 1 - n, null);
      if (r === 0) break;
      n += r;
    }
    if (n > size || (n === size && size === 0 && fs.readSync(fd, scratch, 0, 1, null) !== 0)) {
      return undefined;
    }
    const bytes = new Uint8Array(scratch.subarray(0, n));
    let text: string | undefined;
    return {
      name: file,
      bytes,
      get text() {
        return text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8");
      },
    };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The files of bulk inputs in order: `-` and files as given, directories
 * expanded recursively; each name's files are counted before any is yielded,
 * and more than {@link MAX_STREAM_FILES} in all is refused.
 */
function* streamFiles(names: readonly string[]): Generator<string> {
  for (const [file] of streamFileEntries(names)) yield file;
}

/**
 * The files `names` stand for (`-` and files as given, directories expanded
 * recursively in sorted order, dot-files skipped), each with whether it was
 * found in a directory; more than {@link MAX_INPUT_FILES} is refused.
 */
export function inputFiles(names: readonly string[]): { file: string; inDirectory: boolean }[] {
  const out: { file: string; inDirectory: boolean }[] = [];
  for (const [file, inDirectory] of streamFileEntries(names)) {
    out.push({ file, inDirectory });
    if (out.length > MAX_INPUT_FILES) {
      throw new InputError(`${file}: more than ${MAX_INPUT_FILES} files to read`);
    }
  }
  return out;
}

/** {@link streamFiles}, each file with whether it was found in a directory named. */
function* streamFileEntries(names: readonly string[]): Generator<[string, boolean]> {
  let files = 0;
  for (const name of names) {
    const dir = name !== "-" && isDirectory(name);
    const list = dir ? listFiles(name, MAX_STREAM_FILES) : [name];
    files += list.length;
    if (files > MAX_STREAM_FILES) {
      throw new InputError(`${name}: more than ${MAX_STREAM_FILES} files to read`);
    }
    for (const file of list) yield [file, dir];
  }
}

/** An input, or (with `part`) one piece of a long PEM file read in pieces. */
export interface InputPiece extends Input {
  /** Set for the pieces of a PEM file over one piece (whole blocks each). */
  part?: { index: number; last: boolean };
}

const CSR_BEGIN = " CERTIFICATE REQUEST-----";

/**
 * A PEM file of CSRs over one piece (a regular file whose first block is a
 * CERTIFICATE REQUEST), in pieces that each start with a CSR block, so each
 * piece reads as the whole file would; undefined for anything else.
 */
export function pemCsrPieces(file: string): Iterable<InputPiece> | undefined {
  return isLongPem(file, CSR_BEGIN) ? pemPieces(file, "-----BEGIN" + CSR_BEGIN) : undefined;
}

/**
 * A regular file over a piece whose first 64 KiB hold a PEM block start
 * (the first one followed by `firstBlock`).
 */
function isLongPem(file: string, firstBlock = ""): boolean {
  const fs = nodeFs();
  if (file === "-") return false;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size <= PIECE_BYTES) return false;
    const head = Buffer.alloc(1 << 16);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const at = head.subarray(0, n).indexOf("-----BEGIN");
    return at >= 0 && head.subarray(at, n).toString("latin1").startsWith("-----BEGIN" + firstBlock);
  } catch {
    return false; // readInput says why
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A long PEM file in pieces of about {@link PIECE_BYTES}, each cut after an
 * `-----END` line, so every piece holds whole blocks: any length is read
 * with bounded memory (the 16 MiB bound of a whole read does not apply).
 */
function* pemPieces(file: string, before?: string): Generator<InputPiece> {
  const pieces = chunkPem(file, before);
  // Each piece ends on a line feed, so decoding piece by piece reads as decoding the file whole.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  let index = 0;
  let next = pieces.next();
  while (!next.done) {
    const bytes = next.value;
    next = pieces.next();
    // The text is decoded when first read: cert inspect reads only the bytes.
    let text: string | undefined;
    yield {
      name: file,
      get text() {
        return text ??= decoder.decode(bytes);
      },
      bytes,
      part: { index: index++, last: next.done === true },
    };
  }
}

/** The file's bytes in pieces, each cut after a line feed (see {@link pemPieces}). */
function* chunkPem(file: string, before?: string): Generator<Uint8Array> {
  const fs = nodeFs();
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (err) {
    throw describe(err, file);
  }
  const mark = Buffer.from(before ? "\n" + before : "-----END ", "latin1");
  // A plain Uint8Array view (a Buffer's slice() would not copy).
  const view = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.length);
  try {
    let pending = Buffer.alloc(0);
    for (;;) {
      const buf = Buffer.allocUnsafe(PIECE_BYTES);
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        throw describe(err, file);
      }
      if (n === 0) break;
      pending = pending.length ? Buffer.concat([pending, buf.subarray(0, n)]) : buf.subarray(0, n);
      if (pending.length < PIECE_BYTES) continue;
      // After the last END line; with `before`, before the last line starting that block.
      const end = pending.lastIndexOf(mark);
      const cut = end <= 0 ? -1 : before ? end : pending.indexOf(0x0a, end);
      if (cut < 0) {
        if (pending.length > MAX_INPUT_BYTES) {
          throw new InputError(`${file}: PEM block larger than ${MAX_INPUT_BYTES} bytes`);
        }
        continue;
      }
      yield view(pending.subarray(0, cut + 1));
      pending = pending.subarray(cut + 1);
    }
    yield view(pending);
  } finally {
    fs.closeSync(fd);
  }
}

/** A manifest file read whole or in pieces (see {@link readManifestInput}). */
export type ManifestRead =
  | { name: string; text: string; pieces?: undefined; pemParts?: undefined }
  | {
    name: string;
    text?: undefined;
    pemParts?: undefined;
    pieces: Iterable<TextChunk>;
    /** The first piece's text. */
    head: string;
    /** Whether a List read item by item (YAML or JSON) was met in the first 16 MiB. */
    list: boolean;
    /** Whether the input is a JSON List read item by item. */
    json: boolean;
  };

/** A manifest input of a bulk run (see {@link eachManifestInput}). */
export type ManifestInput = ManifestRead | {
  name: string;
  text?: undefined;
  pieces?: undefined;
  /** PEM CSRs over one piece, in pieces that each start with a CERTIFICATE REQUEST block. */
  pemParts: Iterable<InputPiece>;
};

/**
 * {@link eachInput} for manifests: each file (directories expanded, up to
 * {@link MAX_STREAM_FILES}) read by {@link readManifestInput}.
 */
export function* eachManifestInput(
  names: readonly string[],
  opts: { pemCsrPieces?: boolean } = {},
): Generator<ManifestInput> {
  for (const file of streamFiles(names)) {
    // PEM CSRs over a piece: pieces each starting with a CSR block, so every piece reads as
    // the whole file would (its first block is a CSR; other blocks are left out).
    if (opts.pemCsrPieces && isLongPem(file, CSR_BEGIN)) {
      yield { name: file, pemParts: pemPieces(file, "-----BEGIN" + CSR_BEGIN) };
    } else yield readManifestInput(file);
  }
}

/**
 * One manifest file (or `-`), read as {@link readInput} reads it, whole,
 * when it is at most {@link MAX_INPUT_BYTES}; a longer one comes in pieces
 * (see {@link readManifestChunks}) instead of being refused. What cannot be
 * read in pieces (PEM, one document over the bound) is refused as before,
 * as a file larger than the bound.
 */
export function readManifestInput(file: string): ManifestRead {
  const source = file === "-" ? "stdin" : file;
  const tooLarge = () =>
    new InputError(
      `${source}: ${file === "-" ? "input" : "file"} larger than ${MAX_INPUT_BYTES} bytes`,
    );
  const pieces = chunksOf(file);
  const read: TextChunk[] = [];
  let size = 0;
  try {
    for (let c = pieces.next(); !c.done; c = pieces.next()) {
      read.push(c.value);
      size += c.value.text.length;
      if (c.value.last || size > MAX_INPUT_BYTES || c.value.list) break;
    }
  } catch (e) {
    // The first document alone is over the bound: refused as a whole read refuses it.
    const m = e instanceof InputError ? e.message.slice(source.length + 2) : "";
    if (/^(?:document 1|JSON document) larger than /.test(m)) throw tooLarge();
    throw e;
  }
  if (read.at(-1)!.last) {
    return {
      name: source,
      text: read.length === 1 ? read[0]!.text : read.map((c) => c.text).join(""),
    };
  }
  if (read[0]!.text.includes("-----BEGIN")) throw tooLarge();
  return {
    name: source,
    head: read[0]!.text,
    list: read.some((c) => c.list !== undefined),
    json: read.some((c) => c.list?.json === true),
    pieces: (function* () {
      for (let c = read.shift(); c !== undefined; c = read.shift()) yield c;
      yield* pieces;
    })(),
  };
}

function isDirectory(p: string): boolean {
  const fs = nodeFs();
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function listFiles(dir: string, max = MAX_INPUT_FILES): string[] {
  const fs = nodeFs();
  let entries: NodeFs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw describe(err, dir);
  }
  const files: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith(".")) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) { for (const f of listFiles(full, max)) files.push(f); }
    else if (e.isFile()) files.push(full);
    if (files.length > max) {
      throw new InputError(`${dir}: more than ${max} files to read`);
    }
  }
  return files;
}

/** Most files one streamed run reads (directories expand to their files). */
export const MAX_STREAM_FILES = 1_000_000;

/** One piece of an input read in pieces (see {@link readManifestChunks}). */
export interface TextChunk {
  /** The name to show in messages: the path, or `stdin`. */
  source: string;
  /** Whole YAML documents (never a document cut in two). */
  text: string;
  /** 0 for an input's first chunk. */
  index: number;
  /** Whether this is the input's last chunk. */
  last: boolean;
  /** Set for the parts of one long `List` read item by item (see ManifestChunk.list). */
  list?: { document: number; itemsBefore: number; end: boolean; json?: boolean };
  /**
   * The file was found in a directory named, not named itself: a reader
   * looking for one kind of object may skip it when it holds none (with a
   * warning), as `doctor` does.
   */
  inDirectory?: boolean;
}

/**
 * The size of the pieces a long stream is read in: small enough that each
 * piece's objects die young, large enough that a piece holds many documents.
 * Inputs up to this size are read whole.
 */
const PIECE_BYTES = 1 << 20;

// A `---` line starts a YAML document.
const SEPARATOR = /^---(?=[ \t\r\n]|$)/gm;

/**
 * Reads manifest inputs (files, `-` for stdin, directories recursively as
 * {@link readInputs} expands them) in pieces of whole YAML documents, so a
 * stream of any length is read with bounded memory: pieces of about 1 MiB,
 * cut only before a `---` line; one document may be up to
 * {@link MAX_INPUT_BYTES} (then its piece is that document), a larger one
 * is refused. An input no larger than a piece comes whole, in one chunk, as
 * {@link readInput} reads it. JSON (an input that starts with `{` or `[`) is
 * one document: up to {@link MAX_INPUT_BYTES} it comes whole; a longer one
 * must be a `List`, read item by item (lib/k8s/json_stream.ts).
 */
export function* readManifestChunks(names: readonly string[]): Generator<TextChunk> {
  for (const [file, inDirectory] of streamFileEntries(names)) {
    if (!inDirectory) yield* chunksOf(file);
    else for (const c of chunksOf(file)) yield { ...c, inDirectory };
  }
}

/**
 * {@link readManifestChunks} for one file (or `-`), without expanding
 * directories: a directory is refused as {@link readInput} refuses it.
 */
export function readManifestFile(file: string): Generator<TextChunk> {
  return chunksOf(file);
}

function* chunksOf(file: string): Generator<TextChunk> {
  const fs = nodeFs();
  const source = file === "-" ? "stdin" : file;
  // A probe run (cli.ts, flags only) never waits on stdin: it may be a terminal.
  if (file === "-" && probes.running > 0) throw new Error("probe run: stdin is not read");
  let fd = 0;
  try {
    if (file !== "-") {
      fd = fs.openSync(file, "r");
      if (fs.fstatSync(fd).isDirectory()) {
        throw Object.assign(new Error("dir"), { code: "EISDIR" });
      }
    }
  } catch (err) {
    if (fd) fs.closeSync(fd);
    throw describe(err, source);
  }
  try {
    // ignoreBOM: a BOM stays in the text, as readInput leaves it (the parser drops it).
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    const buf = Buffer.alloc(1 << 20);
    // `block`: the text the last read added to `pending`.
    const r = { pending: "", eof: false, block: "", ascii: true };
    /** Reads the next block into `r.pending`; false at the end of the input. */
    const more = (): boolean => {
      if (r.eof) return false;
      let n: number;
      for (;;) {
        try {
          n = fs.readSync(fd, buf, 0, buf.length, null);
          break;
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === "EAGAIN") continue;
          if (code === "EOF") {
            n = 0;
            break;
          }
          throw describe(err, source);
        }
      }
      // While every block is ASCII the decoder holds no partial character, and latin1 reads
      // the same text several times faster.
      if (n !== 0 && r.ascii && isAscii(buf.subarray(0, n))) r.block = buf.toString("latin1", 0, n);
      else {
        r.ascii = false;
        r.block = n === 0 ? decoder.decode() : decoder.decode(buf.subarray(0, n), { stream: true });
      }
      r.pending += r.block;
      if (n === 0) r.eof = true;
      return n !== 0;
    };
    let index = 0;
    let json: boolean | undefined;
    let documents = 0; // documents started before `pending`
    // While one document grows past a piece: the end of the text scanned so far. Only the
    // new text is scanned for a `---` line then; scanning all of `pending` again after each
    // read would copy it whole each time (a 16 MiB document: ~136 MiB of garbage strings).
    let tail: string | undefined;
    while (more()) {
      if (json === undefined) {
        const t = r.pending.replace(/^\uFEFF/, "").trimStart();
        if (t !== "") json = t.startsWith("{") || t.startsWith("[");
      }
      if (tail !== undefined) {
        const fresh = tail + r.block;
        tail = fresh.slice(-8);
        SEPARATOR.lastIndex = 0;
        // A match here may be a false alarm (the text before `tail` is not seen): the exact
        // search below decides.
        if (r.pending.length <= MAX_INPUT_BYTES && !SEPARATOR.test(fresh)) continue;
        tail = undefined;
      }
      // More than a piece: hand out the whole documents that fit (or the one that does not).
      while (r.pending.length > PIECE_BYTES) {
        let cut = json ? 0 : lastSeparatorWithin(r.pending, PIECE_BYTES);
        if (cut <= 0 && !json) cut = firstSeparatorAfter(r.pending, PIECE_BYTES);
        if (cut <= 0 && r.pending.length <= MAX_INPUT_BYTES) {
          if (!json) tail = r.pending.slice(-8);
          break; // the document goes on
        }
        if (cut <= 0 || cut > MAX_INPUT_BYTES) {
          if (json) {
            // JSON is one document: a List is read item by item, anything else refused.
            const reader = new JsonListReader(source, documents + 1);
            let parts = reader.push(r.pending);
            r.pending = "";
            for (;;) {
              for (const part of parts) {
                yield { source, text: part.text, index: index++, last: false, list: part.list };
                memoryCheckpoint(part.text.length);
              }
              if (r.eof) break;
              more();
              parts = reader.push(r.block);
              r.pending = "";
            }
            for (const part of reader.finish()) {
              yield { source, text: part.text, index: index++, last: false, list: part.list };
            }
            documents++;
            continue;
          }
          // One document over the bound: a List is read item by item, anything else refused.
          for (const part of listParts(r, more, source, documents + 1)) {
            yield { source, text: part.text, index: index++, last: false, list: part.list };
            memoryCheckpoint(part.text.length);
          }
          documents++;
          continue;
        }
        const text = r.pending.slice(0, cut);
        documents += countSeparators(text) + (index === 0 && !text.startsWith("---") ? 1 : 0);
        r.pending = r.pending.slice(cut);
        yield { source, text, index: index++, last: false };
        memoryCheckpoint(text.length);
      }
    }
    yield { source, text: r.pending, index, last: true };
  } finally {
    if (fd) fs.closeSync(fd);
  }
}

/** The part of a List {@link listParts} hands out. */
interface ListPart {
  text: string;
  list: { document: number; itemsBefore: number; end: boolean };
}

// Lines that start a List item, and the first line at the left margin that is not part of
// `items` (not an item, an indented line, a comment or a blank line).
const ITEM_START = /^-(?=[ \t\r\n]|$)/gm;
const ITEMS_END = /^(?:[^\s#-]|-(?![ \t\r\n]|$))/gm;

/**
 * Reads one YAML `List` document longer than {@link MAX_INPUT_BYTES} item
 * by item, as kubectl writes Lists (`items:` at the left margin, each item a
 * `- ` line there): parts of whole items (about a piece each; one item at
 * most the bound), then the List's other fields, which the parser checks
 * make a List. Anything else is refused as a document over the bound.
 * `r.pending` starts with the document and is left at what follows it.
 */
function* listParts(
  r: { pending: string; eof: boolean },
  more: () => boolean,
  source: string,
  document: number,
): Generator<ListPart> {
  const tooLarge = () =>
    new InputError(`${source}: document ${document} larger than ${MAX_INPUT_BYTES} bytes`);
  const items = /^items:[ \t]*\r?\n(?=-(?:[ \t\r\n]|$))/m.exec(r.pending.slice(0, PIECE_BYTES));
  if (!items) throw tooLarge();
  const header = r.pending.slice(0, items.index);
  if (/^---(?=[ \t\r\n]|$)/m.test(header.slice(1))) throw tooLarge(); // another document first
  r.pending = r.pending.slice(items.index + items[0].length);
  let itemsBefore = 0;
  const part = (text: string): ListPart => {
    const n = text.match(ITEM_START)?.length ?? 0;
    const p = {
      text: "kind: List\nitems:\n" + text,
      list: { document, itemsBefore, end: false },
    };
    itemsBefore += n;
    return p;
  };
  // Room for the `kind: List` prefix of each part.
  const maxItems = MAX_INPUT_BYTES - 64;
  for (;;) {
    ITEMS_END.lastIndex = 0;
    const end = ITEMS_END.exec(r.pending);
    const done = end !== null || r.eof;
    let limit = end ? end.index : r.pending.length;
    while (limit > PIECE_BYTES) {
      const cut = itemCut(r.pending, limit);
      if (cut <= 0) break;
      yield part(r.pending.slice(0, cut));
      r.pending = r.pending.slice(cut);
      limit -= cut;
    }
    if (limit > maxItems) throw tooLarge(); // one item over the bound
    if (done) {
      if (limit > 0) yield part(r.pending.slice(0, limit));
      r.pending = r.pending.slice(limit);
      break;
    }
    more();
  }
  // The List's other fields: up to the next document or the end of the input.
  for (;;) {
    const next = r.pending.startsWith("---") ? 0 : firstSeparatorAfter(r.pending, 0);
    if (next > 0 || r.pending.startsWith("---") || r.eof) {
      const stop = next > 0 ? next : r.pending.startsWith("---") ? 0 : r.pending.length;
      const rest = r.pending.slice(0, stop);
      if (header.length + rest.length > PIECE_BYTES) throw tooLarge();
      r.pending = r.pending.slice(stop);
      yield { text: header + rest, list: { document, itemsBefore, end: true } };
      return;
    }
    if (r.pending.length > PIECE_BYTES) throw tooLarge();
    more();
  }
}

/**
 * Where to cut a List's items so a part holds whole items: the last item
 * start within a piece, else the first one after it (before `limit`); 0
 * when the items so far are one item.
 */
function itemCut(text: string, limit: number): number {
  let cut = 0;
  ITEM_START.lastIndex = 1;
  for (let m = ITEM_START.exec(text); m && m.index < limit; m = ITEM_START.exec(text)) {
    if (m.index > PIECE_BYTES && cut > 0) break;
    cut = m.index;
    if (m.index > PIECE_BYTES) break;
  }
  return cut;
}

/** The offset of the first `---` line after `from` (0: none). */
function firstSeparatorAfter(text: string, from: number): number {
  SEPARATOR.lastIndex = from;
  return SEPARATOR.exec(text)?.index ?? 0;
}

/** The offset of the last `---` line starting at or before `limit` (0: none but the start). */
function lastSeparatorWithin(text: string, limit: number): number {
  // SEPARATOR's matches, searched backwards with indexOf (a regex match per document was
  // most of the cost of cutting a fleet into pieces).
  for (let i = text.lastIndexOf("---", limit); i > 0; i = text.lastIndexOf("---", i - 1)) {
    if (isSeparatorAt(text, i)) return i;
  }
  return 0;
}

function countSeparators(text: string): number {
  let n = 0;
  for (let i = text.indexOf("---"); i >= 0; i = text.indexOf("---", i + 3)) {
    if (isSeparatorAt(text, i)) n++;
  }
  return n;
}

/** Whether SEPARATOR matches at `i`, where `text` has `---`: `^` and the lookahead of `/m`. */
function isSeparatorAt(text: string, i: number): boolean {
  const before = i === 0 ? 10 : text.charCodeAt(i - 1);
  if (!(before === 10 || before === 13 || before === 0x2028 || before === 0x2029)) return false;
  if (i + 3 === text.length) return true;
  const c = text.charCodeAt(i + 3);
  return c === 32 || c === 9 || c === 13 || c === 10 || c === 0x2028 || c === 0x2029;
}

/** One file to write. */
export interface OutputFile {
  /** Where to write it. */
  path: string;
  /** What to write. */
  data: string | Uint8Array;
  /** Its mode: 0o600 for keys and credentials, 0o644 otherwise. */
  mode: number;
  /**
   * The directory the user named (`--out-dir`) that `path` lies under: every
   * directory between it and the file must be a real directory, never a
   * symbolic link (see {@link refuseLinks}). Absent: only the file itself
   * is checked (the directory of `--out FILE` is the user's to choose).
   */
  root?: string;
}

/**
 * Refuses to write `file` through a symbolic link that joinkit did not
 * create: the file itself must not be a link (not even with `--force`: the
 * link's target is someone else's file), and, below `root` (the directory
 * the user named), neither may any directory on the way (`etcd/` linked to
 * another place would put keys there). `root` itself and its parents may
 * be links: the user named them. Missing components are fine (created
 * later as real directories).
 */
export function refuseLinks(file: string, root?: string): void {
  // Every writer comes here first: a probe run (cli.ts, flags only) never writes.
  if (probes.running > 0) throw new Error("probe run: nothing is written");
  const fs = nodeFs();
  const isLink = (p: string): boolean => {
    try {
      return fs.lstatSync(p).isSymbolicLink();
    } catch {
      return false; // missing: nothing to follow
    }
  };
  if (root !== undefined) {
    const rel = path.relative(root, path.dirname(file));
    if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) {
      let dir = root;
      for (const part of rel.split(path.sep)) {
        dir = path.join(dir, part);
        if (isLink(dir)) throw linkError(dir);
      }
    }
  }
  if (isLink(file)) throw linkError(file);
}

function linkError(p: string): InputError {
  return new InputError(
    `${p}: is a symbolic link; joinkit never writes through a link it did not make ` +
      `(remove it, or name its target)`,
  );
}

/**
 * Writes several files as one step: every target is checked first (none may
 * exist unless `force`), each is written to a temporary file in its own
 * directory, flushed, then moved into place. Without `force` the move is a
 * hard link, which fails rather than replace a file that appeared meanwhile;
 * the files it already linked are then removed again. On any failure the
 * temporary files are removed and nothing is left half-written.
 */
export function writeFilesAtomic(files: readonly OutputFile[], force: boolean): void {
  const fs = nodeFs();
  // Links first: a link to a directory is a link, not a directory to refuse as one.
  for (const f of files) refuseLinks(f.path, f.root);
  // A directory is never replaced, --force or not, so say that first.
  for (const f of files) {
    if (isDirectory(f.path)) throw new InputError(`${f.path}: is a directory`);
  }
  if (!force) {
    for (const f of files) {
      if (fs.existsSync(f.path)) {
        throw new InputError(`${f.path}: already exists (use --force to overwrite)`);
      }
    }
  }
  const temps: string[] = [];
  try {
    for (const f of files) {
      const dir = path.dirname(f.path);
      const tmp = path.join(
        dir,
        `.${path.basename(f.path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`,
      );
      let fd: number;
      try {
        fd = fs.openSync(tmp, "wx", f.mode);
      } catch (err) {
        throw describe(err, dir === "." ? f.path : dir);
      }
      temps.push(tmp);
      try {
        fs.fchmodSync(fd, f.mode);
        const data = typeof f.data === "string" ? Buffer.from(f.data, "utf8") : f.data;
        // write(2) may write less than asked: loop, or a short file would be moved into place.
        for (let off = 0; off < data.length;) off += fs.writeSync(fd, data, off, data.length - off);
        fs.fsyncSync(fd);
      } catch (err) {
        // A full disk or an I/O error: one line naming the file (the temporaries are removed below).
        throw describe(err, f.path);
      } finally {
        fs.closeSync(fd);
      }
    }
    testPause("written");
    // Without force, the files this call created are taken back if a later one
    // fails (e.g. another run created it meanwhile): all or nothing.
    const linked: string[] = [];
    files.forEach((f, i) => {
      if (i > 0) testPause("moved");
      const tmp = temps[i]!;
      try {
        if (force) {
          fs.renameSync(tmp, f.path);
        } else {
          fs.linkSync(tmp, f.path);
          linked.push(f.path);
          fs.unlinkSync(tmp);
        }
      } catch (err) {
        for (const p of linked) {
          try {
            fs.unlinkSync(p);
          } catch { /* gone already */ }
        }
        throw describe(err, f.path);
      }
    });
  } finally {
    for (const t of temps) {
      try {
        fs.unlinkSync(t);
      } catch { /* already moved */ }
    }
  }
}

/**
 * Failpoint for tests/file_safety_test.ts: `JOINKIT_TEST_PAUSE=written:MS`
 * holds the process once the temporary files are written, `moved:MS` after
 * each move but the last, so the test can kill it inside those windows
 * instead of hoping to; with `JOINKIT_TEST_PAUSE_MARK=FILE` it writes the
 * failpoint's name to FILE when it gets there (a temporary file is visible
 * before it is written, so its presence alone does not say the pause is
 * reached). Unset, it costs one environment lookup.
 */
function testPause(at: "written" | "moved"): void {
  const m = /^(written|moved):(\d+)$/.exec(process.env.JOINKIT_TEST_PAUSE ?? "");
  if (!m || m[1] !== at) return;
  const mark = process.env.JOINKIT_TEST_PAUSE_MARK;
  if (mark) nodeFs().writeFileSync(mark, at);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(Number(m[2]), 10_000));
}

/** A file being written piece by piece, moved into place only by `commit`. */
export interface AtomicOutput {
  write(text: string): void;
  /** Flushes and moves the file into place (refusing to replace it without force). */
  commit(): void;
  /** Removes the temporary file; nothing is left behind. */
  abort(): void;
}

/**
 * {@link writeFileAtomic} for output written as it is produced: the target is
 * checked first (not a directory; absent unless `force`), pieces go to a
 * temporary file in its directory, and `commit` moves it into place as
 * {@link writeFilesAtomic} does (a hard link without force).
 */
export function openAtomicOutput(file: string, mode: number, force: boolean): AtomicOutput {
  const fs = nodeFs();
  refuseLinks(file);
  if (isDirectory(file)) throw new InputError(`${file}: is a directory`);
  if (!force && fs.existsSync(file)) {
    throw new InputError(`${file}: already exists (use --force to overwrite)`);
  }
  const dir = path.dirname(file);
  const tmp = path.join(
    dir,
    `.${path.basename(file)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`,
  );
  let fd: number;
  try {
    fd = fs.openSync(tmp, "wx", mode);
    fs.fchmodSync(fd, mode);
  } catch (err) {
    throw describe(err, dir === "." ? file : dir);
  }
  let open = true;
  const close = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  const abort = () => {
    close();
    try {
      fs.unlinkSync(tmp);
    } catch { /* already moved */ }
  };
  return {
    write(text) {
      const data = Buffer.from(text, "utf8");
      try {
        for (let off = 0; off < data.length;) off += fs.writeSync(fd, data, off, data.length - off);
      } catch (err) {
        abort();
        throw describe(err, file);
      }
    },
    commit() {
      try {
        fs.fsyncSync(fd);
        close();
        if (force) fs.renameSync(tmp, file);
        else fs.linkSync(tmp, file);
      } catch (err) {
        abort();
        throw describe(err, file);
      }
      abort(); // the temporary name, once linked
    },
    abort,
  };
}

/** Writes one file atomically; see {@link writeFilesAtomic}. */
export function writeFileAtomic(file: OutputFile, force: boolean): void {
  writeFilesAtomic([file], force);
}

/**
 * Creates a directory (and parents) if missing; `mode` 0o700 for directories
 * that will hold keys. An existing directory is left as it is. With `root`
 * (the directory the user named, which `dir` lies under), every directory
 * below `root` down to `dir` must be a real directory, never a symbolic
 * link (see {@link refuseLinks}); `root` itself may be one.
 */
export function ensureDir(dir: string, mode = 0o755, root?: string): void {
  if (probes.running > 0) throw new Error("probe run: nothing is written");
  const fs = nodeFs();
  if (root !== undefined) {
    ensureDir(root, mode);
    refuseLinks(path.join(dir, "x"), root);
  }
  try {
    fs.mkdirSync(dir, { recursive: true, mode });
  } catch (err) {
    throw describe(err, dir);
  }
  if (!isDirectory(dir)) throw new InputError(`${dir}: not a directory`);
  // Made meanwhile by someone else? Checked again: mkdir -p follows links.
  if (root !== undefined) refuseLinks(path.join(dir, "x"), root);
}

/**
 * Creates the directory a file is to be written into (and its parents) when
 * missing, mode 0700 as for `--out-dir`: `--out FILE` and `--out-dir DIR`
 * treat missing directories the same way.
 */
export function ensureParentDir(file: string): void {
  const dir = path.dirname(file);
  if (dir !== "." && dir !== "" && !isDirectory(dir)) ensureDir(dir, 0o700);
}

/**
 * Creates the symlink `link` → `target` in one step: directly without
 * `force` (fails if anything is there), else through a temporary link
 * renamed over it. A directory is never replaced.
 */
export function symlinkAtomic(
  target: string,
  link: string,
  force: boolean,
  root?: string,
): void {
  const fs = nodeFs();
  if (probes.running > 0) throw new Error("probe run: nothing is written");
  // The link itself may be replaced (it is what this writes); the directories to it may not.
  if (root !== undefined) refuseLinks(path.join(path.dirname(link), "x"), root);
  try {
    if (fs.lstatSync(link).isDirectory()) throw new InputError(`${link}: is a directory`);
  } catch (e) {
    if (e instanceof InputError) throw e;
  }
  try {
    if (!force) {
      fs.symlinkSync(target, link);
      return;
    }
    const tmp = path.join(
      path.dirname(link),
      `.${path.basename(link)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`,
    );
    fs.symlinkSync(target, tmp);
    try {
      fs.renameSync(tmp, link);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new InputError(
      `${link}: ${
        code === "EEXIST"
          ? "already exists (use --force to overwrite)"
          : (e as Error).message.split("\n")[0]
      }`,
    );
  }
}

/** Deepest directory level {@link walkFiles} descends to. */
const MAX_WALK_DEPTH = 16;

/**
 * The regular files under `dir`, recursively, sorted by name, dot-files
 * skipped, symlinks followed (the kubelet's `*-current.pem` are links): what
 * the commands that survey a tree (`doctor`, `certs check-expiration`,
 * `ca rotation-check`) read. An unreadable `dir` is an `InputError`; below
 * it, an unreadable directory, a dangling link or a special file is passed
 * to `onSkip` and left out, never fatal for the rest. A directory reached
 * again through a link (a link to an ancestor, a loop, a second name for a
 * directory already walked) is walked once: its files are listed under the
 * first name met, not once per level of the loop.
 */
export function walkFiles(
  dir: string,
  onSkip: (file: string, reason: string) => void = () => {},
  depth = 0,
  seen: Set<string> = new Set(),
): string[] {
  const fs = nodeFs();
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
    const real = fs.realpathSync(dir);
    if (seen.has(real)) return [];
    seen.add(real);
  } catch (e) {
    if (depth === 0) throw describe(e, dir);
    onSkip(dir, "directory cannot be read");
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    if (n.startsWith(".")) continue;
    const full = path.join(dir, n);
    let st: NodeFs.Stats;
    try {
      st = fs.statSync(full);
    } catch {
      onSkip(full, "dangling link or unreadable");
      continue;
    }
    if (st.isDirectory()) {
      if (depth < MAX_WALK_DEPTH) out.push(...walkFiles(full, onSkip, depth + 1, seen));
      else onSkip(full, `deeper than ${MAX_WALK_DEPTH} levels`);
    } else if (st.isFile()) out.push(full);
    else onSkip(full, "not a regular file");
  }
  return out;
}
