#!/bin/sh
# Container health check: exit 0 when the daemon answers GET /readyz on its listener.
# /readyz needs no token; it says the daemon is up and accepting connections, nothing more.
# TETHER_HEALTH_URL overrides the URL derived from TETHER_LISTEN (0.0.0.0 and [::] → loopback).
set -eu

listen=${TETHER_LISTEN:-ws://0.0.0.0:4500}
url=${TETHER_HEALTH_URL:-}
if [ -z "$url" ]; then
  scheme=http
  case "$listen" in wss://*) scheme=https ;; esac
  hostport=${listen#*://}
  host=${hostport%:*}
  port=${hostport##*:}
  case "$host" in 0.0.0.0) host=127.0.0.1 ;; "[::]") host="[::1]" ;; esac
  url="$scheme://$host:$port/readyz"
fi

exec "${TETHER_PYTHON:-python3}" - "$url" <<'PY'
import ssl
import sys
import urllib.request

# The listener's own certificate may be self-signed: only liveness is checked here.
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
try:
    with urllib.request.urlopen(sys.argv[1], timeout=4, context=context) as response:
        sys.exit(0 if response.status == 200 else 1)
except Exception as exc:  # noqa: BLE001 - any failure is "unhealthy"
    print(f"tether-healthcheck: {sys.argv[1]}: {exc}", file=sys.stderr)
    sys.exit(1)
PY
