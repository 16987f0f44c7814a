/**
 * A JSON `List` too long for one whole read (16 MiB), read item by item: the
 * text is fed in blocks of any size and comes out as parts that
 * `parseManifestChunk` reads as it reads the parts of a YAML List (see
 * `ManifestChunk.list`): `{"kind":"List","items":[…]}` with some of the
 * List's items, copied verbatim, then the List's other fields, to check they
 * make a `List`.
 *
 * The results are those of `JSON.parse` on the whole text (the parser
 * `parseManifests` uses for JSON): each item is parsed on its own by
 * `JSON.parse`, whose result for a value does not depend on what surrounds
 * it; duplicate keys keep the last, in the items and in the List's other
 * fields alike. Nesting is bounded as for a whole input: brackets are
 * counted over the whole text, strings included, as `parseManifests` counts
 * them before it parses. What a whole read accepts and this refuses: a
 * second `items` key (the last would win, after the first's items were
 * handed out), a top-level array, an `items` that is not an array, other
 * fields over 1 MiB, and text that is not JSON at all (a whole read gives
 * such text to the YAML parser).
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { MAX_INPUT_BYTES, MAX_OBJECTS } from "../base/limits.ts";
import { decodeItem, type ItemTemplate, learnItem, matchedPlain, matchItem } from "./json_items.ts";
import type { ChunkCounts, ManifestChunk } from "./manifest.ts";
import type { DecodedSecret } from "./secret.ts";

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

/**
 * The Secrets of a part whose every item is a Secret that decodeSecret
 * takes, read as the part's items were found (see {@link jsonListSecrets}).
 */
const PART_SECRETS = new WeakMap<object, DecodedSecret[]>();

/**
 * The Secrets of a part of a JSON List that {@link JsonListReader} handed
 * out (`chunk.list` is the part's own), when every one of its items is a
 * Secret that `decodeSecret` takes, each read from its template (see
 * lib/k8s/json_items.ts): what `parseManifestChunk` and `decodeSecret` give
 * for the part, with `counts` kept as parseManifestChunk keeps them; else
 * undefined (counts untouched), and the part is read the general way.
 *
 * @example
 * ```ts
 * import { JsonListReader, jsonListSecrets } from "./json_stream.ts";
 * const r = new JsonListReader("in.json", 1, 16);
 * const item = '{"kind":"Secret","metadata":{"name":"s"},"data":{"a":"Yg=="}}';
 * const [part] = r.push(`{"kind":"List","items":[${item}]}`);
 * const chunk = { source: "in.json", text: part!.text, index: 0, last: false, list: part!.list };
 * jsonListSecrets(chunk, { documents: 0, objects: 0 })![0]!.data.a; // "b"
 * ```
 */
export function jsonListSecrets(
  chunk: ManifestChunk,
  counts: ChunkCounts,
): DecodedSecret[] | undefined {
  const list = chunk.list;
  const secrets = list === undefined ? undefined : PART_SECRETS.get(list);
  // (A part over the input bound is refused by the general path.)
  if (secrets === undefined || chunk.text.length > MAX_INPUT_BYTES) return undefined;
  const objectsBefore = chunk.index === 0 ? 0 : counts.objects;
  if (objectsBefore + secrets.length > MAX_OBJECTS) return undefined;
  PART_SECRETS.delete(list!);
  if (chunk.index === 0) counts.documents = 0;
  counts.objects = objectsBefore + secrets.length;
  return secrets;
}

const PART_HEAD = '{"kind":"List","items":[';

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

/** Brackets (parseManifests counts them all, strings included). */
const BRACKET = /[[\]{}]/g;

/** The first bracket of `b` at or after `from`; Infinity when there is none. */
function nextBracket(b: string, from: number): number {
  BRACKET.lastIndex = from;
  return BRACKET.test(b) ? BRACKET.lastIndex - 1 : Infinity;
}

/** What a value's extent depends on outside its strings: quotes and brackets. */
const STRUCTURE = /["[\]{}]/g;

/**
 * Whether the quote at `q` (inside a string) is escaped: an odd run of
 * backslashes before it. The run stops at the string's opening quote at the
 * latest, which is in the buffer (a token being scanned is kept whole).
 */
function escaped(b: string, q: number): boolean {
  let k = q - 1;
  while (b.charCodeAt(k) === 0x5c) k--;
  return ((q - 1 - k) & 1) === 1;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Reads one JSON document (the whole input) that must be a `List`, in
 * blocks: {@link push} each block, then {@link finish} at the end of the
 * input; both return the parts complete so far.
 *
 * @example
 * ```ts
 * import { JsonListReader } from "./json_stream.ts";
 * const r = new JsonListReader("in.json", 1, 16);
 * const parts = [...r.push('{"items":[{"a":1},{"b":2}],"kind":"List"}'), ...r.finish()];
 * parts.map((p) => p.text); // ['{"kind":"List","items":[{"a":1}]}', '{"kind":"List","items":[{"b":2}]}', '{"kind":"List"}']
 * ```
 */
export class JsonListReader {
  #buf = "";
  #pos = 0; // next character of #buf to look at
  #state = S.Start;
  #start = 0; // where the token being scanned starts in #buf
  // Lexical state inside a value or key being scanned.
  #depth = 0;
  #inString = false;
  #key = "";
  #seenItems = false;
  #others: string[] = [];
  #othersBytes = 0;
  #items: string[] = [];
  #itemsBytes = 0;
  // The part's items as they are in the input (with what separates them): the text of the
  // earlier blocks, and where they are in #buf (#run: -1 for none yet).
  #text = "";
  #run = -1;
  #runEnd = 0;
  #itemsBefore = 0;
  #stopAt = Infinity; // #scan stops between tokens from here on (see #stitch)
  #bracketDepth = 0; // parseManifests' bracket count, over the whole text
  #counted = 0; // the brackets of #buf before this are counted
  #next = -1; // the first bracket in #buf at or after #counted (Infinity: none); stale if less
  #template: ItemTemplate | undefined; // of the last item read character by character
  #other: ItemTemplate | undefined; // the one before
  #values: string[] = [];
  // The Secrets the part's items so far give (lib/k8s/json_items.ts); undefined once one does not.
  #secrets: DecodedSecret[] | undefined = [];
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
    const first = !this.#fed;
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text !== "") this.#fed = true;
    this.#endRun();
    const out: JsonListPart[] = [];
    // The block's brackets are all counted before any of its parts is handed out, and a
    // nesting error anywhere in it comes before any other (as when they were counted first).
    try {
      const left = this.#buf.length - this.#start;
      if (left > 0) this.#stitch(out, text, left);
      else {
        // The first block (many reads joined) made flat once: each search would flatten it.
        this.#use(first ? copy(text) : text, this.#start);
      }
      this.#scan(out, false);
    } catch (e) {
      this.#countTo(this.#buf.length);
      throw e;
    }
    this.#countTo(this.#buf.length);
    return out;
  }

  /**
   * Makes `b` the text scanned, `shift` characters of the old one before
   * it (kept positions move back by as many; its brackets are uncounted).
   */
  #use(b: string, shift: number): void {
    this.#endRun();
    this.#buf = b;
    this.#pos -= shift;
    this.#start -= shift;
    this.#counted = Math.max(0, this.#counted - shift);
    this.#next = -1;
  }

  /**
   * Scans the token the last block ended in (its last `left` characters)
   * on a short text made of it and the start of `text`, until the scan is
   * between tokens in `text`: the rest is scanned in `text` itself (a
   * block joined to what is left of the last one would be copied whole).
   */
  #stitch(out: JsonListPart[], text: string, left: number): void {
    const rest = this.#buf.slice(this.#start);
    this.#use("", this.#start);
    this.#counted = left; // (the last block's brackets are counted)
    // (From the length of what is left: a long token is copied about once a block, not again per try.)
    for (let m = Math.max(4096, left);; m *= 2) {
      const whole = m >= text.length;
      const b = copy(rest + (whole ? text : text.slice(0, m)));
      this.#endRun();
      this.#buf = b;
      this.#next = -1;
      this.#stopAt = left;
      try {
        this.#scan(out, false);
      } catch (e) {
        this.#use(text, left); // (its brackets are then counted in `text`)
        throw e;
      } finally {
        this.#stopAt = Infinity;
      }
      if (this.#pos === this.#start && this.#pos >= left) break; // between tokens, in `text`
      if (whole) return; // the token goes on past `text`: kept as it is
    }
    this.#use(text, left);
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

  /** The part's items in #buf so far, added to #text. */
  #endRun(): void {
    if (this.#run < 0) return;
    const run = this.#buf.slice(this.#run, this.#runEnd);
    this.#text = this.#text === "" ? run : this.#text + "," + run;
    this.#run = -1;
  }

  #nested(): InputError {
    return new InputError(`${this.source}: nested more than ${MAX_NESTING} levels deep`);
  }

  /**
   * parseManifests' checkBracketDepth, carried across blocks: counts the
   * brackets of #buf from #counted to `to`, from bracket to bracket.
   */
  #countTo(to: number): void {
    if (this.#counted >= to) return;
    const b = this.#buf;
    if (to - this.#counted <= 32) {
      // A few characters (what separates two items): looked at one by one.
      let d = this.#bracketDepth;
      for (let i = this.#counted; i < to; i++) {
        const c = b.charCodeAt(i);
        if (c === 0x5b || c === 0x7b) {
          if (++d > MAX_NESTING) throw this.#nested();
        } else if ((c === 0x5d || c === 0x7d) && d > 0) d--;
      }
      this.#bracketDepth = d;
      this.#counted = to; // (#next, if less, is now stale)
      return;
    }
    let n = this.#next;
    if (n < this.#counted) n = nextBracket(b, this.#counted);
    let d = this.#bracketDepth;
    while (n < to) {
      const c = b.charCodeAt(n);
      if (c === 0x5b || c === 0x7b) {
        if (++d > MAX_NESTING) throw this.#nested();
      } else if (d > 0) d--;
      n = nextBracket(b, n + 1);
    }
    this.#bracketDepth = d;
    this.#next = n;
    this.#counted = to;
  }

  /**
   * Counts an item from #start to #pos that matched `t` with plain values:
   * its brackets are the template's (see ItemTemplate.rise).
   */
  #countItem(t: ItemTemplate): void {
    this.#countTo(this.#start);
    if (this.#counted !== this.#start || t.rise < 0 || !matchedPlain) {
      this.#countTo(this.#pos);
      return;
    }
    if (this.#bracketDepth + t.rise > MAX_NESTING) throw this.#nested();
    this.#bracketDepth += t.net;
    this.#counted = this.#pos;
  }

  #flush(out: JsonListPart[]): void {
    if (this.#items.length === 0) return;
    const list = {
      document: this.document,
      itemsBefore: this.#itemsBefore,
      end: false,
      json: true as const,
    };
    // The items with what separates them in the input (white space, a comma): the same
    // List, and no copy; with them joined by commas alone where that is too long.
    this.#endRun();
    let text = PART_HEAD + this.#text + "]}";
    if (text.length > MAX_INPUT_BYTES) text = PART_HEAD + this.#items.join(",") + "]}";
    this.#text = "";
    out.push({ text, list });
    if (this.#secrets !== undefined) PART_SECRETS.set(list, this.#secrets);
    this.#secrets = [];
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
    // From quote to quote inside a string, from quote or bracket to the next outside.
    let pos = this.#pos;
    for (;;) {
      if (this.#inString) {
        let q = b.indexOf('"', pos);
        while (q >= 0 && escaped(b, q)) q = b.indexOf('"', q + 1);
        if (q < 0) {
          this.#pos = b.length;
          return false;
        }
        this.#inString = false;
        pos = q + 1;
        if (this.#depth === 0) {
          this.#pos = pos;
          return true;
        }
        continue;
      }
      STRUCTURE.lastIndex = pos;
      if (!STRUCTURE.test(b)) {
        this.#pos = b.length;
        return false;
      }
      pos = STRUCTURE.lastIndex;
      const c = b.charCodeAt(pos - 1);
      if (c === 0x22) this.#inString = true;
      else if (c === 0x7b || c === 0x5b) this.#depth++;
      else if (--this.#depth === 0) {
        this.#pos = pos;
        return true;
      }
    }
  }

  #scan(out: JsonListPart[], eof: boolean): void {
    const b = this.#buf;
    for (;;) {
      if (this.#pos === this.#start && this.#pos >= this.#stopAt) return;
      if (this.#state === S.Item || this.#state === S.Value || this.#state === S.Key) {
        // An item that matches the last item's template ends where the template says.
        let end = -1;
        if (this.#pos === this.#start) {
          while (this.#pos < b.length && isSpace(b.charCodeAt(this.#pos))) this.#pos++;
          this.#start = this.#pos;
          if (this.#pos >= b.length) return;
          if (this.#state === S.Item && this.#template !== undefined) {
            end = matchItem(this.#template, b, this.#pos, this.#values);
            if (end < 0 && this.#other !== undefined) {
              // Two shapes that alternate (token Secrets among others): the one before.
              end = matchItem(this.#other, b, this.#pos, this.#values);
              if (end >= 0) [this.#template, this.#other] = [this.#other, this.#template];
            }
          }
        }
        if (end >= 0) {
          this.#pos = end;
          this.#countItem(this.#template!);
        } else if (!this.#value(eof)) {
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
          if (end < 0) {
            // Read character by character: the next items may be like it.
            const t = learnItem(raw);
            if (t !== undefined) {
              this.#other = this.#template;
              this.#template = t;
              if (matchItem(t, raw, 0, this.#values) === raw.length) end = raw.length;
            }
          }
          if (this.#secrets !== undefined) {
            const s = end >= 0 ? decodeItem(this.#template!, this.#values) : undefined;
            if (s === undefined) this.#secrets = undefined;
            else this.#secrets.push(s);
          }
          this.#items.push(raw);
          this.#itemsBytes += raw.length;
          if (this.#run < 0) this.#run = this.#start - raw.length;
          this.#runEnd = this.#start;
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
