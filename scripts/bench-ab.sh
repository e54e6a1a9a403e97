#!/usr/bin/env bash
# A/B benchmark of two revisions: builds each in a scratch folder, runs the same `stoker bench`
# on each, alternating (A B A B ...), and prints the per-configuration medians side by side with
# the ratio B/A. Run it before landing any change to the fill, transfer or source paths.
#
#   scripts/bench-ab.sh BASE [HEAD] [--rounds N] [--keep] [--] BENCH-ARGS...
#   scripts/bench-ab.sh 3c9b8d6 HEAD --rounds 3 --workload normalize --samples 20000
#
# BASE and HEAD are anything `git rev-parse` takes (HEAD is the default); WORKTREE stands for the
# checkout as it is now, uncommitted changes included. Nothing is installed: each revision is
# built with `mvn package` in its own folder, and ~/.m2 is only read (and filled with downloaded
# dependencies). The scratch folders are removed at the end unless --keep is given.
set -euo pipefail

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
revs=()
rounds=3
keep=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || {
        echo "bench-ab: --rounds ${2-}: expected a positive whole number" >&2; exit 2; }
      rounds="$2"; shift 2 ;;
    --keep) keep=true; shift ;;
    --) shift; break ;;
    -h | --help) usage ;;
    -*) break ;; # the bench's own options from here on (or after --)
    *) revs+=("$1"); shift ;;
  esac
done
bench_args=("$@")
[[ ${#revs[@]} -ge 1 && ${#revs[@]} -le 2 ]] || usage
[[ ${#revs[@]} -eq 2 ]] || revs+=(HEAD)
[[ ${#bench_args[@]} -gt 0 ]] || { echo "bench-ab: no bench arguments (e.g. --workload normalize)" >&2; usage; }
for arg in "${bench_args[@]}"; do
  case "$arg" in --json | --json=* | --plot | --plot=*)
    echo "bench-ab: $arg: bench-ab writes the JSON itself; leave it out" >&2; exit 2 ;;
  esac
done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/stoker-bench-ab.XXXXXX")"
cleanup() { [[ "$keep" == true ]] || rm -rf "$scratch"; }
trap cleanup EXIT

# Lays one revision out in $scratch/<label> and builds it there.
prepare() {
  local rev="$1" label="$2" dir="$scratch/$2"
  mkdir -p "$dir"
  if [[ "$rev" == WORKTREE ]]; then
    (cd "$root" && git ls-files -z --cached --others --exclude-standard \
      | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$dir"
    echo "worktree (uncommitted changes included)" >"$dir/.rev"
  else
    local sha
    sha="$(git -C "$root" rev-parse --verify "$rev^{commit}")" || {
      echo "bench-ab: $rev: not a revision of $root" >&2; exit 2; }
    git -C "$root" archive "$sha" | tar -xf - -C "$dir"
    git -C "$root" log -1 --format='%h %s' "$sha" >"$dir/.rev"
  fi
  local cmd=(mvn -B -q -DskipTests package -pl examples -am)
  echo "bench-ab: building $label ($(cat "$dir/.rev")): ${cmd[*]}" >&2
  if ! (cd "$dir" && "${cmd[@]}") >"$dir/build.log" 2>&1; then
    tail -40 "$dir/build.log" >&2
    echo "bench-ab: the build of $rev failed (log above)" >&2
    exit 1
  fi
}

# The JVM options bin/stoker uses: the same heap and the module openings an embedded Spark needs.
java_opts() {
  local opts="${STOKER_JAVA_OPTS--Xmx2g -XX:MaxDirectMemorySize=4g -XX:+UseParallelGC}"
  opts+=" -XX:+IgnoreUnrecognizedVMOptions -Djdk.reflect.useDirectMethodHandle=false"
  local p
  for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
      java.util.concurrent java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs \
      sun.security.action sun.util.calendar; do
    opts+=" --add-opens=java.base/$p=ALL-UNNAMED"
  done
  printf '%s' "$opts"
}

run_bench() {
  local label="$1" round="$2" dir="$scratch/$1" cp="" module jar
  # Each module's own jar, then the third-party jars (older revisions also copied Stoker's own
  # jars into lib/: the same classes; revisions before the tools module have no tools/).
  for module in examples tools spark-connector loader-core; do
    [[ -d "$dir/$module" ]] || continue
    # the connector's jar carries its Scala version in newer revisions (stoker-spark-connector_2.12)
    jar="$(compgen -G "$dir/$module/target/stoker-$module[-_]*.jar" \
      | grep -v -E -- '-(sources|javadoc|tests|spark)\.jar$' | head -1 || true)"
    cp+="$jar:"
  done
  cp+="$dir/examples/target/lib/*"
  local out="$scratch/$label-$round.json"
  echo "bench-ab: round $round/$rounds, $label" >&2
  # shellcheck disable=SC2046 # java_opts holds several options
  if ! java $(java_opts) -cp "$cp" dev.stoker.examples.cli.StokerCli \
      bench "${bench_args[@]}" --json "$out" >"$scratch/$label-$round.log" 2>&1; then
    tail -20 "$scratch/$label-$round.log" >&2
    echo "bench-ab: the bench of $label failed in round $round (log above)" >&2
    exit 1
  fi
}

prepare "${revs[0]}" A
prepare "${revs[1]}" B
for ((r = 1; r <= rounds; r++)); do
  run_bench A "$r"
  run_bench B "$r"
done

python3 - "$scratch" "$rounds" "${revs[0]}" "${revs[1]}" "${bench_args[*]}" <<'PY'
import json, statistics, sys, os

scratch, rounds, rev_a, rev_b, args = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]

def figures(doc):
    """Per configuration: the throughput figures the bench reported, by a readable key."""
    out = {}
    if isinstance(doc.get("configs"), list):
        for c in doc["configs"]:
            key = "workers=%s prefetch=%s pin=%s" % (
                c.get("workers"), "-" if c.get("prefetch") is None else c.get("prefetch"),
                str(c.get("pin_memory")).lower())
            out[key] = c.get("samples_per_s")
    if isinstance(doc.get("settings"), list):  # the shuffle workload: per setting, and quality
        for c in doc["settings"]:
            for k in ("rows_per_s", "gap_entropy", "label_tv"):
                if isinstance(c.get(k), (int, float)):
                    out["%s %s" % (c.get("setting"), k)] = c[k]
    for k, v in doc.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (
                k.endswith("_per_s") or k.endswith("_s") and k != "cores"):
            out[k] = v
    return out

per = {"A": {}, "B": {}}
for label in per:
    for r in range(1, rounds + 1):
        with open(os.path.join(scratch, "%s-%d.json" % (label, r))) as f:
            for k, v in figures(json.load(f)).items():
                per[label].setdefault(k, []).append(v)

def rev(label):
    with open(os.path.join(scratch, label, ".rev")) as f:
        return f.read().strip()

print("bench-ab: A = %s (%s)" % (rev_a, rev("A")))
print("bench-ab: B = %s (%s)" % (rev_b, rev("B")))
print("bench-ab: stoker bench %s; %d round(s) each, alternating A B; medians" % (args, rounds))
keys = [k for k in per["A"] if k in per["B"]]
width = max([len(k) for k in keys] + [13])
print("%-*s %14s %14s %8s" % (width, "configuration", "A", "B", "B/A"))
for k in keys:
    a, b = statistics.median(per["A"][k]), statistics.median(per["B"][k])
    ratio = "%.2fx" % (b / a) if a else "-"
    shown = lambda v: "{:,.1f}".format(v) if abs(v) >= 100 else "{:.4g}".format(v)
    print("%-*s %14s %14s %8s" % (width, k, shown(a), shown(b), ratio))
print("(figures ending in _s that are times, such as first_batch_s, and label_tv: lower is better)")
PY
