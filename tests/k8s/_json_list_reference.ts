/**
 * The JSON List reader as it was before lib/k8s/json_stream.ts found items
 * from quote to quote and by template (commit b099df4): a character-by-
 * character scanner, kept here as the reference the new one is held to
 * (the same parts, in the same blocks, the same errors).
 *
 * @module
 */

import { InputError } from "../../lib/base/errors.ts";
import { MAX_INPUT_BYTES } from "../../lib/base/limits.ts";

/** Deepest bracket nesting (the bound of `parseManifests`, `MAX_DEPTH`). */
const MAX_NESTING = 256;

/** Most bytes of the List's fields other than `items`. */
const MAX_OTHER_FIELDS = 1 << 20;

/** One part handed out (see `ManifestChunk.list`). */
export interface JsonListPart {
  /** JSON text: some items as a List, or (the last part) the List's other fields. */
  text: string;
  list: { document: number; itemsBefore: number; end: boolean; json: true };
}

const enum S {
  Start,
  Key,
  KeyOrEnd,
  Colon,
  Value,
  ItemsOpen,
  ItemOrEnd,
  Item,
  ItemSep,
  AfterValue,
  Done,
}

/**
 * `s` in a string of its own: a slice would keep the whole block it was cut
 * from alive (the first block of a long List is 16 MiB).
 */
const copy = (s: string) => (s + " ").slice(0, -1);

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Reads one JSON document (the whole input) that must be a `List`, in
 * blocks: {@link push} each block, then {@link finish} at the end of the
 * input; both return the parts complete so far.
 *
 * @example
 * ```ts
 * import { ReferenceJsonListReader } from "./_json_list_reference.ts";
 * const r = new ReferenceJsonListReader("in.json", 1, 16);
 * const parts = [...r.push('{"items":[{"a":1},{"b":2}],"kind":"List"}'), ...r.finish()];
 * parts.map((p) => p.text); // ['{"kind":"List","items":[{"a":1}]}', '{"kind":"List","items":[{"b":2}]}', '{"kind":"List"}']
 * ```
 */
export class ReferenceJsonListReader {
  #buf = "";
  #pos = 0; // next character of #buf to look at
  #state = S.Start;
  #start = 0; // where the token being scanned starts in #buf
  // Lexical state inside a value or key being scanned.
  #depth = 0;
  #inString = false;
  #escape = false;
  #key = "";
  #seenItems = false;
  #others: string[] = [];
  #othersBytes = 0;
  #items: string[] = [];
  #itemsBytes = 0;
  #itemsBefore = 0;
  #offset = 0; // characters dropped from #buf
  #bracketDepth = 0; // parseManifests' bracket count, over the whole text
  #fed = false;

  /**
   * @param source the input's name, for messages
   * @param document the List's document number in the input (1: JSON is one document)
   * @param pieceBytes about how much of the items one part holds
   */
  constructor(
    readonly source: string,
    readonly document: number,
    readonly pieceBytes = 1 << 20,
  ) {}

  /** Feeds the next block of text; returns the parts it completes. */
  push(text: string): JsonListPart[] {
    // A byte order mark at the very start is dropped, as parseManifests drops it.
    if (!this.#fed && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text !== "") this.#fed = true;
    this.#countBrackets(text);
    this.#buf = this.#buf.slice(this.#start) + text;
    this.#pos -= this.#start;
    this.#offset += this.#start;
    this.#start = 0;
    const out: JsonListPart[] = [];
    this.#scan(out, false);
    return out;
  }

  /** The end of the input: the last parts (refuses a List left unfinished). */
  finish(): JsonListPart[] {
    const out: JsonListPart[] = [];
    this.#scan(out, true);
    if (this.#state !== S.Done) throw this.#invalid();
    this.#flush(out);
    if (!this.#seenItems) throw this.#tooLarge();
    out.push({
      text: "{" + this.#others.join(",") + "}",
      list: { document: this.document, itemsBefore: this.#itemsBefore, end: true, json: true },
    });
    return out;
  }

  #tooLarge(): InputError {
    return new InputError(`${this.source}: JSON document larger than ${MAX_INPUT_BYTES} bytes`);
  }

  #invalid(): InputError {
    return new InputError(`${this.source}: document ${this.document} is not valid JSON`);
  }

  /** parseManifests' checkBracketDepth, carried across blocks. */
  #countBrackets(text: string): void {
    let d = this.#bracketDepth;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5b || c === 0x7b) {
        if (++d > MAX_NESTING) {
          throw new InputError(`${this.source}: nested more than ${MAX_NESTING} levels deep`);
        }
      } else if ((c === 0x5d || c === 0x7d) && d > 0) d--;
    }
    this.#bracketDepth = d;
  }

  #flush(out: JsonListPart[]): void {
    if (this.#items.length === 0) return;
    out.push({
      text: '{"kind":"List","items":[' + this.#items.join(",") + "]}",
      list: { document: this.document, itemsBefore: this.#itemsBefore, end: false, json: true },
    });
    this.#itemsBefore += this.#items.length;
    this.#items = [];
    this.#itemsBytes = 0;
  }

  /**
   * Scans a value from #start: true when it ended before #pos (a scalar ends
   * at the first character that cannot be part of it; at the end of the
   * input with `eof`).
   */
  #value(eof: boolean): boolean {
    const b = this.#buf;
    if (this.#pos === this.#start) {
      const c = b.charCodeAt(this.#pos);
      this.#depth = 0;
      this.#inString = false;
      this.#escape = false;
      if (c === 0x22) {
        this.#inString = true;
        this.#pos++;
      } else if (c !== 0x7b && c !== 0x5b) {
        // A number, true, false or null (JSON.parse judges it).
        while (this.#pos < b.length) {
          const d = b.charCodeAt(this.#pos);
          if (isSpace(d) || d === 0x2c || d === 0x5d || d === 0x7d) return true;
          this.#pos++;
        }
        return eof;
      }
    }
    if (this.#pos > this.#start && !this.#inString && this.#depth === 0) {
      // A scalar continued from an earlier block.
      while (this.#pos < b.length) {
        const d = b.charCodeAt(this.#pos);
        if (isSpace(d) || d === 0x2c || d === 0x5d || d === 0x7d) return true;
        this.#pos++;
      }
      return eof;
    }
    for (; this.#pos < b.length; this.#pos++) {
      const c = b.charCodeAt(this.#pos);
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === 0x5c) this.#escape = true;
        else if (c === 0x22) {
          this.#inString = false;
          if (this.#depth === 0) {
            this.#pos++;
            return true;
          }
        }
      } else if (c === 0x22) this.#inString = true;
      else if (c === 0x7b || c === 0x5b) this.#depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--this.#depth === 0) {
          this.#pos++;
          return true;
        }
      }
    }
    return false;
  }

  #scan(out: JsonListPart[], eof: boolean): void {
    const b = this.#buf;
    for (;;) {
      if (this.#state === S.Item || this.#state === S.Value || this.#state === S.Key) {
        if (this.#pos === this.#start) {
          while (this.#pos < b.length && isSpace(b.charCodeAt(this.#pos))) this.#pos++;
          this.#start = this.#pos;
          if (this.#pos >= b.length) return;
        }
        if (!this.#value(eof)) {
          if (eof) throw this.#invalid();
          this.#checkSize();
          return;
        }
        const raw = b.slice(this.#start, this.#pos);
        this.#start = this.#pos;
        if (this.#state === S.Key) {
          if (raw.charCodeAt(0) !== 0x22) throw this.#invalid();
          try {
            this.#key = JSON.parse(raw) as string;
          } catch {
            throw this.#invalid();
          }
          if (this.#key === "items") {
            if (this.#seenItems) throw this.#tooLarge(); // the last would win: not streamed
            this.#seenItems = true;
          } else this.#addOther(raw + ":");
          this.#state = S.Colon;
        } else if (this.#state === S.Value) {
          this.#others[this.#others.length - 1] += copy(raw);
          this.#addBytes(raw.length);
          this.#state = S.AfterValue;
        } else {
          if (raw.length > MAX_INPUT_BYTES - 64) {
            throw new InputError(
              `${this.source}: document ${this.document} larger than ${MAX_INPUT_BYTES} bytes`,
            );
          }
          this.#items.push(raw);
          this.#itemsBytes += raw.length;
          if (this.#itemsBytes >= this.pieceBytes) this.#flush(out);
          this.#state = S.ItemSep;
        }
        continue;
      }
      // Between tokens: skip white space.
      while (this.#pos < b.length && isSpace(b.charCodeAt(this.#pos))) this.#pos++;
      this.#start = this.#pos;
      if (this.#pos >= b.length) return;
      const c = b.charCodeAt(this.#pos);
      switch (this.#state) {
        case S.Start:
          if (c !== 0x7b) throw c === 0x5b ? this.#tooLarge() : this.#invalid();
          this.#state = S.KeyOrEnd;
          break;
        case S.KeyOrEnd:
          if (c === 0x7d) {
            this.#state = S.Done;
            break;
          }
          this.#state = S.Key;
          continue;
        case S.Colon:
          if (c !== 0x3a) throw this.#invalid();
          this.#state = this.#key === "items" ? S.ItemsOpen : S.Value;
          break;
        case S.ItemsOpen:
          if (c !== 0x5b) throw this.#tooLarge(); // not an array: not a List read item by item
          this.#state = S.ItemOrEnd;
          break;
        case S.ItemOrEnd:
          if (c === 0x5d) {
            this.#state = S.AfterValue;
            break;
          }
          this.#state = S.Item;
          continue;
        case S.ItemSep:
          if (c === 0x2c) this.#state = S.Item;
          else if (c === 0x5d) this.#state = S.AfterValue;
          else throw this.#invalid();
          break;
        case S.AfterValue:
          if (c === 0x2c) this.#state = S.Key;
          else if (c === 0x7d) this.#state = S.Done;
          else throw this.#invalid();
          break;
        case S.Done:
          throw this.#invalid(); // text after the document
        default:
          throw this.#invalid();
      }
      this.#pos++;
      this.#start = this.#pos;
    }
  }

  #addOther(text: string): void {
    this.#others.push(copy(text));
    this.#addBytes(text.length);
  }

  #addBytes(n: number): void {
    this.#othersBytes += n;
    if (this.#othersBytes > MAX_OTHER_FIELDS) throw this.#tooLarge();
  }

  /** A token still being scanned may not grow past the bounds. */
  #checkSize(): void {
    const n = this.#pos - this.#start;
    if (this.#state === S.Item && n > MAX_INPUT_BYTES - 64) {
      throw new InputError(
        `${this.source}: document ${this.document} larger than ${MAX_INPUT_BYTES} bytes`,
      );
    }
    if (this.#state !== S.Item && this.#othersBytes + n > MAX_OTHER_FIELDS) throw this.#tooLarge();
  }
}
