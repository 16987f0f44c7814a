/**
 * Templates of a JSON List's items, for fleets of alike objects (`kubectl get
 * secrets -o json`, `token create -o json`): the items of such a List are the
 * same text but for the contents of their value strings. A template learnt
 * from one item is its text cut at those strings; another item matches it
 * when it is the same text with other plain strings in the same places
 * (each a string `JSON.parse` reads: no raw control character, valid
 * escapes only), so it is the same JSON but for those string values.
 *
 * That gives the item's end without looking at its other characters, and,
 * when the template's item is a Secret that `decodeSecret` takes, the
 * {@link DecodedSecret} it gives (from the values, the rest being known):
 * exactly what `JSON.parse` and `decodeSecret` give for the item, or
 * `undefined` wherever they would refuse it or read it otherwise.
 *
 * @module
 */

import { isObject } from "../base/object.ts";
import { decodeAsciiBase64, decodeBase64Strict, type DecodedSecret } from "./secret.ts";

/** An item's text cut at its value strings (see the module). */
export interface ItemTemplate {
  /**
   * The text between the value strings' contents: `runs[0]` ends with the
   * first value's opening quote, `runs[i]` starts with the i-th value's
   * closing quote (so there is one value fewer than runs).
   */
  runs: string[];
  /**
   * The deepest the runs' brackets (keys' included) go, relative to the
   * item's start, when they never go below it: an item whose values hold
   * no bracket then takes a bracket count from d to at most d + rise and
   * back to d + {@link net}, whatever d. -1 otherwise.
   */
  rise: number;
  /** The runs' brackets opened minus closed. */
  net: number;
  /** How the values make a DecodedSecret (see {@link decodeItem}); absent for other items. */
  secret?: SecretPlan;
  /** The last decoded data value of each value (a fleet repeats most). */
  last: string[];
  lastDecoded: string[];
  /** Items matched so far; from a few on, by {@link ItemTemplate.regex}. */
  hits: number;
  /** Whether the runs are short enough to be made a regex (at most 64 KiB). */
  short: boolean;
  /** The runs with a plain value between each two, as one sticky regex. */
  regex?: RegExp;
  /** The last item's values, when they were all plain. */
  prev: string[] | undefined;
  /** The template with the values the last two items shared written in. */
  alike: Alike | undefined;
  /** Items to match before the next {@link Alike} is made (one that failed waits). */
  wait: number;
  /** Alikes made so far (each wait is longer). */
  made: number;
}

/** A template with the values two items shared in its text (as a fleet's items share most). */
interface Alike {
  /** The item's text with a plain value captured where the two items differed. */
  regex: RegExp;
  /** The values captured, by number. */
  vary: number[];
  /** Every value, as in the items that made it (those in {@link vary} are overwritten). */
  values: string[];
  /** The Secret those values give (decodeItem), when they give one. */
  secret?: DecodedSecret;
  /** What each captured value is in the Secret (see Field), and for data which entry. */
  field: number[];
}

// What a value is in a Secret's fields (Alike.field); data entries are DATA + their index.
const OTHER = 0, KIND = 1, API_VERSION = 2, NAME = 3, NAMESPACE = 4, TYPE = 5, DELETION = 6;
const DATA = 7;

/** Which value (index, -1 for absent or null) is which field decodeSecret reads. */
interface SecretPlan {
  kind: number;
  apiVersion: number;
  name: number;
  namespace: number;
  type: number;
  deletion: number;
  /** `data`'s entries then `stringData`'s, in `Object.keys` order; slot -1 for null. */
  keys: string[];
  slots: number[];
  base64: boolean[];
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Whether the quote at `q` is escaped (an odd run of backslashes before it). */
function escaped(b: string, q: number): boolean {
  let k = q - 1;
  while (k >= 0 && b.charCodeAt(k) === 0x5c) k--;
  return ((q - 1 - k) & 1) === 1;
}

/**
 * The template of one item (a JSON object, its whole text), or undefined
 * when it is not valid JSON or not an object.
 *
 * @example
 * ```ts
 * import { learnItem } from "./json_items.ts";
 * learnItem('{"kind": "Secret", "n": 1}')!.runs; // ['{"kind": "', '", "n": 1}']
 * ```
 */
export function learnItem(raw: string): ItemTemplate | undefined {
  if (raw.charCodeAt(0) !== 0x7b) return undefined;
  const runs: string[] = [];
  let from = 0, p = 0;
  for (;;) {
    // Outside strings: the next quote opens one, the next unescaped quote closes it.
    const open = raw.indexOf('"', p);
    if (open < 0) break;
    let close = raw.indexOf('"', open + 1);
    while (close >= 0 && escaped(raw, close)) close = raw.indexOf('"', close + 1);
    if (close < 0) return undefined;
    let k = close + 1;
    while (k < raw.length && isSpace(raw.charCodeAt(k))) k++;
    if (raw.charCodeAt(k) !== 0x3a) {
      // A value (a key is followed by a colon).
      runs.push(raw.slice(from, open + 1));
      from = close;
    }
    p = close + 1;
  }
  runs.push(raw.slice(from));
  // The item with its values replaced by their numbers: where each value is.
  let probeText = runs[0]!;
  for (let i = 1; i < runs.length; i++) probeText += String(i - 1) + runs[i];
  let probe: unknown;
  try {
    probe = JSON.parse(probeText);
  } catch {
    return undefined;
  }
  if (!isObject(probe)) return undefined;
  let depth = 0, rise = 0, below = false;
  for (const c of probeText.match(/[[\]{}]/g) ?? []) {
    depth += c === "[" || c === "{" ? 1 : -1;
    if (depth < 0) below = true;
    if (depth > rise) rise = depth;
  }
  const template: ItemTemplate = {
    runs: runs.map(own),
    rise: below ? -1 : rise,
    net: depth,
    last: [],
    lastDecoded: [],
    hits: 0,
    short: probeText.length <= 1 << 16,
    prev: undefined,
    alike: undefined,
    wait: 0,
    made: 0,
  };
  const plan = secretPlan(probe);
  if (plan !== undefined) template.secret = plan;
  return template;
}

/** A string of its own (a slice would keep the text it was cut from alive). */
const own = (s: string) => (s.length >= 13 ? (s + " ").slice(0, -1) : s);

/** The value number a probe's string stands for; -1 for absent or null; NaN for anything else. */
function slot(v: unknown): number {
  if (v === undefined || v === null) return -1;
  return typeof v === "string" ? Number(v) : NaN;
}

/**
 * How decodeSecret reads an item of this shape, when it reads every such
 * item without refusing it for its shape (its values are checked per item).
 */
function secretPlan(probe: Record<string, unknown>): SecretPlan | undefined {
  if (typeof probe.kind !== "string" || probe.apiVersion === null) return undefined;
  const kind = Number(probe.kind);
  const apiVersion = slot(probe.apiVersion);
  const type = slot(probe.type);
  let name = -1, namespace = -1, deletion = -1;
  if (probe.metadata !== undefined) {
    const meta = probe.metadata;
    if (!isObject(meta)) return undefined;
    name = slot(meta.name);
    namespace = slot(meta.namespace);
    deletion = slot(meta.deletionTimestamp);
  }
  const keys: string[] = [], slots: number[] = [], base64: boolean[] = [];
  for (const field of ["data", "stringData"] as const) {
    const map = probe[field];
    if (map === undefined || map === null) continue;
    if (!isObject(map)) return undefined;
    for (const key of Object.keys(map)) {
      keys.push(key);
      slots.push(slot(map[key]));
      base64.push(field === "data");
    }
  }
  const plan = { kind, apiVersion, name, namespace, type, deletion, keys, slots, base64 };
  for (const n of [kind, apiVersion, name, namespace, type, deletion, ...slots]) {
    if (Number.isNaN(n)) return undefined;
  }
  return plan;
}

// A string's contents up to its closing quote: plain (no bracket either), or with JSON's escapes.
// deno-lint-ignore no-control-regex
const PLAIN = /[^"\\\x00-\x1f[\]{}]*"/y;
// deno-lint-ignore no-control-regex
const ESCAPED = /(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/**
 * Whether the values of the last item {@link matchItem} matched were all
 * plain (no escape, no bracket): its brackets are then the runs'.
 */
export let matchedPlain = true;

/** Whether the last item {@link matchItem} matched was matched by the template's Alike. */
let matchedAlike = false;

/**
 * Matches `text` at `start` against `template`: the end of the item, or -1
 * when it does not match (it is then read the general way). With `values`,
 * the values' contents (escapes undone) are put there.
 *
 * @example
 * ```ts
 * import { learnItem, matchItem } from "./json_items.ts";
 * const t = learnItem('{"kind": "Secret"}')!;
 * const values: string[] = [];
 * matchItem(t, '[{"kind": "Other"}]', 1, values); // 18
 * values; // ["Other"]
 * ```
 */
export function matchItem(
  template: ItemTemplate,
  text: string,
  start: number,
  values?: string[],
): number {
  matchedPlain = true;
  matchedAlike = false;
  const alike = template.alike;
  if (alike !== undefined) {
    alike.regex.lastIndex = start;
    const m = alike.regex.exec(text);
    if (m !== null) {
      matchedAlike = true;
      if (values !== undefined) {
        const all = alike.values, vary = alike.vary;
        for (let i = 0; i < all.length; i++) values[i] = all[i]!;
        for (let j = 0; j < vary.length; j++) values[vary[j]!] = m[j + 1]!;
      }
      return alike.regex.lastIndex;
    }
    const end = matchGeneral(template, text, start, values);
    if (end < 0) return -1; // another item altogether: the Alike stays
    // Other values where the Alike has fixed ones: a new one made later.
    template.alike = undefined;
    template.prev = undefined;
    template.wait = 64 << Math.min(template.made, 16);
    if (values !== undefined) learnAlike(template, values);
    return end;
  }
  const end = matchGeneral(template, text, start, values);
  if (end >= 0 && values !== undefined) learnAlike(template, values);
  return end;
}

/** {@link matchItem} by the template's runs, its values read whatever they are. */
function matchGeneral(
  template: ItemTemplate,
  text: string,
  start: number,
  values?: string[],
): number {
  const regex = template.regex;
  if (regex !== undefined) {
    // One native match for an item with plain values (the same outcome as the steps below).
    regex.lastIndex = start;
    const m = regex.exec(text);
    if (m !== null) {
      if (values !== undefined) { for (let i = 1; i < m.length; i++) values[i - 1] = m[i]!; }
      return regex.lastIndex;
    }
  }
  const runs = template.runs;
  let p = start;
  let run = runs[0]!;
  if (text.slice(p, p + run.length) !== run) return -1;
  p += run.length;
  for (let i = 1; i < runs.length; i++) {
    PLAIN.lastIndex = p;
    let q: number;
    if (PLAIN.test(text)) {
      q = PLAIN.lastIndex - 1;
      if (values !== undefined) values[i - 1] = text.slice(p, q);
    } else {
      ESCAPED.lastIndex = p;
      if (!ESCAPED.test(text)) return -1;
      matchedPlain = false;
      q = ESCAPED.lastIndex - 1;
      if (values !== undefined) values[i - 1] = JSON.parse(text.slice(p - 1, q + 1)) as string;
    }
    run = runs[i]!;
    // (A slice compared is one native comparison; startsWith goes code unit by code unit.)
    if (text.slice(q, q + run.length) !== run) return -1;
    p = q + run.length;
  }
  // Compiled once the template has proved itself (a regex costs more to make than a match).
  if (++template.hits === 4 && template.short) {
    template.regex = new RegExp(runs.map(escapeRegex).join(PLAIN_VALUE), "y");
  }
  return p;
}

/**
 * Makes the template's Alike from the last two items' values when both
 * were plain (and the last one failed long enough ago).
 */
function learnAlike(template: ItemTemplate, values: readonly string[]): void {
  const n = template.runs.length - 1;
  if (!matchedPlain) {
    template.prev = undefined;
    return;
  }
  const prev = template.prev;
  template.prev = values.slice(0, n).map(own);
  // Only for a template that has proved itself, and not too long (a regex costs more to make).
  if (prev === undefined || template.hits < 4 || !template.short || template.wait-- > 0) return;
  const vary: number[] = [];
  let source = escapeRegex(template.runs[0]!);
  for (let i = 0; i < n; i++) {
    if (prev[i] === values[i]) source += escapeRegex(prev[i]!);
    else {
      vary.push(i);
      source += PLAIN_VALUE;
    }
    source += escapeRegex(template.runs[i + 1]!);
  }
  const alike: Alike = {
    regex: new RegExp(source, "y"),
    vary,
    values: prev,
    field: vary.map((i) => fieldOf(template.secret, i)),
  };
  matchedAlike = false;
  const secret = decodeItem(template, prev);
  if (secret !== undefined) alike.secret = secret;
  template.alike = alike;
  template.made++;
}

/** What value `i` is in the Secret a plan reads (see Alike.field). */
function fieldOf(plan: SecretPlan | undefined, i: number): number {
  if (plan === undefined) return OTHER;
  const j = plan.slots.indexOf(i);
  if (j >= 0) return DATA + j;
  if (i === plan.kind) return KIND;
  if (i === plan.apiVersion) return API_VERSION;
  if (i === plan.name) return NAME;
  if (i === plan.namespace) return NAMESPACE;
  if (i === plan.type) return TYPE;
  if (i === plan.deletion) return DELETION;
  return OTHER;
}

/** A plain value's contents (see PLAIN), captured. */
const PLAIN_VALUE = '([^"\\\\\\x00-\\x1f[\\]{}]*)';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * The Secret an item matched against `template` gives (`values` from
 * {@link matchItem}): what decodeSecret gives for the item as JSON.parse
 * reads it, or undefined when the template's items are not such Secrets
 * or decodeSecret would refuse this one.
 *
 * @example
 * ```ts
 * import { decodeItem, learnItem, matchItem } from "./json_items.ts";
 * const item = '{"kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "Yg=="}}';
 * const t = learnItem(item)!;
 * const values: string[] = [];
 * matchItem(t, item, 0, values);
 * decodeItem(t, values)!.data.a; // "b"
 * ```
 */
export function decodeItem(
  template: ItemTemplate,
  values: readonly string[],
): DecodedSecret | undefined {
  const plan = template.secret;
  if (plan === undefined) return undefined;
  const alike = template.alike;
  if (matchedAlike && alike !== undefined) {
    return alike.secret === undefined ? undefined : decodeAlike(template, plan, alike, values);
  }
  if (values[plan.kind] !== "Secret") return undefined;
  if (plan.apiVersion >= 0 && values[plan.apiVersion] !== "v1") return undefined;
  const data: Record<string, string> = {};
  const { keys, slots } = plan;
  for (let i = 0; i < keys.length; i++) {
    const s = slots[i]!;
    let value: string | undefined = "";
    if (s >= 0) {
      value = dataValue(template, plan, i, values[s]!);
      if (value === undefined) return undefined; // refused by decodeSecret
    }
    setKey(data, keys[i]!, value);
  }
  const out: DecodedSecret = {
    name: plan.name >= 0 ? own(values[plan.name]!) : "",
    namespace: plan.namespace >= 0 ? own(values[plan.namespace]!) : "",
    type: (plan.type >= 0 ? own(values[plan.type]!) : "") || "Opaque",
    data,
  };
  if (plan.deletion >= 0) out.deletionTimestamp = own(values[plan.deletion]!);
  return out;
}

/**
 * A `data` value as decodeSecret decodes it, the last one decoded for key
 * `i` kept (a fleet repeats most values); undefined when decodeSecret
 * refuses it.
 */
function dataValue(
  template: ItemTemplate,
  plan: SecretPlan,
  i: number,
  v: string,
): string | undefined {
  if (!plan.base64[i]) return own(v);
  if (v === template.last[i]) return template.lastDecoded[i]!;
  const decoded = decodeAsciiBase64(v) ?? decodeBase64Strict(v);
  if (decoded === undefined) return undefined;
  template.last[i] = own(v);
  template.lastDecoded[i] = decoded;
  return decoded;
}

/**
 * {@link decodeItem} for an item its template's Alike matched: the Alike's
 * Secret with the values that vary put in as decodeItem puts them.
 */
function decodeAlike(
  template: ItemTemplate,
  plan: SecretPlan,
  alike: Alike,
  values: readonly string[],
): DecodedSecret | undefined {
  const base = alike.secret!;
  const data = { ...base.data };
  let { name, namespace, type } = base;
  let deletion = base.deletionTimestamp;
  const { vary, field } = alike;
  for (let j = 0; j < vary.length; j++) {
    const v = values[vary[j]!]!;
    const f = field[j]!;
    if (f >= DATA) {
      const i = f - DATA;
      const value = dataValue(template, plan, i, v);
      if (value === undefined) return undefined; // refused by decodeSecret
      setKey(data, plan.keys[i]!, value);
    } else if (f === KIND) {
      if (v !== "Secret") return undefined;
    } else if (f === API_VERSION) {
      if (v !== "v1") return undefined;
    } else if (f === NAME) name = own(v);
    else if (f === NAMESPACE) namespace = own(v);
    else if (f === TYPE) type = own(v) || "Opaque";
    else if (f === DELETION) deletion = own(v);
  }
  const out: DecodedSecret = { name, namespace, type, data };
  if (deletion !== undefined) out.deletionTimestamp = deletion;
  return out;
}

// As decodeSecret sets keys: `__proto__` defined, not assigned (that would set the prototype).
function setKey(map: Record<string, string>, key: string, value: string): void {
  if (key !== "__proto__") map[key] = value;
  else {
    Object.defineProperty(map, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}
