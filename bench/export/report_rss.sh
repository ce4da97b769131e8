#!/bin/bash
# report_rss.sh -- `recorder report` of a large capture: wall, user time
# and peak RSS (docs/performance/export.md, "recorder report"), beside
# `convert -o FILE.csv` (one read into statistics) for scale.  The capture
# is made exactly by tests/cli/gen_capture (SCOPES scopes: 2 x SCOPES
# events).  A second recorder (OTHER, e.g. main's build) runs beside, in
# the same sitting, for a before/after.
#
#   bench/export/report_rss.sh BUILD [SCOPES [DIR [OTHER_RECORDER]]]
set -euo pipefail
BUILD=${1:?usage: report_rss.sh BUILD [SCOPES [DIR [OTHER_RECORDER]]]}
SCOPES=${2:-20000000}
DIR=${3:-/tmp}
OTHER=${4:-}
REC=$BUILD/librecorder/cli/recorder
CAP=$DIR/report_rss.$SCOPES.rec
[ -f "$CAP" ] || "$BUILD/tests/cli/gen_capture" "$CAP" scopes "$SCOPES"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(uptime | sed 's/.*load/load/')"
for round in 1 2; do
    /usr/bin/time -f "report: %e s wall, %U s user, %M KiB peak RSS" "$REC" report "$CAP" > /dev/null
    [ -z "$OTHER" ] || /usr/bin/time -f "other report: %e s wall, %U s user, %M KiB peak RSS" "$OTHER" report "$CAP" > /dev/null
    /usr/bin/time -f "convert csv: %e s wall, %U s user, %M KiB peak RSS" "$REC" convert "$CAP" -o "$DIR/report_rss.csv" \
        2>&1 > /dev/null | grep '^convert csv'
done
echo "after: $(uptime | sed 's/.*load/load/')"
rm -f "$DIR/report_rss.csv"
