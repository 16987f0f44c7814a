#!/bin/sh
# Times joinkit's csr sign / cert verify / cert inspect on N (default 1000)
# ECDSA P-256 kubelet CSRs with an ECDSA CA against openssl doing the same.
# openssl loops run over min(N,100) files and are scaled to N.
# Usage: sh examples/kubelet/bench.sh [N] [WORKDIR]; JOINKIT=dist/joinkit to time the binary.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DENO="$ROOT/node_modules/.bin/deno"
JOINKIT=${JOINKIT:-"$DENO run -A --quiet $ROOT/main.ts"}
N=${1:-1000}
W=${2:-$(mktemp -d)}
L=$(( N < 100 ? N : 100 ))
cd "$W"
t() { s=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
$JOINKIT ca create --out-dir ca --key-type ecdsa-p256 2>/dev/null
$DENO run -A "$ROOT/examples/kubelet/gen-csrs.ts" "$N" .
mkdir -p certs
a=$(t sh -c "$JOINKIT csr sign all.csr --ca ca/ca.crt --ca-key ca/ca.key > all.crt")
awk '/BEGIN CERT/{n++} {print > ("certs/c" n ".crt")}' all.crt
b=$(t sh -c "$JOINKIT csr sign list.yaml --ca ca/ca.crt --ca-key ca/ca.key --approve")
c=$(t sh -c "$JOINKIT csr sign list.json --ca ca/ca.crt --ca-key ca/ca.key --approve")
o=$(t sh -c "ls csrs | head -$L | while read f; do openssl x509 -req -in csrs/\$f -CA ca/ca.crt -CAkey ca/ca.key -days 365 -out /dev/null; done")
v=$(t $JOINKIT cert verify certs --ca ca/ca.crt)
ov=$(t sh -c "openssl verify -CAfile ca/ca.crt certs/*.crt")
i=$(t $JOINKIT cert inspect certs)
oi=$(t sh -c "ls certs | head -$L | while read f; do openssl x509 -noout -text -in certs/\$f; done")
echo "csr sign $N PEM:      ${a}s   openssl x509 -req loop (scaled): $(echo "$o * $N / $L" | bc)s"
echo "csr sign $N List yaml: ${b}s   json: ${c}s"
echo "cert verify $N:       ${v}s   openssl verify (one run): ${ov}s"
echo "cert inspect $N:      ${i}s   openssl x509 -text loop (scaled): $(echo "$oi * $N / $L" | bc)s"
