/**
 * `csr sign` over inputs larger than one whole read (16 MiB): CSR objects are
 * read piece by piece (commands/_io.ts `readManifestFile`; a kubectl-style
 * `List` item by item), signed, and written out as they go, so 100,000 CSRs
 * run in bounded memory. Inputs up to 16 MiB never come here: `csr sign`
 * reads them whole, as it always has.
 *
 * The output has the shape `csr sign` gives a whole input: a `v1` `List`
 * (YAML or JSON) for a List input, a `---` stream (YAML) or a `List` (JSON)
 * for a stream of objects, certificates for `-o pem`; nothing when nothing
 * was signed.
 *
 * @module
 */

import { InputError, type JoinkitError } from "../lib/base/errors.ts";
import type { ApprovalPolicy } from "../lib/kubelet/approval_policy.ts";
import {
  mapOrdered,
  type ObjectOutcome,
  signObject,
  type SignOptions,
} from "../lib/kubelet/sign_batch.ts";
import type { Context } from "./_command.ts";
import { gateForSigning } from "./_approval_policy.ts";
import { ensureParentDir, openAtomicOutput, type TextChunk } from "./_io.ts";
import { progress } from "./_progress.ts";

/** How to sign and where to write. */
export interface StreamOptions {
  /** The chunks read so far (the first 16 MiB), then the rest of the input. */
  read: TextChunk[];
  rest: Iterator<TextChunk>;
  /** The input's name. */
  name: string;
  format: "yaml" | "json" | "pem";
  opts: SignOptions;
  policy: ApprovalPolicy | undefined;
  outFile: string | undefined;
  force: boolean;
  /** Objects in flight at once. */
  batch: number;
}

/** Signs a long input piece by piece; returns the exit code. */
export async function signStream(ctx: Context, o: StreamOptions): Promise<number> {
  const { parseManifestChunk, sortKeys, toYaml } = await import("../lib/k8s/manifest.ts");
  const isList = o.read.some((c) => c.list !== undefined) ||
    (/^kind:\s*['"]?[A-Za-z]*List['"]?\s*$/m.test(o.read[0]!.text) &&
      /^items:/m.test(o.read[0]!.text));
  let code = 0;
  let index = 0;
  let items = 0;
  // Nothing is written until something is signed; then the head and what waited.
  let signed = false;
  const waiting: string[] = [];
  let sink: { write(text: string): void; commit(): void; abort(): void } | undefined;
  const open = () => {
    if (o.outFile) {
      ensureParentDir(o.outFile);
      sink = openAtomicOutput(o.outFile, 0o644, o.force);
    } else sink = { write: (t) => ctx.stdout(t), commit() {}, abort() {} };
  };
  const write = (text: string) => {
    if (signed) sink!.write(text);
    else waiting.push(text);
  };
  const head = o.format === "pem"
    ? ""
    : o.format === "json"
    ? '{\n    "apiVersion": "v1",\n    "items": [\n'
    : isList
    ? "apiVersion: v1\nitems:\n"
    : "";
  const tail = o.format === "pem"
    ? ""
    : o.format === "json"
    ? `\n    ],\n    "kind": "List",\n    "metadata": {${
      isList ? '\n        "resourceVersion": ""\n    ' : ""
    }}\n}\n`
    : isList
    ? 'kind: List\nmetadata:\n  resourceVersion: ""\n'
    : "";
  const render = (r: ObjectOutcome) => {
    if (o.format === "pem") {
      if (r.certPem) write(r.certPem);
      return;
    }
    if (o.format === "json") {
      const json = JSON.stringify(sortKeys(r.obj), null, 4).replace(/^/gm, "        ");
      write((items > 0 ? ",\n" : "") + json);
    } else if (isList) {
      const text = toYaml({ items: [r.obj] });
      if (!text.startsWith("items:\n")) throw new Error("unexpected YAML for a List item");
      write(text.slice("items:\n".length));
    } else write((items > 0 ? "---\n" : "") + toYaml(r.obj));
    items++;
  };
  const shown = progress(ctx, "csr sign");
  const counts = { documents: 0, objects: 0 };
  try {
    const chunks = function* () {
      // Handed out once each, so the first 16 MiB are not kept for the whole run.
      for (let c = o.read.shift(); c !== undefined; c = o.read.shift()) yield c;
      for (let c = o.rest.next(); !c.done; c = o.rest.next()) yield c.value;
    };
    for (const chunk of chunks()) {
      const objects = parseManifestChunk(chunk, counts);
      const first = index;
      index += objects.length;
      const results = await mapOrdered(objects, o.batch, (obj, i) => {
        shown.tick();
        const where = `${o.name}: object ${first + i + 1}`;
        const g = o.policy ? gateForSigning(obj, where, o.policy, ctx.now) : undefined;
        if (!g) return signObject(obj, where, o.opts);
        return g.sign ? signObject(g.obj, where, o.opts) : Promise.resolve({ obj, error: g.error });
      });
      for (const settled of results) {
        if (settled.status === "rejected") throw settled.reason;
        const r = settled.value;
        if (r.error) {
          ctx.stderr(`error: ${r.error.message}`);
          code ||= (r.error as JoinkitError).exitCode;
        }
        if (r.certPem && !signed) {
          open();
          signed = true;
          sink!.write(head + waiting.join(""));
          waiting.length = 0;
        }
        render(r);
      }
    }
    shown.done();
    if (index === 0) throw new InputError(`${o.name}: no objects found`);
    if (!signed) return code; // nothing signed: nothing printed
    sink!.write(tail);
    sink!.commit();
    return code;
  } catch (e) {
    shown.done();
    sink?.abort();
    throw e;
  }
}
