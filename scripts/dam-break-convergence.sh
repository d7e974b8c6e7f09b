#!/usr/bin/env bash
# The dam break's convergence study (docs/SPH.md, "Dam break front"): examples/dam-break at
# several resolutions a/dx and gate speeds, each experimental point against the simulated
# front, and the criteria a validated model meets. For every gate setting:
#   1. after T = 0.8, at every a/dx >= 16, the front within +-8% of every point of Martin & Moyce
#      (1952) and of Koshizuka & Oka (1996);
#   2. the largest deviation after T = 0.8 does not grow from one resolution to the next;
#   3. the largest difference between successive resolutions' fronts shrinks.
# Prints one table per gate setting and the verdicts; exits 1 when a criterion fails, 2 on a
# usage error or a failed run. Minutes on a GPU; on a CPU a/dx = 32 takes hours.
#
#   scripts/dam-break-convergence.sh [--ratios 8,16,32,64] [--gates 0,1.5] [--device auto]
#                                    [--bin DIR/] [--out DIR] [--step-flags "FLAGS"]
#
# --gates are sph-init's --gate-speed values (m/s; 0: no gate); --bin the programs' folder with a
# trailing slash (default: PATH); --step-flags more sph-step flags for every run (e.g.
# "--viscosity laminar-sps"). Outputs: OUT/gGATE-rRATIO/ (the example's files) and OUT/summary.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ratios=8,16,32,64 gates=0,1.5 device=auto bin= out=out/dam-break-convergence step_flags=
usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case $1 in
    --ratios) ratios=$2 ;;
    --gates) gates=$2 ;;
    --device) device=$2 ;;
    --bin) bin=$2 ;;
    --out) out=$2 ;;
    --step-flags) step_flags=$2 ;;
    *) usage ;;
  esac
  shift 2
done
width=0.05715  # a, m: Martin & Moyce's 2.25 in
mkdir -p "$out"
IFS=, read -r -a ratio_list <<<"$ratios"
IFS=, read -r -a gate_list <<<"$gates"
for gate in "${gate_list[@]}"; do
  for ratio in "${ratio_list[@]}"; do
    dx=$(python3 -c "print(f'{$width / $ratio:.7g}')")
    dir="$out/g$gate-r$ratio"
    echo "== a/dx $ratio (dx $dx m), gate ${gate} m/s"
    start=$(date +%s)
    make -s -C "$here/examples/dam-break" table OUT="$(cd "$out" && pwd)/g$gate-r$ratio" DX="$dx" GATE="$gate" \
      DEVICE="$device" BIN="$bin" STEP_FLAGS="$step_flags" >"$dir.log" 2>&1 ||
      { echo "dam-break-convergence: error: the run failed (log: $dir.log)" >&2; tail -3 "$dir.log" >&2; exit 2; }
    echo "   $(($(date +%s) - start)) s"
  done
done
python3 - "$out" "$ratios" "$gates" <<'EOF' | tee "$out/summary.txt"
import csv, sys
out, ratios, gates = sys.argv[1], [int(r) for r in sys.argv[2].split(",")], sys.argv[3].split(",")
T_FROM, BOUND = 0.8, 8.0  # the criteria's start (T) and band (percent)

def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))

def front_at(rows, T):  # simulated Z at T, linear between the recorded times
    for a, b in zip(rows, rows[1:]):
        Ta, Tb = float(a["T"]), float(b["T"])
        if Ta <= T <= Tb:
            return float(a["Z"]) + (float(b["Z"]) - float(a["Z"])) * (T - Ta) / (Tb - Ta) if Tb > Ta else float(a["Z"])
    return None

failed = False
for gate in gates:
    print(f"gate {gate} m/s: deviation from experiment after T = {T_FROM} (percent)")
    print(f"{'a/dx':>5} {'MM min':>7} {'MM max':>7} {'KO min':>7} {'KO max':>7} {'max |dev|':>9} {'change':>7}")
    worst, fronts = {}, {}
    for r in ratios:
        d = f"{out}/g{gate}-r{r}"
        points = [p for p in read(f"{d}/compare.tsv") if float(p["T"]) > T_FROM]
        fronts[r] = read(f"{d}/front.tsv")
        dev = {s: [float(p["deviation_percent"]) for p in points if p["source"] == s] for s in ("MM", "KO")}
        worst[r] = max(abs(v) for v in dev["MM"] + dev["KO"])
        change = ""
        k = ratios.index(r)
        if k > 0:  # largest |Z_r - Z_previous| over the experiments' times, as a percent of Z
            prev = fronts[ratios[k - 1]]
            diffs = [abs(front_at(fronts[r], float(p["T"])) - front_at(prev, float(p["T"]))) / float(p["Z_experiment"])
                     for p in points if front_at(prev, float(p["T"])) is not None]
            change = f"{100 * max(diffs):.1f}"
            fronts[r, "change"] = max(diffs)
        print(f"{r:>5} {min(dev['MM']):>+7.1f} {max(dev['MM']):>+7.1f} {min(dev['KO']):>+7.1f} {max(dev['KO']):>+7.1f} "
              f"{worst[r]:>9.1f} {change:>7}")
    verdicts = []
    band = [r for r in ratios if r >= 16]
    outside = [r for r in band if worst[r] > BOUND]
    verdicts.append(("within +-8% of both experiments at a/dx >= 16", not outside,
                     f"outside at a/dx {', '.join(map(str, outside))}" if outside else ""))
    grows = [(a, b) for a, b in zip(ratios, ratios[1:]) if worst[b] > worst[a]]
    verdicts.append(("the deviation does not grow with resolution", not grows,
                     "; ".join(f"{a} -> {b}: {worst[a]:.1f} -> {worst[b]:.1f}" for a, b in grows)))
    changes = [fronts[r, "change"] for r in ratios[1:]]
    widening = [(ratios[k + 1], ratios[k + 2]) for k in range(len(changes) - 1) if changes[k + 1] >= changes[k]]
    verdicts.append(("the differences between successive resolutions shrink", not widening,
                     "; ".join(f"at {a} -> {b}" for a, b in widening)))
    if not band:
        verdicts[0] = (verdicts[0][0], None, "no a/dx >= 16 in --ratios")
    if len(ratios) < 3:
        verdicts[2] = (verdicts[2][0], None, "needs three resolutions")
    for what, ok, why in verdicts:
        print(f"  {'n/a ' if ok is None else 'pass' if ok else 'FAIL'}: {what}" + (f" ({why})" if why else ""))
        failed |= ok is False
    print()
sys.exit(1 if failed else 0)
EOF
