#!/bin/sh
# The README's main job on a built-in example: render kubeadm's whole
# bootstrap-token phase offline for the demo CA (examples/demo/ca.crt), then
# check the result the way a joining node would.
#
# Deterministic: fixed clock (--now) and the token from kubeadm's docs.
set -eu
cd "$(dirname "$0")/.."
joinkit() { node_modules/.bin/deno run -A --quiet main.ts "$@"; }

NOW=2026-01-01T00:00:00Z
TOKEN=abcdef.0123456789abcdef
SERVER=https://10.0.0.1:6443
OUT=$(mktemp -d "${TMPDIR:-/tmp}/joinkit-demo.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

echo "\$ joinkit init --server $SERVER --ca examples/demo/ca.crt --token $TOKEN --now $NOW --out-dir \$OUT/bootstrap"
joinkit init --server "$SERVER" --ca examples/demo/ca.crt --token "$TOKEN" --now "$NOW" \
  --out-dir "$OUT/bootstrap"

for f in bootstrap-token.yaml bootstrap-kubelet.conf join-command.txt; do
  echo
  echo "===== $f ($(stat -c %a "$OUT/bootstrap/$f" 2>/dev/null || echo 600)) ====="
  cat "$OUT/bootstrap/$f"
done

HASH=$(sed -n 's/.*--discovery-token-ca-cert-hash \(sha256:[0-9a-f]*\).*/\1/p' "$OUT/bootstrap/join-command.txt")
echo
echo "\$ joinkit cluster-info verify \$OUT/bootstrap/bootstrap-token.yaml --token $TOKEN --ca-cert-hash $HASH"
joinkit cluster-info verify "$OUT/bootstrap/bootstrap-token.yaml" --token "$TOKEN" \
  --ca-cert-hash "$HASH" >"$OUT/discovered.conf"
if cmp -s "$OUT/discovered.conf" "$OUT/bootstrap/bootstrap-kubelet.conf"; then
  echo "discovery output is byte-identical to bootstrap-kubelet.conf"
else
  echo "MISMATCH between discovery output and bootstrap-kubelet.conf" >&2
  exit 1
fi

echo
echo "\$ joinkit cluster-info verify ... --token abcdef.0000000000000000 (wrong secret)"
if joinkit cluster-info verify "$OUT/bootstrap/bootstrap-token.yaml" \
  --token abcdef.0000000000000000 --ca-cert-hash "$HASH" >/dev/null; then
  echo "unexpected: a wrong token verified" >&2
  exit 1
else
  echo "exit code $? (refused, as kubeadm join would)"
fi
