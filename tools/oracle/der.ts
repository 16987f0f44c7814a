/**
 * Small DER helpers for the oracle's generators: encoding names and
 * extensions with any string type, walking a DER tree, and hostile mutations.
 *
 * @module
 */

/** A seeded PRNG (mulberry32) with helpers. */
export class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)]!;
  }
  some<T>(a: readonly T[], p = 0.3): T[] {
    return a.filter(() => this.chance(p));
  }
}

/** Seed for one judgement, so `--only x` replays the same cases. */
export function subSeed(seed: number, name: string): number {
  let h = seed >>> 0;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

export function tlv(tag: number, body: Uint8Array): Uint8Array {
  const n = body.length;
  const len = n < 0x80
    ? [n]
    : n < 0x100
    ? [0x81, n]
    : n < 0x10000
    ? [0x82, n >> 8, n & 0xff]
    : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(1 + len.length + n);
  out[0] = tag;
  out.set(len, 1);
  out.set(body, 1 + len.length);
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function oid(dotted: string): Uint8Array {
  const p = dotted.split(".").map(Number);
  const bytes = [40 * p[0]! + p[1]!];
  for (const v of p.slice(2)) {
    const b = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) b.unshift((x & 0x7f) | 0x80);
    bytes.push(...b);
  }
  return tlv(0x06, new Uint8Array(bytes));
}

export const seq = (...p: Uint8Array[]) => tlv(0x30, concat(...p));
export const set = (...p: Uint8Array[]) => tlv(0x31, concat(...p));
export const utf8 = (s: string) => new TextEncoder().encode(s);
export const hex = (b: Uint8Array) =>
  Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
export const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
export const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** One attribute of a Name: type OID, value tag, value bytes. */
export type Attr = [string, number, Uint8Array];

/** A Name: RDNs of attributes. */
export function name(rdns: Attr[][]): Uint8Array {
  return seq(...rdns.map((rdn) => set(...rdn.map(([o, tag, v]) => seq(oid(o), tlv(tag, v))))));
}

export const CN = "2.5.4.3";
export const O = "2.5.4.10";
export const OU = "2.5.4.11";

/** String tags and odd contents for names. */
export const STRING_TAGS = [0x13, 0x0c, 0x16, 0x14, 0x1e, 0x1c, 0x12, 0x1a];

/** A random string value of a random (mostly valid) type. */
export function oddValue(r: Rng, base: string): [number, Uint8Array] {
  const tag = r.chance(0.5) ? r.pick([0x13, 0x0c]) : r.pick(STRING_TAGS);
  const enc = new TextEncoder();
  const variants: (() => Uint8Array)[] = [
    () => enc.encode(base),
    () => enc.encode(base + r.pick(["_x", "*", "&", "@", "!", " ", "'", "=?", "\u00e9", "\u0000"])),
    () => Uint8Array.from([...enc.encode(base), r.pick([0xe9, 0xff, 0x80, 0xc3, 0x7f, 0x00])]),
    () => {
      const u = [...base].flatMap((c) => [0, c.charCodeAt(0)]);
      if (r.chance(0.3)) {
        u.push(...r.pick([[0xd8, 0x00], [0xff, 0xfe], [0xfd, 0xd0], [0, 0], [0x00]]));
      }
      return Uint8Array.from(u);
    },
    () => Uint8Array.from([...base].flatMap((c) => [0, 0, 0, c.charCodeAt(0)])),
    () => enc.encode(r.pick(["12345", "12 34", "1a", ""])),
  ];
  return [tag, r.pick(variants)()];
}

/** A node of a DER walk. */
export interface Node {
  /** Offset of the tag byte. */
  at: number;
  tag: number;
  /** Offset of the content. */
  start: number;
  end: number;
}

function readLen(b: Uint8Array, i: number): [number, number] | undefined {
  const first = b[i];
  if (first === undefined) return undefined;
  if (first < 0x80) return [first, i + 1];
  const n = first & 0x7f;
  if (n === 0 || n > 3 || i + 1 + n > b.length) return undefined;
  let len = 0;
  for (let k = 0; k < n; k++) len = len * 256 + b[i + 1 + k]!;
  return [len, i + 1 + n];
}

/** Every TLV in `b[from, to)`, recursively, into OCTET/BIT STRINGs that hold DER too. */
export function walk(b: Uint8Array, from = 0, to = b.length, out: Node[] = [], depth = 0): Node[] {
  let i = from;
  while (i < to && depth < 20) {
    const tag = b[i]!;
    if ((tag & 0x1f) === 0x1f) return out;
    const l = readLen(b, i + 1);
    if (!l) return out;
    const [len, start] = l;
    const end = start + len;
    if (end > to) return out;
    out.push({ at: i, tag, start, end });
    if (tag & 0x20) walk(b, start, end, out, depth + 1);
    else if (tag === 0x04 && len > 1 && b[start] === 0x30) walk(b, start, end, out, depth + 1);
    else if (tag === 0x03 && len > 2 && b[start + 1] === 0x30) {
      walk(b, start + 1, end, out, depth + 1);
    }
    i = end;
  }
  return out;
}

/** A hostile variant of `der` and what was done. */
export function mutate(r: Rng, der: Uint8Array): [Uint8Array, string] {
  const nodes = walk(der);
  const strings = nodes.filter((n) =>
    STRING_TAGS.includes(n.tag) || [0x81, 0x82, 0x86].includes(n.tag)
  );
  const copy = () => Uint8Array.from(der);
  const kind = r.int(10);
  switch (kind) {
    case 0: {
      const b = copy();
      const i = r.int(b.length);
      b[i]! ^= 1 << r.int(8);
      return [b, `flip@${i}`];
    }
    case 1: {
      const n = r.int(der.length);
      return [der.slice(0, n), `truncate@${n}`];
    }
    case 2: {
      const i = r.int(der.length + 1);
      const v = r.int(256);
      return [concat(der.slice(0, i), Uint8Array.of(v), der.slice(i)), `insert ${v}@${i}`];
    }
    case 3:
    case 4:
    case 5: {
      if (!strings.length) return mutate(r, der);
      const n = r.pick(strings);
      const b = copy();
      const to = n.tag >= 0x80 ? r.pick([0x81, 0x82, 0x86, 0x87]) : r.pick(STRING_TAGS);
      b[n.at] = to;
      return [b, `tag ${n.tag.toString(16)}->${to.toString(16)}@${n.at}`];
    }
    case 6: {
      if (!strings.length) return mutate(r, der);
      const n = r.pick(strings);
      if (n.end === n.start) return mutate(r, der);
      const b = copy();
      const i = n.start + r.int(n.end - n.start);
      b[i] = r.pick([0xe9, 0xff, 0x80, 0x00, 0x5f, 0x2a, 0x26, 0x0a, 0x2e]);
      return [b, `byte ${b[i]!.toString(16)} in string@${i}`];
    }
    case 7:
      return [concat(der, r.pick([Uint8Array.of(0), Uint8Array.of(0x30, 0)])), "trailing data"];
    case 8: {
      // A length byte off by one somewhere.
      const n = r.pick(nodes);
      const b = copy();
      if (b[n.at + 1]! < 0x80) b[n.at + 1] = (b[n.at + 1]! + (r.chance(0.5) ? 1 : 255)) & 0x7f;
      return [b, `length@${n.at}`];
    }
    default: {
      // Change a small INTEGER or BOOLEAN content.
      const ints = nodes.filter((n) => (n.tag === 0x02 || n.tag === 0x01) && n.end - n.start <= 2);
      if (!ints.length) return mutate(r, der);
      const n = r.pick(ints);
      const b = copy();
      b[n.start] = r.pick([0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe]);
      return [b, `int/bool@${n.at}`];
    }
  }
}
