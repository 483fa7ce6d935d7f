#!/usr/bin/env bash
# nginx-h2.sh runs Debian's nginx (1.22) as a benchmark target: one process
# (master_process off, so the PID gust bench samples is the one serving),
# answering "Hello, Go!" (text/plain) on every path, with a config and a
# self-signed ECDSA P-256 certificate written into a fresh temporary directory;
# or, in mode files, serving the files under ROOT with sendfile on.
#
# usage: scripts/nginx-h2.sh [--cpu N] MODE HOST:PORT [ROOT]
#   MODE  h2c            HTTP/2 with prior knowledge (listen ... http2)
#         h2             HTTP/2 over TLS by ALPN (listen ... ssl http2)
#         tls            HTTP/1.1 over TLS, session resumption on
#         tls-no-resume  HTTP/1.1 over TLS, tickets and session cache off
#         http1          plain HTTP/1.1
#         files          plain HTTP/1.1, the files under ROOT: sendfile on,
#                        tcp_nopush on, open_file_cache (gust's FileServer
#                        caches open files too)
#   --cpu N  pin nginx to CPU N with taskset (gust bench pins servers itself)
#
# As a gust bench server (the runner fills in {mode} and {addr}):
#   gust bench --config lab/scenarios/h2.json --loader h2load \
#     --server 'nginx=scripts/nginx-h2.sh {mode} {addr}'
# gust bench starts it as its built-in server "nginx" ({mode} {addr} {root}).
# The script execs nginx, so SIGTERM stops it; the temporary directories of
# earlier runs whose nginx is gone are removed at the next start.
set -euo pipefail
cpu=""
if [[ "${1:-}" == "--cpu" ]]; then cpu="$2"; shift 2; fi
if [[ $# -lt 2 || $# -gt 3 ]]; then
	echo "usage: $0 [--cpu N] h2c|h2|tls|tls-no-resume|http1|files HOST:PORT [ROOT]" >&2
	exit 2
fi
mode="$1" addr="$2" root="${3:-}"
nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [[ ! -x "$nginx" ]]; then
	echo "nginx-h2.sh: nginx is not installed (apt-get install nginx-light or nginx)" >&2
	exit 1
fi
case "$mode" in
h2c) listen="listen $addr http2;" ;;
h2) listen="listen $addr ssl http2;" ;;
tls | tls-no-resume) listen="listen $addr ssl;" ;;
http1) listen="listen $addr;" ;;
files)
	listen="listen $addr;"
	if [[ ! -d "$root" ]]; then
		echo "nginx-h2.sh: mode files needs ROOT, a directory (got '$root')" >&2
		exit 2
	fi
	root=$(cd "$root" && pwd)
	;;
*)
	echo "nginx-h2.sh: unknown mode $mode: want h2c, h2, tls, tls-no-resume, http1 or files" >&2
	exit 2
	;;
esac

tmp="${TMPDIR:-/tmp}"
for old in "$tmp"/gust-nginx.*; do
	[[ -d "$old" ]] || continue
	pid=$(cat "$old/nginx.pid" 2>/dev/null || true)
	if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null; then rm -rf "$old"; fi
done
dir=$(mktemp -d "$tmp/gust-nginx.XXXXXX")
mkdir -p "$dir/tmp" "$dir/logs"

tls=""
if [[ "$mode" != h2c && "$mode" != http1 ]]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
		-subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
		-keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
	tls="ssl_certificate $dir/cert.pem;
		ssl_certificate_key $dir/key.pem;
		ssl_protocols TLSv1.2 TLSv1.3;"
	if [[ "$mode" == tls-no-resume ]]; then
		tls="$tls
		ssl_session_tickets off;
		ssl_session_cache off;"
	else
		tls="$tls
		ssl_session_tickets on;
		ssl_session_cache shared:SSL:10m;"
	fi
fi

location='location / {
			default_type "text/plain; charset=utf-8";
			return 200 "Hello, Go!";
		}'
if [[ "$mode" == files ]]; then
	location="location / {
			root $root;
			sendfile on;
			tcp_nopush on;
			open_file_cache max=1000 inactive=20s;
			open_file_cache_valid 1s;
		}"
fi

cat >"$dir/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 65536;
pid $dir/nginx.pid;
error_log stderr warn;
events { worker_connections 40000; }
http {
	access_log off;
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	keepalive_requests 1000000000;
	keepalive_timeout 75s;
	http2_max_concurrent_streams 1000;
	server {
		$listen
		$tls
		$location
	}
}
CONF
echo "nginx-h2.sh: nginx $mode on $addr, config $dir/nginx.conf" >&2
if [[ -n "$cpu" ]]; then
	exec taskset -c "$cpu" "$nginx" -p "$dir" -c "$dir/nginx.conf" -e stderr
fi
exec "$nginx" -p "$dir" -c "$dir/nginx.conf" -e stderr
