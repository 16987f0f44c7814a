#!/bin/sh
# The README's main job on a built-in example: an air-gapped worker join,
# rendered and checked offline. kubeadm's bootstrap-token phase for the demo CA
# (examples/demo/ca.crt), checked the way a joining node checks it; each
# node's first-boot payload; a node whose kubelet certificate is pre-signed;
# then `doctor` over everything written. Independent tools (kubectl, cloud-init, openssl)
# re-check the results where they are installed; the demo says so when not.
#
# Deterministic: fixed clock (--now) and the token from kubeadm's docs.
set -eu
cd "$(dirname "$0")/.."
joinkit() { node_modules/.bin/deno run -A --quiet main.ts "$@"; }
say() { printf '\n$ joinkit %s\n' "$*"; }
missing() { printf '\n(%s is not installed: skipping %s)\n' "$1" "$2"; }

# Inside the example CA's validity (2026-11-22 to 2036-11-19).
NOW=2026-12-01T00:00:00Z
TOKEN=abcdef.0123456789abcdef
SERVER=https://10.0.0.1:6443
OUT=$(mktemp -d "${TMPDIR:-/tmp}/joinkit-demo.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

echo "== 1. kubeadm's bootstrap-token phase, offline (the CA's key is not needed)"
say "init --server $SERVER --ca examples/demo/ca.crt --token $TOKEN --with-discovery-file --out-dir OUT/bootstrap"
joinkit init --server "$SERVER" --ca examples/demo/ca.crt --token "$TOKEN" --now "$NOW" \
  --with-discovery-file --out-dir "$OUT/bootstrap" 2>&1 | sed "s#$OUT#OUT#g"
(cd "$OUT/bootstrap" && for f in *; do printf '  %s %s\n' "$(stat -c %a "$f")" "$f"; done)
echo
echo "join-command.txt:"
sed 's/^/  /' "$OUT/bootstrap/join-command.txt"

echo
echo "== 2. what a joining node checks: token discovery against the signed cluster-info"
HASH=$(sed -n 's/.*--discovery-token-ca-cert-hash \(sha256:[0-9a-f]*\).*/\1/p' "$OUT/bootstrap/join-command.txt")
say "cluster-info verify OUT/bootstrap/bootstrap-token.yaml --token $TOKEN --discovery-token-ca-cert-hash $HASH"
joinkit cluster-info verify "$OUT/bootstrap/bootstrap-token.yaml" --token "$TOKEN" \
  --discovery-token-ca-cert-hash "$HASH" >"$OUT/discovered.conf"
if cmp -s "$OUT/discovered.conf" "$OUT/bootstrap/bootstrap-kubelet.conf"; then
  echo "discovered kubeconfig is byte-identical to bootstrap-kubelet.conf"
else
  echo "MISMATCH between discovery output and bootstrap-kubelet.conf" >&2
  exit 1
fi
say "cluster-info verify ... --token abcdef.0000000000000000   # a wrong secret"
if joinkit cluster-info verify "$OUT/bootstrap/bootstrap-token.yaml" \
  --token abcdef.0000000000000000 --discovery-token-ca-cert-hash "$HASH" >/dev/null; then
  echo "unexpected: a wrong token verified" >&2
  exit 1
else
  echo "exit code $? (refused, as kubeadm join would)"
fi

echo
echo "== 3. each worker's first-boot payload (cloud-init runs kubeadm join with it)"
say "node-payload --config OUT/bootstrap/join-config.yaml --node worker-1 --node worker-2 --out-dir OUT/payloads"
joinkit node-payload --config "$OUT/bootstrap/join-config.yaml" --node worker-1 --node worker-2 \
  --out-dir "$OUT/payloads" --now "$NOW" 2>&1 | sed "s#$OUT#OUT#g"
echo "OUT/payloads/worker-1.cloud-config, first lines:"
head -n 8 "$OUT/payloads/worker-1.cloud-config" | sed 's/^/  /'

echo
echo "== 4. a node whose kubelet client certificate is pre-signed (no CSR round trip)"
say "ca create --key-type ecdsa-p256 --out-dir OUT/pki   # a CA whose key we hold"
joinkit ca create --out-dir "$OUT/pki" --key-type ecdsa-p256 --now "$NOW" 2>&1 | sed "s#$OUT#OUT#g"
say "kubeconfig node --node worker-3 --ca OUT/pki/ca.crt --ca-key OUT/pki/ca.key --server $SERVER --out-dir OUT/nodes"
joinkit kubeconfig node --node worker-3 --ca "$OUT/pki/ca.crt" --ca-key "$OUT/pki/ca.key" \
  --server "$SERVER" --out-dir "$OUT/nodes" --now "$NOW" 2>&1 | sed "s#$OUT#OUT#g"
CERT=$(ls "$OUT"/nodes/worker-3/kubelet-client-2*.pem)
say "cert verify OUT/nodes/worker-3/kubelet-client-<ts>.pem --ca OUT/pki/ca.crt --node worker-3"
joinkit cert verify "$CERT" --ca "$OUT/pki/ca.crt" --node worker-3 --now "$NOW" |
  sed "s#$OUT#OUT#g; s/kubelet-client-2[0-9-]*\.pem/kubelet-client-<ts>.pem/"

echo
echo "== 5. doctor: the bootstrap material and the payloads, judged as their consumers would"
say "doctor OUT/bootstrap OUT/payloads"
joinkit doctor "$OUT/bootstrap" "$OUT/payloads" --now "$NOW" 2>&1 | sed "s#$OUT#OUT#g"

echo
echo "== 6. independent judges"
if command -v kubectl >/dev/null 2>&1; then
  echo "\$ kubectl config view --kubeconfig OUT/bootstrap/bootstrap-kubelet.conf -o jsonpath='{.clusters[0].cluster.server}'"
  kubectl config view --kubeconfig "$OUT/bootstrap/bootstrap-kubelet.conf" \
    -o jsonpath='{.clusters[0].cluster.server}'
  echo
else
  missing kubectl "its reading of bootstrap-kubelet.conf"
fi
if command -v cloud-init >/dev/null 2>&1; then
  echo "\$ cloud-init schema --config-file OUT/payloads/worker-1.cloud-config"
  cloud-init schema --config-file "$OUT/payloads/worker-1.cloud-config" 2>&1 | sed "s#$OUT#OUT#g"
else
  missing cloud-init "its schema check of the worker payload"
fi
if command -v openssl >/dev/null 2>&1; then
  echo "\$ openssl verify -CAfile OUT/pki/ca.crt -purpose sslclient -attime <NOW> OUT/nodes/worker-3/kubelet-client-<ts>.pem"
  openssl verify -CAfile "$OUT/pki/ca.crt" -purpose sslclient \
    -attime "$(date -u -d "$NOW" +%s)" "$CERT" | sed "s#$OUT#OUT#g; s/kubelet-client-2[0-9-]*\.pem/kubelet-client-<ts>.pem/"
else
  missing openssl "its check of the pre-signed kubelet certificate"
fi
