#!/usr/bin/env bash
# The allreduce benchmark across separate hosts with shaped links, on one machine (as root): one
# network namespace per rank, each with its own address on a private test subnet, joined by veth
# pairs to a bridge without an address (the hosts reach each other and their loopback, nothing
# else), and each host's link shaped to RATE both ways with tc (egress inside the host, and the
# bridge's egress toward it), as the network card of a separate machine would be. Then one rank
# process per host (dev.stoker.tools.spark.AllReduceHosts): the star and the ring alternating.
# Everything it made is removed on exit, also on failure or Ctrl-C.
#
#   scripts/allreduce-netns.sh [RANKS=4] [FLOATS=10000000] [RATE=1gbit] [REPEATS=5] [JSON]
set -euo pipefail

ranks="${1:-4}"
floats="${2:-10000000}"
rate="${3:-1gbit}"
repeats="${4:-5}"
json="${5:-}"
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"

if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "allreduce-netns: needs root, ip and tc (apt-get install iproute2)" >&2
  exit 1
fi
case "$rate" in
  *gbit) gb_s="$(awk "BEGIN { print ${rate%gbit} / 8 }")" ;;
  *mbit) gb_s="$(awk "BEGIN { print ${rate%mbit} / 8000 }")" ;;
  *) echo "allreduce-netns: RATE '$rate' (expected: e.g. 1gbit or 500mbit)" >&2; exit 2 ;;
esac

"$root/bin/stoker" bench --help >/dev/null # builds the checkout if a jar is missing or old
classpath=""
for module in loader-core spark-connector tools; do
  for jar in "$root/$module"/target/stoker-"$module"{-,_}*.jar; do
    case "$jar" in *-sources.jar | *-tests.jar | */original-*) ;; *) classpath+="$jar:" ;; esac
  done
done
classpath+="$root/examples/target/lib/*"

id="ar$(printf '%04x' $((RANDOM % 65536)))"
subnet="10.232.$((RANDOM % 200 + 20))"
cleanup() {
  for ((i = 0; i < ranks; i++)); do
    for pid in $(ip netns pids "$id$i" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip link del "${id}v$i" 2>/dev/null || true
    ip netns del "$id$i" 2>/dev/null || true
  done
  ip link del "${id}br" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

ip link add "${id}br" type bridge
ip link set "${id}br" up
for ((i = 0; i < ranks; i++)); do
  ip netns add "$id$i"
  ip link add "${id}v$i" type veth peer name eth0 netns "$id$i"
  ip link set "${id}v$i" master "${id}br" up
  ip -n "$id$i" addr add "$subnet.$((i + 2))/24" dev eth0
  ip -n "$id$i" link set eth0 up
  ip -n "$id$i" link set lo up
  # the host's link: RATE out of the host, RATE into it
  ip netns exec "$id$i" tc qdisc add dev eth0 root tbf rate "$rate" burst 512kb latency 50ms
  tc qdisc add dev "${id}v$i" root tbf rate "$rate" burst 512kb latency 50ms
done

echo "allreduce-netns: $ranks hosts on $subnet.0/24, each link shaped to $rate ($gb_s GB/s) both ways" >&2
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
pids=()
for ((i = ranks - 1; i >= 0; i--)); do
  args=("$i" "$ranks" "$subnet.2:7600" "$subnet.$((i + 2))" "$floats" "$repeats"
    "netns hosts, veth shaped to $rate" "$gb_s")
  if [[ $i -eq 0 ]]; then
    [[ -n "$json" ]] && args+=("$json")
    ip netns exec "$id$i" "$java" -Xmx2g -cp "$classpath" dev.stoker.tools.spark.AllReduceHosts "${args[@]}"
  else
    ip netns exec "$id$i" "$java" -Xmx2g -cp "$classpath" dev.stoker.tools.spark.AllReduceHosts "${args[@]}" \
      >/dev/null &
    pids+=("$!")
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
