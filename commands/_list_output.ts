/**
 * Output of bulk commands written as it is produced, in the bytes a
 * rendering of the whole gives: `cert inspect`, `cert verify` and
 * `csr inspect` print each report as it is made instead of keeping every
 * parsed object until the end.
 *
 * Output is held in memory up to {@link HOLD_BYTES} first: a run whose
 * output stays below that behaves exactly as a run that prints at its end
 * (a refusal midway leaves stdout empty, as the house rules want); a larger
 * run writes through from then on, and a refusal after that point leaves
 * what was printed before it.
 *
 * @module
 */

import { MAX_INPUT_BYTES } from "../lib/base/limits.ts";

/** Output held before it is written through. */
export const HOLD_BYTES = MAX_INPUT_BYTES;

/** Text written through once more than {@link HOLD_BYTES} of it came. */
export class HeldOutput {
  #held: string[] = [];
  #size = 0;
  #through = false;

  constructor(private readonly sink: (text: string) => void, private readonly hold = HOLD_BYTES) {}

  write(text: string): void {
    if (text === "") return;
    if (this.#through) {
      this.sink(text);
      return;
    }
    this.#held.push(text);
    this.#size += text.length;
    if (this.#size > this.hold) this.#flush();
  }

  /** The end of a run that succeeded: what is still held is written. */
  end(): void {
    this.#flush();
  }

  #flush(): void {
    this.#through = true;
    if (this.#held.length) this.sink(this.#held.join(""));
    this.#held = [];
  }
}

/** What {@link DataListWriter} renders with (lib/k8s/manifest.ts, loaded when needed). */
type Manifest = typeof import("../lib/k8s/manifest.ts");

/**
 * A {@link DataListWriter}; the YAML and JSON writers are loaded only now
 * (text output does not need them).
 */
export async function dataListWriter(
  format: "json" | "yaml",
  out: HeldOutput,
  oneAlone: boolean,
): Promise<DataListWriter> {
  return new DataListWriter(format, out, oneAlone, await import("../lib/k8s/manifest.ts"));
}

/**
 * Values rendered one by one as `renderData` renders all of them (`toJson`
 * or `toYaml` of an array; with `oneAlone`, of the value itself when there
 * is exactly one, as `renderData(xs.length === 1 ? xs[0] : xs)` gives).
 */
export class DataListWriter {
  #count = 0;
  #first: unknown;

  constructor(
    private readonly format: "json" | "yaml",
    private readonly out: HeldOutput,
    private readonly oneAlone: boolean,
    private readonly m: Manifest,
  ) {}

  add(value: unknown): void {
    this.#count++;
    if (this.oneAlone && this.#count === 1) {
      this.#first = value; // alone or the array's first: not known yet
      return;
    }
    if (this.oneAlone && this.#count === 2) {
      this.#element(this.#first, 1);
      this.#first = undefined;
    }
    this.#element(value, this.#count);
  }

  end(): void {
    const { toJson, toYaml } = this.m;
    if (this.#count === 0) this.out.write(this.format === "json" ? toJson([]) : toYaml([]));
    else if (this.oneAlone && this.#count === 1) {
      this.out.write(this.format === "json" ? toJson(this.#first) : toYaml(this.#first));
    } else if (this.format === "json") this.out.write("\n]\n");
    this.out.end();
  }

  /** The `n`th element (from 1) of the array. */
  #element(value: unknown, n: number): void {
    if (this.format === "yaml") {
      this.out.write(this.m.toYaml([value]));
      return;
    }
    // toJson's array: `[`, each element indented four more spaces, `,` between, `]`.
    // JSON strings hold no raw \n, so every line is indented; only \n starts a line (a /^/m regex
    // would also indent after a raw U+2028/U+2029, which JSON.stringify leaves in strings).
    const text = indentLines(JSON.stringify(this.m.sortKeys(value), null, 4), "    ");
    this.out.write((n === 1 ? "[\n" : ",\n") + text);
  }
}

/**
 * Objects written one by one in the shape `renderInInputShape(objects,
 * wasList, format)` gives all of them: a `v1` `List` (YAML or JSON) when the
 * input was one, else a `---` stream (YAML), or one object alone or a `v1`
 * `List` (JSON). Nothing is written before the first object.
 */
export class ShapeWriter {
  #count = 0;
  #first: unknown;

  constructor(
    private readonly m: Manifest,
    private readonly format: "json" | "yaml",
    private readonly wasList: boolean,
    private readonly write: (text: string) => void,
  ) {}

  add(obj: unknown): void {
    this.#count++;
    if (this.format === "yaml") {
      if (!this.wasList) {
        this.write((this.#count > 1 ? "---\n" : "") + this.m.toYaml(obj));
        return;
      }
      const text = this.m.toYaml({ items: [obj] });
      if (!text.startsWith("items:\n")) throw new Error("unexpected YAML for a List item");
      this.write((this.#count === 1 ? "apiVersion: v1\nitems:\n" : "") + text.slice(7));
      return;
    }
    if (!this.wasList && this.#count === 1) {
      this.#first = obj; // alone, or the List's first: not known yet
      return;
    }
    if (!this.wasList && this.#count === 2) this.#item(this.#first, 1);
    this.#item(obj, this.#count);
  }

  end(): void {
    if (this.#count === 0) return;
    if (this.format === "yaml") {
      if (this.wasList) this.write('kind: List\nmetadata:\n  resourceVersion: ""\n');
    } else if (!this.wasList && this.#count === 1) this.write(this.m.toJson(this.#first));
    else {
      this.write(
        `\n    ],\n    "kind": "List",\n    "metadata": {${
          this.wasList ? '\n        "resourceVersion": ""\n    ' : ""
        }}\n}\n`,
      );
    }
  }

  /** The `n`th (from 1) item of a JSON List. */
  #item(obj: unknown, n: number): void {
    const text = indentLines(JSON.stringify(this.m.sortKeys(obj), null, 4), "        ");
    this.write((n === 1 ? '{\n    "apiVersion": "v1",\n    "items": [\n' : ",\n") + text);
  }
}

/** `text` with `pad` before each line; lines end at \n only (JSON's line breaks). */
function indentLines(text: string, pad: string): string {
  return pad + text.replaceAll("\n", "\n" + pad);
}
