#!/usr/bin/env bash
# Read of 2 000 lines at line 5 000 000 of a 1 GB file: hands' Read (one whole process: session,
# pipeline, tool) against `tail -n +5000001 | head -n 2000`, in the same run, warm page cache.
# Prints the median wall time of each over $RUNS runs, the ratio, and hands' peak RSS.
#
#   bash crates/tool-read/benches/read_range.sh        (from the workspace root)
#
# The file is generated once at $HANDS_BENCH_FILE (default /tmp/hands-bench-1g.txt) and reused.
set -eu  # no pipefail: head closing the pipe early is the point
FILE=${HANDS_BENCH_FILE:-/tmp/hands-bench-1g.txt}
RUNS=${RUNS:-11}
cargo build -q --release -p hands-tool-read --example read_range
BIN=target/release/examples/read_range
[ -s "$FILE" ] || "$BIN" --generate "$FILE"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ms() { # command... -> wall milliseconds
  local start end
  start=$(date +%s%N); "$@" >/dev/null; end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
peer() { tail -n +5000001 "$FILE" | head -n 2000; }
ours() { "$BIN" "$FILE" 5000001 2000; }

# Both return the same range: 2000 lines starting with the same one.
want="2000 lines; first: 5000001	$(peer | head -n 1)"
got=$(ours)
[ "$got" = "$want" ] || { echo "mismatch: got '$got', want '$want'" >&2; exit 1; }
cat "$FILE" >/dev/null # warm the page cache
peer >/dev/null; ours >/dev/null

P=(); O=()
for _ in $(seq "$RUNS"); do
  P+=("$(time_ms peer)")
  O+=("$(time_ms ours)")
done
PM=$(printf '%s\n' "${P[@]}" | median)
OM=$(printf '%s\n' "${O[@]}" | median)
RSS=$(/usr/bin/time -v "$BIN" "$FILE" 5000001 2000 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}')
echo "file: $FILE ($(stat -c %s "$FILE") bytes), $RUNS runs each, medians:"
echo "  tail -n +5000001 | head -n 2000 : ${PM} ms"
echo "  hands Read offset=5000001 limit=2000 : ${OM} ms"
awk -v o="$OM" -v p="$PM" 'BEGIN { printf "  ratio hands/peer: %.2fx (goal <= 1.2x)\n", (p > 0 ? o / p : 0) }'
echo "  hands peak RSS: ${RSS} KB (goal < 32768 KB)"
"$BIN" "$FILE" 5000001 2000
