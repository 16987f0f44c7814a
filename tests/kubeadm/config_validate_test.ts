import assert from "node:assert/strict";
import fs from "node:fs";
import { validateKubeadmConfigText } from "../../lib/kubeadm/config_validate.ts";

interface Case {
  name: string;
  config: string;
  ok: boolean;
  exit: number;
  kubeadm: string;
}

// Real kubeadm v1.32.5's verdicts (`kubeadm config validate --config F` on a host named "vm",
// recorded by tests/fixtures/kubeadm/validate/record_corpus.py).
const CORPUS: Case[] = JSON.parse(
  fs.readFileSync(new URL("../fixtures/kubeadm/validate/corpus.json", import.meta.url), "utf8"),
);

/** kubeadm quotes secrets in its texts; joinkit withholds them. */
function withheld(msg: string): string {
  return msg.replace(
    /((?:token|tlsBootstrapToken|certificateKey): Invalid value: )"(?:[^"\\]|\\.)*"/g,
    '$1"<value withheld>"',
  );
}

function judge(c: Case) {
  return validateKubeadmConfigText(c.config, { hostname: "vm", fileExists: () => false });
}

Deno.test("validateKubeadmConfig() agrees with kubeadm config validate on the whole corpus (ok/refuse, exit, field-error texts)", () => {
  assert.ok(CORPUS.length >= 150, `${CORPUS.length} cases`);
  const disagreements: string[] = [];
  for (const c of CORPUS) {
    const v = judge(c);
    if (v.ok !== c.ok) {
      disagreements.push(
        `${c.name}: kubeadm ${c.ok ? "ok" : c.kubeadm}; joinkit ${v.ok ? "ok" : v.message}`,
      );
      continue;
    }
    if (v.ok || c.ok) continue;
    if (v.exit !== c.exit) {
      disagreements.push(`${c.name}: exit kubeadm ${c.exit}, joinkit ${v.exit}: ${v.message}`);
    } else if (c.exit === 3 && v.message !== withheld(c.kubeadm)) {
      disagreements.push(`${c.name}:\n  kubeadm ${withheld(c.kubeadm)}\n  joinkit ${v.message}`);
    }
  }
  assert.deepEqual(disagreements, []);
});

const KUBEADM = "/opt/judges/kubeadm";

// Skipped (reported as "ignored") where no kubeadm binary is installed: the recorded verdicts above
// carry its judgement to every machine.
Deno.test({
  name:
    `kubeadm config validate (live judge at ${KUBEADM}) still gives the recorded verdicts on a sample of the corpus`,
  ignore: !fs.existsSync(KUBEADM),
}, async () => {
  const { execFileSync } = await import("node:child_process");
  const os = await import("node:os");
  const path = await import("node:path");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-kubeadm-validate-"));
  try {
    const sample = CORPUS.filter((_, i) => i % 40 === 0);
    for (const c of sample) {
      const f = path.join(dir, "c.yaml");
      fs.writeFileSync(f, c.config);
      let code = 0;
      try {
        execFileSync(KUBEADM, ["config", "validate", "--config", f], { stdio: "pipe" });
      } catch (e) {
        code = (e as { status: number }).status;
      }
      assert.equal(code, c.exit, c.name);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
