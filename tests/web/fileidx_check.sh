#!/bin/sh
# fileidx_check.sh RECORDER WEB_TARGET FILEIDX_CHECK -- a 2-second capture of
# web_target, then fileidx_check on it (see fileidx_check.c): windows read
# through recorder-web's time index equal a full read's.
set -e
d=$(mktemp -d "${TMPDIR:-/tmp}/fileidx.XXXXXX")
trap 'rm -rf "$d"' EXIT
"$1" capture -o "$d/run.rec" -q -- "$2" --threads 3 --rate 20000 --seconds 2
"$3" "$d/run.rec"
