#!/bin/sh
# The README's main job on a built-in example: render kubeadm's whole
# bootstrap-token phase offline for the demo CA (examples/demo/ca.crt), then
# check the result the way a joining node would; then the kubelet's TLS
# bootstrap (csr create -> inspect -> sign -> verify) on a fresh CA, with
# openssl and kubectl accepting what joinkit made.
#
# Deterministic: fixed clock (--now) and the token from kubeadm's docs.
set -eu
cd "$(dirname "$0")/.."
joinkit() { node_modules/.bin/deno run -A --quiet main.ts "$@"; }

# Inside the example CA's validity (2026-11-22 to 2036-11-19).
NOW=2026-12-01T00:00:00Z
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
echo "\$ joinkit cluster-info verify \$OUT/bootstrap/bootstrap-token.yaml --token $TOKEN --discovery-token-ca-cert-hash $HASH"
joinkit cluster-info verify "$OUT/bootstrap/bootstrap-token.yaml" --token "$TOKEN" \
  --discovery-token-ca-cert-hash "$HASH" >"$OUT/discovered.conf"
if cmp -s "$OUT/discovered.conf" "$OUT/bootstrap/bootstrap-kubelet.conf"; then
  echo "discovery output is byte-identical to bootstrap-kubelet.conf"
else
  echo "MISMATCH between discovery output and bootstrap-kubelet.conf" >&2
  exit 1
fi

echo
echo "\$ joinkit cluster-info verify ... --token abcdef.0000000000000000 (wrong secret)"
if joinkit cluster-info verify "$OUT/bootstrap/bootstrap-token.yaml" \
  --token abcdef.0000000000000000 --discovery-token-ca-cert-hash "$HASH" >/dev/null; then
  echo "unexpected: a wrong token verified" >&2
  exit 1
else
  echo "exit code $? (refused, as kubeadm join would)"
fi

if command -v kubectl >/dev/null 2>&1; then
  echo
  echo "\$ kubectl config view --kubeconfig \$OUT/bootstrap/bootstrap-kubelet.conf"
  kubectl config view --kubeconfig "$OUT/bootstrap/bootstrap-kubelet.conf"
fi

# The kubelet TLS bootstrap, offline. The demo CA ships without its key, so a
# fresh CA signs here.
echo
echo "===== kubelet TLS bootstrap ====="
step() { echo "\$ joinkit $*"; joinkit "$@"; }
step ca create --out-dir "$OUT/pki" --key-type ecdsa-p256 --now "$NOW"
echo "\$ joinkit csr create --node worker-1 --out-dir \$OUT/kubelet --now $NOW > \$OUT/csr.yaml"
joinkit csr create --node worker-1 --out-dir "$OUT/kubelet" --now "$NOW" >"$OUT/csr.yaml"
step csr inspect "$OUT/csr.yaml" --requester system:node:worker-1
echo "\$ joinkit csr sign \$OUT/kubelet/kubelet-client.csr --ca \$OUT/pki/ca.crt --ca-key \$OUT/pki/ca.key --now $NOW > \$OUT/kubelet/kubelet-client.crt"
joinkit csr sign "$OUT/kubelet/kubelet-client.csr" --ca "$OUT/pki/ca.crt" --ca-key "$OUT/pki/ca.key" \
  --now "$NOW" >"$OUT/kubelet/kubelet-client.crt"
step cert verify "$OUT/kubelet/kubelet-client.crt" --ca "$OUT/pki/ca.crt" --node worker-1 --now "$NOW"
if command -v openssl >/dev/null 2>&1; then
  echo "\$ openssl verify -CAfile \$OUT/pki/ca.crt -purpose sslclient -attime <NOW> \$OUT/kubelet/kubelet-client.crt"
  openssl verify -CAfile "$OUT/pki/ca.crt" -purpose sslclient \
    -attime "$(date -u -d "$NOW" +%s)" "$OUT/kubelet/kubelet-client.crt"
fi
