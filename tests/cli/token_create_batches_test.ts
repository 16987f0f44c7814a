/**
 * token create's YAML is made a batch of Secrets at a time (commands/token_create.ts,
 * YAML_BATCH = 2048): across batch boundaries the stream is the same as one made whole —
 * one `---` between documents, every document the same Secret but for its token.
 */
import assert from "node:assert/strict";
import { loadAll } from "js-yaml";
import { runCli } from "../_cli.ts";

for (const extra of [[], ["--string-data"]]) {
  Deno.test(`CLI token create --count 4500 ${extra.join(" ")} writes one stream across its batches`, async () => {
    const r = await runCli([
      "token",
      "create",
      "--count",
      "4500",
      "--now",
      "2026-01-01T00:00:00Z",
      "--description",
      "batch: yes",
      ...extra,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.ok(!r.stdout.startsWith("---"), "no separator before the first document");
    assert.ok(!/^---\n---$/m.test(r.stdout), "no empty document at a batch boundary");
    const docs = loadAll(r.stdout) as Record<string, Record<string, string>>[];
    assert.equal(docs.length, 4500);
    const field = extra.length ? "stringData" : "data";
    const ids = new Set<string>();
    // Every document is the first one with its own token-id and token-secret.
    const strip = (d: Record<string, Record<string, string>>) => {
      const { "token-id": id, "token-secret": _s, ...rest } = d[field]!;
      ids.add(id!);
      return JSON.stringify({ ...d, metadata: {}, [field]: rest });
    };
    const first = strip(docs[0]!);
    for (const d of docs) assert.equal(strip(d), first);
    assert.equal(ids.size, 4500);
    // The text of a document is the first one's with its token: same line count everywhere.
    const lines = r.stdout.split(/^---\n/m).map((d) => d.split("\n").length);
    assert.deepEqual(new Set(lines), new Set([lines[0]]));
  });
}
