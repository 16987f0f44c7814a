#!/bin/sh
# The kubelet TLS bootstrap PKI, end to end and offline:
#   ca create -> csr create -> csr inspect -> csr sign -> cert verify -> cert inspect
# Usage: sh examples/kubelet/flow.sh [WORKDIR]   (default: a fresh temp dir)
# Set JOINKIT to a built binary to use it instead of 'deno run main.ts'.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JOINKIT=${JOINKIT:-"$ROOT/node_modules/.bin/deno run -A --quiet $ROOT/main.ts"}
W=${1:-$(mktemp -d)}
NOW=2026-11-22T00:00:00Z
cd "$W"
run() { echo "\$ joinkit $*"; $JOINKIT "$@"; echo; }

run ca create --out-dir pki --key-type ecdsa-p256 --now "$NOW"
# 1. what the kubelet makes
echo '$ joinkit csr create --node worker-1 --out-dir kubelet-pki > csr.yaml'
$JOINKIT csr create --node worker-1 --out-dir kubelet-pki --now "$NOW" > csr.yaml
cat csr.yaml; echo
# 2. what the API server, the signer and the approver would say
run csr inspect csr.yaml --requester system:node:worker-1
# 3. kube-controller-manager: approve and sign
$JOINKIT csr sign csr.yaml --ca pki/ca.crt --ca-key pki/ca.key --approve --now "$NOW" > signed.yaml
echo '$ joinkit csr sign csr.yaml --ca pki/ca.crt --ca-key pki/ca.key --approve > signed.yaml'
echo
run csr inspect signed.yaml
# the kubelet stores cert + key in one file
$JOINKIT csr sign kubelet-pki/kubelet-client.csr --ca pki/ca.crt --ca-key pki/ca.key --now "$NOW" \
  > kubelet-pki/kubelet-client.crt
cat kubelet-pki/kubelet-client.crt kubelet-pki/kubelet-client.key > kubelet-pki/kubelet-client-current.pem
# 4. check it as its users would
run cert verify kubelet-pki/kubelet-client-current.pem --ca pki/ca.crt --node worker-1 --now "$NOW"
# 5. show it, and the expiry table of the directories
run cert inspect kubelet-pki/kubelet-client.crt --now "$NOW"
run cert inspect pki kubelet-pki --now "$NOW"
# cross-check with openssl
openssl verify -CAfile pki/ca.crt -purpose sslclient kubelet-pki/kubelet-client.crt
