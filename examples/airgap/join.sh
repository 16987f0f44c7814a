#!/bin/sh
# Everything a worker and a second control-plane node are handed, rendered and
# checked offline: the README's "Air-gapped joins" section replays this.
# Deterministic clock; fresh keys and a fresh certificate key on each run.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
joinkit() { "$ROOT/node_modules/.bin/deno" run -A --quiet "$ROOT/main.ts" "$@"; }
say() { printf '\n$ %s\n' "$*"; }

NOW=2026-12-01T00:00:00Z
TOKEN=abcdef.0123456789abcdef
OUT=$(mktemp -d "${TMPDIR:-/tmp}/joinkit-airgap.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
cd "$OUT"

# A kubeadm-shaped pki/: cluster CA, front-proxy CA, etcd CA, service-account key pair.
for d in pki pki/front-proxy pki/etcd; do
  joinkit ca create --out-dir "$d" --key-type ecdsa-p256 --now "$NOW" >/dev/null 2>&1
done
mv pki/front-proxy/ca.crt pki/front-proxy-ca.crt && mv pki/front-proxy/ca.key pki/front-proxy-ca.key
rmdir pki/front-proxy
openssl genrsa -out pki/sa.key 2048 2>/dev/null && openssl rsa -in pki/sa.key -pubout -out pki/sa.pub 2>/dev/null

echo "== worker: token discovery"
say joinkit init --server cp.example:6443 --ca pki/ca.crt --token $TOKEN --out-dir bootstrap --with-discovery-file
joinkit init --server cp.example:6443 --ca pki/ca.crt --token "$TOKEN" --now "$NOW" \
  --out-dir bootstrap --with-discovery-file 2>&1 | grep -v '^\[bootstrap-token\] Configured'
say joinkit doctor bootstrap
joinkit doctor bootstrap --now "$NOW"
say cat bootstrap/join-config.yaml
cat bootstrap/join-config.yaml
say joinkit node-payload --config bootstrap/join-config.yaml --node worker-1 --node worker-2 --out-dir payloads
joinkit node-payload --config bootstrap/join-config.yaml --node worker-1 --node worker-2 \
  --out-dir payloads --now "$NOW"
say head -12 payloads/worker-1.cloud-config
head -12 payloads/worker-1.cloud-config

echo
echo "== worker: file discovery (the documented air-gapped path), the kubelet's certificate pre-signed"
say joinkit join-config --discovery-file /etc/kubernetes/discovery.conf --token $TOKEN --node worker-3
joinkit join-config --discovery-file /etc/kubernetes/discovery.conf --token "$TOKEN" \
  --node worker-3 --now "$NOW" >worker-3.yaml
cat worker-3.yaml
say joinkit node-payload --config worker-3.yaml --discovery-kubeconfig bootstrap/discovery.conf --format ignition --out-dir payloads
joinkit node-payload --config worker-3.yaml --discovery-kubeconfig bootstrap/discovery.conf \
  --format ignition --out-dir payloads --now "$NOW"
say joinkit kubeconfig node --node worker-3 --ca pki/ca.crt --ca-key pki/ca.key --server https://cp.example:6443 --out-dir nodes
joinkit kubeconfig node --node worker-3 --ca pki/ca.crt --ca-key pki/ca.key \
  --server https://cp.example:6443 --out-dir nodes --now "$NOW"
say joinkit cert verify nodes/worker-3/kubelet-client-current.pem --ca pki/ca.crt --node worker-3
# The link points at /var/lib/kubelet/pki (where it will live): verify the file behind it here.
joinkit cert verify nodes/worker-3/kubelet-client-2*.pem --ca pki/ca.crt --node worker-3 --now "$NOW" |
  sed 's/kubelet-client-2[0-9-]*\.pem/kubelet-client-<ts>.pem/'

echo
echo "== second control-plane node"
KEY=$(joinkit certs certificate-key)
say 'KEY=$(joinkit certs certificate-key)'
say joinkit upload-certs --pki-dir pki --certificate-key '$KEY' '>' certs.yaml
joinkit upload-certs --pki-dir pki --certificate-key "$KEY" --now "$NOW" >certs.yaml
awk '/^kind:/ { k = $2; n = 1 } n && /^  name:/ { print k, $2; n = 0 }' certs.yaml
say joinkit download-certs certs.yaml --certificate-key '$KEY' --pki-dir pki
joinkit download-certs certs.yaml --certificate-key "$KEY" --pki-dir pki --now "$NOW"
say joinkit join-config --server cp.example:6443 --token $TOKEN --ca pki/ca.crt --control-plane --certificate-key '$KEY' --apiserver-advertise-address 10.0.0.12 --node cp-2
joinkit join-config --server cp.example:6443 --token "$TOKEN" --ca pki/ca.crt --control-plane \
  --certificate-key "$KEY" --apiserver-advertise-address 10.0.0.12 --node cp-2 --now "$NOW" >cp-2.yaml
sed "s/$KEY/<KEY>/" cp-2.yaml
say joinkit node-payload --config cp-2.yaml --out-dir payloads
joinkit node-payload --config cp-2.yaml --out-dir payloads --now "$NOW"
say joinkit doctor bootstrap cp-2.yaml worker-3.yaml
joinkit doctor bootstrap cp-2.yaml worker-3.yaml --now "$NOW"
