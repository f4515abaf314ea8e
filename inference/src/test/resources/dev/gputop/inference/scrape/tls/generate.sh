#!/usr/bin/env bash
# Regenerates the test PKI used by HttpScraperTlsTest: a CA, a server certificate for 127.0.0.1,
# a server certificate for another name, and a client certificate, all EC P-256 with PKCS#8 keys,
# valid for 100 years. Test-only keys: never trust them anywhere.
set -euo pipefail
cd "$(dirname "$0")"
days=36500
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
  -days $days -subj "/CN=gputop test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
issue() { # name subject extensions
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days $days -extfile "$1.ext"
  rm -f "$1.csr" "$1.ext"
}
issue server "/CN=127.0.0.1" "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth"
issue wrong-host "/CN=other.invalid" "subjectAltName=DNS:other.invalid
extendedKeyUsage=serverAuth"
issue client "/CN=gputop-agent" "extendedKeyUsage=clientAuth"
rm -f ca.srl ca.key
