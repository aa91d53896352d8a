#!/bin/sh
# Container entrypoint: prepare the home on its volume, make sure the listener has a token, then
# exec the daemon (exec, so that `docker stop`'s SIGTERM reaches it and starts the drain).
#
# Environment:
#   TETHER_HOME           the home, on a volume (default /var/lib/tether)
#   TETHER_LISTEN         the listener URL (default ws://0.0.0.0:4500)
#   TETHER_WS_TOKEN_FILE  the bearer token (e.g. a compose secret); must exist and be non-empty.
#                         Unset: a token is generated once into $TETHER_HOME/ws-token and reused.
#   TETHER_METRICS=1      also serve Prometheus metrics at /metrics (same token)
#   TETHER_BIN            the tether executable (default: tether on PATH)
# Arguments are passed on to `tether app-server` (e.g. -c model="gpt-5.5"); a first argument
# of doctor, login, logout, exec or --version runs that tether command instead.
set -eu

: "${TETHER_HOME:=/var/lib/tether}"
: "${TETHER_LISTEN:=ws://0.0.0.0:4500}"
: "${TETHER_BIN:=tether}"
export TETHER_HOME
umask 077

case "${1:-}" in
  doctor|login|logout|exec|--version|--help)
    exec "$TETHER_BIN" "$@" ;;
esac

mkdir -p "$TETHER_HOME"
chmod 700 "$TETHER_HOME"

if [ -n "${TETHER_WS_TOKEN_FILE:-}" ]; then
  token_file=$TETHER_WS_TOKEN_FILE
  if [ ! -s "$token_file" ]; then
    echo "tether-entrypoint: TETHER_WS_TOKEN_FILE=$token_file is missing or empty" >&2
    exit 2
  fi
else
  token_file=$TETHER_HOME/ws-token
  if [ ! -s "$token_file" ]; then
    # 32 random bytes, URL-safe: the same shape the daemon generates for loopback listeners.
    head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' > "$token_file"
    echo >> "$token_file"
    echo "tether-entrypoint: generated a bearer token in $token_file" >&2
  fi
fi

metrics=""
if [ "${TETHER_METRICS:-0}" = 1 ]; then
  metrics="--metrics"
fi

# shellcheck disable=SC2086 # $metrics is one flag or nothing
# The control socket too: `docker exec -i <container> tether app-server proxy` is a stdio client
# of this daemon (the official Python SDK and `tether exec` style clients launch that).
exec "$TETHER_BIN" app-server --listen "$TETHER_LISTEN" --listen unix:// \
  --ws-auth capability-token --ws-token-file "$token_file" $metrics "$@"
