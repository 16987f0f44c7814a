/**
 * The go125 build overlay, made at build time: each `go125/<path>.patch` (a
 * unified diff against the toolchain's `$GOROOT/src/<path>`, or against
 * `/dev/null` for a file the overlay adds) is applied to the installed
 * toolchain's own source and written under `.tmp/oracle/overlay/`, and the
 * `go build -overlay` JSON maps each standard-library path to its patched
 * copy. The repository holds only the patches; Go's sources come from the
 * toolchain.
 *
 * Patches apply strictly: every context and removed line must be where the
 * hunk says, so a toolchain whose sources differ there is refused (the
 * caller then builds without the overlay) instead of being patched wrongly.
 *
 * @module
 */

/** One hunk of a unified diff: where it starts in the old file and its lines. */
interface Hunk {
  oldStart: number;
  oldCount: number;
  newCount: number;
  /** Each line with its marker: ' ' context, '-' removed, '+' added. */
  lines: string[];
}

/** A patch that does not apply: names the file and the first line that differs. */
export class PatchError extends Error {}

function parseHunks(patch: string, name: string): { hunks: Hunk[]; creates: boolean } {
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const hunks: Hunk[] = [];
  let creates = false;
  let i = 0;
  for (; i < lines.length && !lines[i]!.startsWith("@@"); i++) {
    if (lines[i] === "--- /dev/null") creates = true;
  }
  while (i < lines.length) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]!);
    if (!m) throw new PatchError(`${name}: line ${i + 1}: expected a hunk header`);
    const hunk: Hunk = {
      oldStart: Number(m[1]),
      oldCount: m[2] === undefined ? 1 : Number(m[2]),
      newCount: m[4] === undefined ? 1 : Number(m[4]),
      lines: [],
    };
    i++;
    let olds = 0;
    let news = 0;
    while (i < lines.length && (olds < hunk.oldCount || news < hunk.newCount)) {
      const l = lines[i]!;
      if (l.startsWith("\\")) { // "\ No newline at end of file"
        i++;
        continue;
      }
      const mark = l[0] ?? " ";
      if (mark !== " " && mark !== "-" && mark !== "+") {
        throw new PatchError(`${name}: line ${i + 1}: not a hunk line`);
      }
      if (mark !== "+") olds++;
      if (mark !== "-") news++;
      hunk.lines.push(l.length ? l : " ");
      i++;
    }
    if (olds !== hunk.oldCount || news !== hunk.newCount) {
      throw new PatchError(`${name}: a hunk is shorter than its header says`);
    }
    while (i < lines.length && lines[i]!.startsWith("\\")) i++;
    hunks.push(hunk);
  }
  if (hunks.length === 0) throw new PatchError(`${name}: no hunks`);
  return { hunks, creates };
}

/**
 * `original` (undefined for a file the patch creates) with `patch` applied.
 * Throws {@link PatchError} when a context or removed line is not the one at
 * its place.
 */
export function applyPatch(original: string | undefined, patch: string, name: string): string {
  const { hunks, creates } = parseHunks(patch, name);
  if (creates !== (original === undefined)) {
    throw new PatchError(
      creates ? `${name}: the patch adds a file that exists` : `${name}: no such file to patch`,
    );
  }
  const old = original === undefined ? [] : original.split("\n");
  // A text ending in a newline splits into a last empty line, which no hunk names.
  const trailing = old.at(-1) === "";
  if (trailing) old.pop();
  const out: string[] = [];
  let at = 0; // next old line (0-based) not yet copied
  for (const h of hunks) {
    const start = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    if (start < at) throw new PatchError(`${name}: hunks overlap or are out of order`);
    while (at < start) out.push(old[at++]!);
    for (const l of h.lines) {
      const text = l.slice(1);
      if (l[0] === "+") {
        out.push(text);
        continue;
      }
      if (old[at] !== text) {
        throw new PatchError(
          `${name}: line ${at + 1} is ${JSON.stringify(old[at] ?? "<end of file>")}, ` +
            `the patch expects ${JSON.stringify(text)}`,
        );
      }
      if (l[0] === " ") out.push(text);
      at++;
    }
  }
  while (at < old.length) out.push(old[at++]!);
  return out.join("\n") + (trailing || original === undefined ? "\n" : "");
}

/** Every `*.patch` under `dir`, as paths relative to it, sorted. */
async function patchFiles(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/${rel}`)) {
    if (e.isDirectory) out.push(...await patchFiles(dir, `${rel}${e.name}/`));
    else if (e.name.endsWith(".patch")) out.push(`${rel}${e.name}`);
  }
  return out.sort();
}

/**
 * Applies every patch under `patchDir` to `$goroot/src`, writes the patched
 * files under `outDir/src/` and the `-overlay` JSON to `outDir/overlay.json`;
 * returns the JSON's path. Throws {@link PatchError} when a patch does not
 * apply.
 */
export async function writeOverlay(
  goroot: string,
  patchDir: string,
  outDir: string,
): Promise<string> {
  const replace: Record<string, string> = {};
  await Deno.remove(`${outDir}/src`, { recursive: true }).catch(() => {});
  for (const p of await patchFiles(patchDir)) {
    const rel = p.slice(0, -".patch".length);
    const target = `${goroot}/src/${rel}`;
    let original: string | undefined;
    try {
      original = await Deno.readTextFile(target);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    const patched = applyPatch(original, await Deno.readTextFile(`${patchDir}/${p}`), rel);
    const file = `${outDir}/src/${rel}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, patched);
    replace[target] = file;
  }
  const json = `${outDir}/overlay.json`;
  await Deno.writeTextFile(json, JSON.stringify({ Replace: replace }, null, 1) + "\n");
  return json;
}
