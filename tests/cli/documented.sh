#!/usr/bin/env bash
# What the documentation says is what the code does (issue 24, class 5):
#  1. every flag a man page's OPTIONS section documents is one the program accepts (--help),
#     and every flag the program accepts is documented there (the shared flags in README.md);
#  2. every documented flag works: run with a value other than the default, it changes what the
#     program writes (frames by particle-info's description of them, provenance aside; text and
#     images byte for byte) -- each flag below, or, for those that must not change the result
#     (logging, threads, codec levels), in the list of exemptions with the reason;
#  3. the particle counts the man pages state for sph-init's scenes.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export PATH="$PARTIKEL_BUILD_DIR/bin:$PATH"
export PARTIKEL_DEVICE=cpu
# Outputs stamped with a fixed time (base/system.hpp), so that two identical runs write the same bytes.
export SOURCE_DATE_EPOCH=1700000000
man_dir="$PARTIKEL_SOURCE_DIR/man/man1"
programs=(sph-init sph-step nbody-init nbody-run pic-track frnn-build splat-render particle-info particle-convert
          compare-results)
# Spelled the same by every program and documented once, in README.md.
shared="--help --version --config --quiet --verbose --progress --log-format --input --output --force --device --threads --seed --profile"

# Long flags of the OPTIONS section's item heads (the lines after .TP), and of --help.
documented() {
  sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' "$man_dir/$1.1" | awk 'prev ~ /^\.TP/ { print } { prev = $0 }' |
    sed 's/\\-/-/g' | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u
}
accepted() {
  "$1" --help | grep -o '^  \(-[A-Za-z0-9],\)\?--[a-z0-9][a-z0-9-]*\(,--[a-z0-9-]*\)*' | sed 's/^ *\(-[A-Za-z0-9],\)\?//' | tr ',' '\n' | sort -u
}
first_names() {  # the first long name of each option: aliases (--color) need no entry of their own
  "$1" --help | grep -o '^  \(-[A-Za-z0-9],\)\?--[a-z0-9][a-z0-9-]*' | sed 's/^ *\(-[A-Za-z0-9],\)\?//' | sort -u
}

# --- 1. documented <=> accepted ---------------------------------------------------------------
for prog in "${programs[@]}"; do
  doc=$(documented "$prog")
  [ -n "$doc" ] || { echo "FAIL $prog: no flag found in the OPTIONS section of its man page"; fail=1; continue; }
  missing=$(comm -23 <(echo "$doc") <(accepted "$prog"))
  [ -z "$missing" ] || { echo "FAIL $prog: documented, not accepted: $(echo $missing)"; fail=1; }
  for flag in $(comm -13 <(echo "$doc") <(first_names "$prog")); do
    case " $shared " in *" $flag "*) continue ;; esac
    echo "FAIL $prog: accepts $flag, which its man page's OPTIONS section does not document"; fail=1
  done
done

# --- 2. every documented flag changes the result ----------------------------------------------
in="$work/in"
mkdir "$in"
sph-init dam-break --dx 0.05 -q -o "$in/db.pks" || exit 1
sph-step -i "$in/db.pks" --steps 4 --every-steps 2 --deterministic --threads 1 -q -o "$in/three.pks" || exit 1
sph-init dam-break --dx 0.05 --c0 25 -q -o "$in/db2.pks" || exit 1
sph-step -i "$in/db2.pks" --steps 4 --every-steps 2 --deterministic --threads 1 -q -o "$in/other.pks" || exit 1
nbody-init plummer -n 64 -q -o "$in/nb.pks" || exit 1
nbody-init plummer -n 64 --units astro -q -o "$in/nb-astro.pks" || exit 1
pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e10 --steps 2 --every-steps 1 --threads 1 -q \
  -o "$in/beam.pks" || exit 1
nbody-run -i "$in/nb.pks" --steps 2 --every-steps 1 --threads 1 -q -o "$in/nb3.pks" || exit 1
# A 16 x 16 raw terrain (1 m cells) sloping along z, and one rising along x.
"${PYTHON:-/usr/bin/python3}" -c '
import struct
with open("'"$in"'/slope.raw", "wb") as f:
    f.write(b"".join(struct.pack("<H", 400 * k) for k in range(16) for i in range(16)))
with open("'"$in"'/ramp.raw", "wb") as f:
    f.write(b"".join(struct.pack("<H", 300 * i) for k in range(16) for i in range(16)))'
printf '0 0.3 0.4 1.5 0.3 0.1 0.3\n5 1.5 0.8 0.2 0.3 0.1 0.3\n' >"$in/path.txt"
printf 'quadrupole qf L=1 k1=0.05\ndrift d1 L=5\nquadrupole qd L=1 k1=-0.05\ndrift d2 L=5\n' >"$in/fodo.txt"
printf 'turn,energy,note\n0,1.5,x\n1,1.25,y\n2,nan,z\n' >"$in/t1.csv"
printf 'x,y,z,energy\n0,0,0,1.5\n1,0,0,1.25\n' >"$in/n1.csv"
printf 'x,y,z,energy\n0,0,0,1.5\n1,0,0,1.2500001\n' >"$in/n2.csv"
printf 'turn,energy,note\n0,1.5,x\n1,1.2500001,y\n2,nan,z\n3,7,w\n' >"$in/t2.csv"
splat-render -i "$in/db.pks" --style points --size 8x8 --threads 1 -q -o "$in/i1.exr" || exit 1
head -c $(($(stat -c %s "$in/three.pks") - 40)) "$in/three.pks" >"$in/cut.pks"
# The same particles without "id": paired by index, unless --id-column names the renamed column.
particle-convert "$in/three.pks" --columns position,id:serial -q -o "$in/serial.pks" || exit 1
particle-convert "$in/other.pks" --columns position,id:serial -q -o "$in/serial2.pks" || exit 1
splat-render -i "$in/db.pks" --style points --size 8x8 --threads 1 --intensity 1.001 -q -o "$in/i2.exr" || exit 1

# The base runs: what each variant adds flags to, and how its result is described. OUT is the
# run's output name. "frames": particle-info's description of OUT (the provenance keys, which
# name the command line and the hour, left out); "text": OUT byte for byte; "image": OUT_0.exr
# (and its preview) byte for byte; "stdout": what the program printed.
declare -A base=(
  [init]="sph-init dam-break --dx 0.05 -o OUT"
  [init-box]="sph-init box --dx 0.05 --box 0,0,0,0.2,0.2,0.2 --domain 0,0,0,0.5,0.5,0.5 -o OUT"
  [init-sphere]="sph-init sphere --dx 0.05 --center 0.5,0.5,0.5 --radius 0.2 --domain 0,0,0,1,1,1 -o OUT"
  [init-column]="sph-init column --dx 0.05 --center 0.5,0,0.5 --radius 0.2 --height 0.4 --domain 0,0,0,1,1,1 -o OUT"
  [init-tank]="sph-init still-tank --dx 0.02 -o OUT"
  [init-pool]="sph-init pool --particles 2000 -o OUT"
  [init-terrain]="sph-init inclined-plane --dx 0.3 --terrain $in/slope.raw --terrain-size 16,16 --terrain-scale 0.0005 -o OUT"
  [init-avalanche]="sph-init avalanche --dx 0.4 --terrain $in/slope.raw --terrain-size 16,16 --terrain-scale 0.001 --release 2,2,12,12 -o OUT"
  [step]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic -o OUT"
  [step-diag]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --diag OUT -o /dev/null"
  [step-null]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic -o /dev/null"
  [step-power]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --model power-law -o OUT"
  [step-sps]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --viscosity laminar-sps -o OUT"
  [step-mdbc]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --boundary mdbc -o OUT"
  [step-snow]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --model bingham -o OUT"
  [step-wave]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --wave-face 1 --wave-amplitude 0.01 -o OUT"
  [step-verlet]="sph-step -i $in/db.pks --steps 4 --threads 1 --deterministic --integrator verlet -o OUT"
  [step-terrain]="sph-step -i IN_TERRAIN --steps 4 --threads 1 --deterministic -o OUT"
  [step-three]="sph-step -i $in/three.pks --steps 2 --threads 1 --deterministic -o OUT"
  [nbinit]="nbody-init plummer --bodies 64 -o OUT"
  [nbinit-uniform]="nbody-init uniform -n 64 -o OUT"
  [nbinit-kepler]="nbody-init kepler -o OUT"
  [nbinit-pair]="nbody-init galaxy-pair -n 512 -o OUT"
  [nbinit-astro]="nbody-init plummer -n 64 --units astro -o OUT"
  [nbody]="nbody-run -i $in/nb.pks --steps 4 --threads 1 -o OUT"
  [nbody-diag]="nbody-run -i $in/nb.pks --steps 4 --threads 1 --diag OUT -o /dev/null"
  [nbody-null]="nbody-run -i $in/nb.pks --steps 4 --threads 1 -o /dev/null"
  [nbody-acc]="nbody-run -i $in/nb.pks --steps 4 --threads 1 --acceleration -o OUT"
  [nbody-three]="nbody-run -i $in/nb3.pks --steps 2 --threads 1 -o OUT"
  [nbody-astro]="nbody-run -i $in/nb-astro.pks --steps 4 --threads 1 -o OUT"
  [pic]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e10 --steps 2 --threads 1 -o OUT"
  [pic-sc]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e12 --steps 2 --threads 1 --sc-kicks 4 --sc-grid 16,16 -o OUT"
  [pic-lsc]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e12 --steps 2 --threads 1 --bunch-length 50 --sc-kicks 4 --sc-grid 16,16 --longitudinal-sc --pipe-radius 0.05 -o OUT"
  [pic-diag]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e10 --steps 2 --threads 1 --diag OUT -o /dev/null"
  [pic-null]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e10 --steps 2 --threads 1 -o /dev/null"
  [pic-bunched-sc]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e12 --steps 2 --threads 1 --bunch-length 50 --sc-kicks 4 --sc-grid 16,16 --pipe-radius 0.05 -o OUT"
  [pic-sc-pipe]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e12 --steps 2 --threads 1 --sc-kicks 4 --sc-grid 16,16 --pipe-radius 0.05 -o OUT"
  [pic-bunch]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e10 --steps 2 --threads 1 --bunch-length 50 -o OUT"
  [pic-probes]="pic-track --distribution kv --particles 256 --energy 1e9 --intensity 1e10 --steps 40 --threads 1 --tune-probes 4 --diag OUT --diag-every-steps 1 -o /dev/null"
  [pic-lattice]="pic-track --print-lattice --energy 1e9"
  [pic-in]="pic-track -i $in/beam.pks --steps 2 --threads 1 -o OUT"
  [frnn]="frnn-build -i $in/db.pks --radius 0.1 --threads 1 -o OUT"
  [frnn-stats]="frnn-build -i $in/db.pks --radius 0.1 --threads 1 --stats --check 0"
  [frnn-verlet]="frnn-build -i $in/db.pks --radius 0.1 --threads 1 --method verlet -o OUT"
  [frnn-subcell]="frnn-build -i $in/db.pks --radius 0.1 --threads 1 --method subcell -o OUT"
  [frnn-column]="frnn-build -i $in/db.pks --radius-column sph.h --threads 1 -o OUT"
  [frnn-domain]="frnn-build -i $in/db.pks --radius 0.1 --threads 1 --domain -0.15,-0.15,0,0.5,0.3,0.5 -o OUT"
  [render-fluid]="splat-render -i $in/db.pks --size 24x16 --flow-steps 4 --threads 1 --in-flight 1 -o OUT_%d.exr"
  [render-points]="splat-render -i $in/db.pks --style points --size 24x16 --threads 1 --in-flight 1 -o OUT_%d.exr"
  [render-spheres]="splat-render -i $in/db.pks --style spheres --size 24x16 --threads 1 --in-flight 1 -o OUT_%d.exr"
  [render-three]="splat-render -i $in/three.pks --style points --size 24x16 --threads 1 --in-flight 1 -o OUT_%d.exr"
  [render-eye]="splat-render -i $in/db.pks --style points --size 24x16 --threads 1 --in-flight 1 --eye 1,1,2 --target 0.2,0.1,0.2 -o OUT_%d.exr"
  [render-colour]="splat-render -i $in/db.pks --style points --size 24x16 --threads 1 --in-flight 1 --colour position.x -o OUT_%d.exr"
  [render-preview]="splat-render -i $in/db.pks --style points --size 24x16 --threads 1 --in-flight 1 --preview -o OUT_%d.exr"
  [info]="particle-info $in/three.pks"
  [convert]="particle-convert $in/three.pks OUT"
  [convert-cut]="particle-convert $in/cut.pks OUT"
  [convert-h5]="particle-convert $in/three.pks OUT.h5"
  [convert-csv]="particle-convert $in/three.pks --groups fluid --frames 0 OUT.csv"
  [compare]="compare-results $in/three.pks $in/other.pks"
  [compare-serial]="compare-results $in/serial.pks $in/serial2.pks"
  [compare-numbers]="compare-results $in/n1.csv $in/n2.csv"
  [compare-time]="compare-results $in/three.pks $in/other.pks --match time"
  [compare-stats]="compare-results $in/three.pks $in/other.pks --stats"
  [compare-tables]="compare-results $in/t1.csv $in/t2.csv"
  [compare-images]="compare-results $in/i1.exr $in/i2.exr"
)
declare -A kind=(
  [step-diag]=text [step-null]=text [nbody-diag]=text [nbody-null]=text [pic-diag]=text [pic-null]=text
  [pic-probes]=text [render-eye]=image [render-colour]=image [render-preview]=image [compare-time]=stdout
  [compare-serial]=stdout [compare-numbers]=stdout [compare-stats]=stdout [frnn-stats]=stats [pic-lattice]=stdout [info]=stdout
  [convert]=text [convert-cut]=text [convert-h5]=h5 [convert-csv]=csv [compare]=stdout [compare-tables]=stdout [compare-images]=stdout
  [render-fluid]=image [render-points]=image [render-spheres]=image [render-three]=image
)
sph-init inclined-plane --dx 0.3 --terrain "$in/slope.raw" --terrain-size 16,16 --terrain-scale 0.0005 -q -o "$in/terrain.pks" ||
  exit 1

describe() {  # describe KIND OUT: the result, as compared
  case $1 in
    frames) particle-info --all-attributes "$2" | grep -v -E '^  (command_line|utc_time|commit|version) = ' ;;
    text | stdout) cat "$2" ;;
    # frnn-build --stats: the measured times differ from run to run; a flag must change the rest
    stats) grep -v '^  time (ms):' "$2" | sed -E 's/"time_s":\{[^}]*\}//' ;;
    image) cat "$2"_*.exr "$2"_*.png 2>/dev/null ;;
    csv) cat "$2".csv ;;
    h5) h5dump -A "$2".h5 2>/dev/null | grep -v -E 'command_line|utc_time|date'; cat "$2"_*.h5 2>/dev/null | md5sum ;;
  esac
}
# run BASE NAME [FLAGS...]: the base command with FLAGS, in run/NAME/. A flag the base gives
# too takes the value FLAGS give it; ~FLAG drops FLAG (and its value) from the base.
run() {
  local b=$1 name=$2
  shift 2
  local dir="$work/run/$name"
  mkdir -p "$dir"
  local command=${base[$b]//OUT/$dir/out}
  command=${command//IN_TERRAIN/$in/terrain.pks}
  local -a tokens args=()
  read -r -a tokens <<<"$command"
  local arg flag t
  for arg in "${@//OUT/$dir/out}"; do
    flag=${arg#\~}
    if [[ $flag == --* ]]; then
      for ((t = 1; t < ${#tokens[@]}; ++t)); do
        [ "${tokens[t]}" = "$flag" ] || continue
        unset 'tokens[t]'
        [[ ${tokens[t + 1]:-} == --* ]] || unset 'tokens[t + 1]'
        tokens=("${tokens[@]}")
        break
      done
    fi
    [ "$flag" = "$arg" ] && args+=("$arg")
  done
  (cd "$dir" && timeout 120 "${tokens[@]}" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr")
  echo $? >"$dir/status"
  local k=${kind[$b]:-frames}
  if [ "$k" = stdout ] || [ "$k" = stats ]; then describe "$k" "$dir/stdout"; else describe "$k" "$dir/out"; fi >"$dir/result" 2>&1
}
declare -A based=()
# changes BASE FLAGS...: both runs succeed and the results differ.
changes() {
  local b=$1
  shift
  local name
  name=$(echo "$b $*" | tr -c 'A-Za-z0-9.\n-' '_')
  if [ -z "${based[$b]+set}" ]; then
    # A result that differs between two identical runs would make every variant "change" it.
    run "$b" "base-$b"
    mv "$work/run/base-$b/result" "$work/run/first-result-$b"
    rm -rf "$work/run/base-$b"
    run "$b" "base-$b"
    based[$b]=1
    cmp -s "$work/run/base-$b/result" "$work/run/first-result-$b" ||
      { echo "FAIL base run $b: two identical runs give different results"; fail=1; }
  fi
  run "$b" "$name" "$@"
  # compare-results: 0 equal or 1 different; everything else: 0.
  local ok=" 0 "
  [ "${b%%-*}" = compare ] && ok=" 0 1 "
  if [[ $ok != *" $(cat "$work/run/base-$b/status") "* ]]; then
    echo "FAIL base run $b failed:"; sed 's/^/  /' "$work/run/base-$b/stderr" | head -3; fail=1; return
  fi
  if [[ $ok != *" $(cat "$work/run/$name/status") "* ]]; then
    echo "FAIL ${base[$b]%% *} $*: exit $(cat "$work/run/$name/status"):"; sed 's/^/  /' "$work/run/$name/stderr" | head -3
    fail=1; return
  fi
  if cmp -s "$work/run/base-$b/result" "$work/run/$name/result"; then
    echo "FAIL ${base[$b]%% *} $*: the result is the same as without it"; fail=1
  fi
  local arg
  for arg in "$@"; do  # the first flag the variant gives (not one it drops)
    [[ $arg == \~* ]] && continue
    tested+=" ${base[$b]%% *}:$arg"
    break
  done
}
# refuses BASE FLAGS...: a limit: the run that succeeds without FLAGS is refused (exit 2) with them.
refuses() {
  local b=$1
  shift
  local name
  name=$(echo "refuses $b $*" | tr -c 'A-Za-z0-9.\n-' '_')
  run "$b" "$name" "$@"
  [ "$(cat "$work/run/$name/status")" = 2 ] || { echo "FAIL ${base[$b]%% *} $*: exit $(cat "$work/run/$name/status"), expected 2"; fail=1; }
  tested+=" ${base[$b]%% *}:$1"
}
# rescues BASE FLAGS...: the run that fails without FLAGS succeeds with them.
rescues() {
  local b=$1
  shift
  local name
  name=$(echo "rescues $b $*" | tr -c 'A-Za-z0-9.\n-' '_')
  run "$b" "base-$name"
  run "$b" "$name" "$@"
  [ "$(cat "$work/run/base-$name/status")" != 0 ] || { echo "FAIL ${base[$b]} succeeds without $*"; fail=1; }
  [ "$(cat "$work/run/$name/status")" = 0 ] || { echo "FAIL ${base[$b]%% *} $*: exit $(cat "$work/run/$name/status")"; fail=1; }
  tested+=" ${base[$b]%% *}:$1"
}
tested=""

# sph-init
changes init --dx 0.04
changes init --width 0.1
changes init --gate-speed 1.5
changes init --hdx 1.3
changes init --coefh 0.8
changes init --c0 30
changes init --hydrostatic
changes init --boundary-layers 1
changes init --boundary mdbc
changes init-tank --periodic
changes init-tank --width 0.05
changes init-pool --particles 3000
changes init-pool --model newtonian-muller
changes init-box --box 0,0,0,0.3,0.2,0.2
changes init-box --domain 0,0,0,0.6,0.5,0.5
changes init-sphere --center 0.4,0.5,0.5
changes init-sphere --radius 0.25
changes init-column --height 0.3
changes init-terrain --terrain "$in/ramp.raw"
changes init-terrain --terrain-size 8,32
changes init-terrain --terrain-cell 0.8
changes init-terrain --terrain-scale 0.0003
changes init-terrain --terrain-offset 0.5
changes init-terrain --terrain-tile 2
changes init-terrain --terrain-law penalty
changes init-terrain --terrain-stiffness 500
changes init-terrain --terrain-damping 5
changes init-terrain --terrain-friction 2
changes init-terrain --terrain-friction-height 0.2
changes init-avalanche --release 3,3,12,12
changes init-avalanche --thickness 0.5
# sph-step
changes step --steps 2
changes step ~--steps --until 0.002
changes step --every 0.001
changes step --every-steps 1
changes step-three --start-frame 0
changes step-null --diag OUT
changes step-diag --diag-format csv
changes step-diag --diag-every-steps 1
changes step --grid-subdivision 0
changes step --boundary mdbc
changes step-mdbc --boundary-velocity no-slip
changes step-snow --write-stress
changes step --model newtonian-muller
changes step-snow --gas-constant 2000
changes step-snow --mu 10
changes step-snow --mu-solid 100
changes step-snow --yield-stress 500
changes step-power --power-n 0.5
changes step-snow --xsph-phi 0.5
changes step --max-speed 0.01
changes step --max-acceleration 1
changes step-snow --stress-form sandvik
changes step --alpha 0.5
changes step --c0 30
changes step --viscosity laminar
changes step-sps --laminar-nu 0.01
changes step-sps --sps-cs 1
changes step-sps --sps-ci 0.1
refuses step --laminar-nu 0.01
changes step --gravity 0,-1,0
changes step --kernel cubic
changes step --density summation
changes step --shepard-every 1
changes step --xsph 0.5
changes step --diffusion molteni
changes step --delta 0.5
changes step --integrator symplectic
changes step-verlet --verlet-euler-every 2
changes step --cfl 0.1
changes step --dt-max 1e-4
changes step --density-limits 999.9,1000.1
changes step --dt 1e-4
changes step --faces open,open,wall,open,wall,wall
changes step --wall-stiffness 5
changes step --wall-damping 2
changes step-wave --wave-face 0
changes step-wave --wave-amplitude 0.05
changes step-wave --wave-period 0.1
changes step-terrain --terrain-law penalty
changes step-terrain --terrain-stiffness 500
changes step-terrain --terrain-damping 5
changes step-terrain --terrain-friction 2
changes step-terrain --terrain-friction-height 0.2
changes step-terrain --terrain-tile 2
# nbody-init
changes nbinit --bodies 32
changes nbinit --seed 2
refuses nbinit --max-particles 32
changes nbinit-astro --mass 2
changes nbinit-astro --length 2
changes nbinit --units astro
changes nbinit --mass-cut 0.9
changes nbinit-uniform --shape cube
changes nbinit-uniform --size 2
changes nbinit-uniform --virial-ratio 0.5
changes nbinit-kepler --eccentricity 0.1
changes nbinit-kepler --semi-major-axis 2
changes nbinit-kepler --mass1 0.7
changes nbinit-kepler --mass2 0.3
changes nbinit-pair --separation 400
changes nbinit-pair --pericenter 20
changes nbinit-pair --time-to-pericenter 1000
changes nbinit-pair --disk-mass 3
changes nbinit-pair --total-mass 100
changes nbinit-pair --disk-scale 2
changes nbinit-pair --disk-height 0.5
changes nbinit-pair --halo-scale 10
changes nbinit-pair --halo-mass-cut 0.9
changes nbinit-pair --inclination 30
# nbody-run
changes nbody --steps 2
changes nbody ~--steps --until 0.01
changes nbody --every 0.01
changes nbody --every-steps 1
changes nbody-null --diag OUT
changes nbody-diag --diag-format csv
changes nbody-diag --diag-every-steps 1
changes nbody --acceleration
changes nbody-acc --potential
changes nbody --method direct
changes nbody --theta 0.9
changes nbody --leaf-size 4
changes nbody --max-depth 2
changes nbody --multipole monopole
changes nbody --softening 0.5
changes nbody --dt 0.001
changes nbody-three --start-frame 0
changes nbody-astro --units astro --dt 0.01
changes nbody ~--steps --force-error 16
# pic-track
changes pic --steps 1
changes pic ~--steps --until 2e-6
changes pic --every 1e-6
changes pic --every-steps 1
changes pic --print-lattice
changes pic --ring constant-focusing
changes pic --cells 8
changes pic --phase-advance 60
changes pic --cell-length 20
changes pic --quad-length 3
changes pic --bends
changes pic --gamma-t 5
changes pic --pipe-radius 0.001
changes pic-lattice --lattice "$in/fodo.txt"
changes pic --distribution waterbag
changes pic --particles 128
changes pic --Z 2 --A 4
changes pic --A 4
changes pic --mass-kg 2e-27
changes pic --energy 2e9
changes pic-sc --intensity 1e13
changes pic --emittance 20
changes pic --mismatch 1.2
changes pic --offset 0.001,0
changes pic --momentum-spread 0.02
changes pic --bunch-length 50
changes pic-bunch --bunch-shape gaussian
changes pic --sc-kicks 4 --sc-grid 16,16
changes pic-sc --sc-grid 32,32
changes pic-lsc --sc-slices 8
changes pic-sc --sc-maps per-kick
changes pic-sc --sc-deposition sorted
changes pic-sc-pipe --sc-pipe
changes pic-bunched-sc --longitudinal-sc
changes pic-lsc --line-cells 64
changes pic-lsc --geometry-factor 5
changes pic-lsc --harmonic-cutoff 2
changes pic-null --tune-probes 4 --diag OUT
changes pic-probes --tune-turns 16
changes pic --beam-physics
changes pic --seed 2
changes pic-null --diag OUT
changes pic-diag --diag-format csv
changes pic-diag --diag-every-steps 1
changes pic-in --start-frame 0
# frnn-build
changes frnn --group boundary
changes frnn --radius 0.12
changes frnn ~--radius --radius-column sph.h
changes frnn-column --factor 3
changes frnn --method verlet
changes frnn-subcell --k 1
changes frnn-subcell --search cube
changes frnn-verlet --skin 0.05
changes frnn-domain --periodic x
changes frnn --domain -0.2,-0.2,-0.1,0.6,0.3,0.6
changes frnn --morton
changes frnn --sort radix
changes frnn-subcell --order shared-first
changes frnn --stats
changes frnn-stats --json
changes frnn-stats --check 5  # of the 20 fluid particles (the base checks all)
changes frnn-stats --search-cells
# splat-render
changes render-points --style spheres
changes render-points --size 32x16
changes render-three --frames 1
changes render-points --preview
changes render-points --compression none
changes render-points --zip-level 9
changes render-points --passes rgba
changes render-points --eye 1,1,2
changes render-points --target 0.1,0.1,0.1
changes render-points --up 1,0,0
changes render-points --fov 20
changes render-eye --fit
changes render-points --direction 1,0,0
changes render-three --orbit 30
changes render-points --camera-path "$in/path.txt"
changes render-fluid --smoothing-length 0.1
changes render-fluid --radius-over-h 0.9
changes render-fluid --anisotropy 1.5 --centre-smoothing 0
changes render-fluid --min-neighbours 5
changes render-fluid --centre-smoothing 0.5
changes render-fluid --flow-steps 8
changes render-fluid --flow-rate 0.2
changes render-fluid --discontinuity 1
changes render-fluid --absorption 5,5,5
changes render-fluid --fluid-colour 1,0,0
changes render-fluid --refractive-index 1.5
changes render-fluid --fluid-group boundary
changes render-fluid --opaque-groups fluid --fluid-group boundary
changes render-points --colour velocity
changes render-points --color velocity
changes render-colour --colormap magma
changes render-colour --range 0,0.1
changes render-colour --percentiles 30,70
changes render-spheres --radius 0.01
changes render-spheres --radius-column density   # a column of radii (here: its values, ~1000 m)
changes render-points --sigma 3
changes render-points --intensity 2
changes render-points --particle-colour 1,0,0
changes render-points --particle-color 0,1,0
changes render-points --groups fluid
changes render-points --background gradient
changes render-fluid --environment "$in/i1.exr"
changes render-spheres --light 1,0,0
changes render-preview --exposure 3
# particle-info
changes info --json
changes info --no-stats
changes info --all-attributes
changes info --frames 1
# particle-convert
changes convert --to csv --groups fluid --frames 0
changes convert --frames 1
changes convert --groups fluid
changes convert --columns position,id
changes convert --level 19
changes convert --no-shuffle
changes convert --no-compress
changes convert --no-index
changes convert-h5 --h5-compression none
changes convert-h5 --h5-level 9
changes convert-h5 --file-based
changes convert-h5 --no-xdmf
changes convert-csv --csv-metadata
rescues convert-cut --recover
# compare-results
changes compare --atol 1e9
changes compare --rtol 1
changes compare --tol density=1e9
changes compare --rel-floor 1e3
changes compare-tables --nan-equal
changes compare-tables --subset
changes compare --match time
changes compare-time --time-tol 1
changes compare-serial --id-column serial
changes compare-tables --key turn
changes compare --stats
changes compare-stats --quantiles 0.5
changes compare-stats --ks-alpha 0.5
changes compare-stats --ks-max 0.001
changes compare-images --min-psnr 10
changes compare --columns density
changes compare --ignore density
changes compare-numbers --kind particles
changes compare --json
changes compare --brief

# Flags whose documented effect is not on the result (so the result cannot show it), each
# with the reason; every other documented flag must be in a `changes` line above.
declare -A exempt=(
  [--list]="prints the scenes or models instead of running (checked by tests/cli/sph-init, nbody-init)"
  [--in-flight]="how many images encode at once; the images are the same"
  [--zstd-level]="the frames' compression level; the frames are the same (particle-convert --level: above)"
  [--deterministic]="a stable cell order on the GPU; the CPU with one thread has it anyway (gpu tests compare)"
  [--balance-every]="moves slab borders between ranks under mpirun; frames equal one rank's (mpi.sph-step.ranks)"
  [--rank-capacity]="rows each rank allocates under mpirun; frames equal one rank's (mpi.sph-step.ranks)"
  [--no-halo-overlap]="when each halo is built under mpirun; the frames are the same bits (mpi.sph-step.ranks)"
  [--split]="how ranks share a sequence under mpirun; images equal one rank's (mpi.splat-render.ranks)"
)
for prog in "${programs[@]}"; do
  for flag in $(documented "$prog"); do
    case " $shared " in *" $flag "*) continue ;; esac
    [ -n "${exempt[$flag]+set}" ] && continue
    case " $tested " in *" $prog:$flag "*) continue ;; esac
    # Short and long names: the test may spell the short one.
    echo "FAIL $prog $flag: documented, but no test shows that it changes anything (add a 'changes' line or an exemption)"
    fail=1
  done
done

# --- 3. the counts the man pages state -------------------------------------------------------
sph-init inclined-plane -q -o ip.pks
expect_text "inclined-plane at its default dx" <(particle-info ip.pks) "group fluid: 60800 particles"
sph-init coastal --dx 1.1 -q -o co.pks
expect_text "coastal at dx 1.1 m" <(particle-info co.pks) "group fluid: 767471 particles"
for count in "60,800" "767,471" "6,076,294"; do
  expect_text "sph-init(1) states $count" "$man_dir/sph-init.1" "$count"
done
# Spheres take their radii from a column (issue 24: refused before as "needs a positive radius").
particle-convert "$in/db.pks" --groups fluid -q -o fluid.csv
sed '1,/^position/ s/^\(position.*\)$/\1,radius:f32/; /^[-0-9]/ s/$/,0.5/' fluid.csv >radius.csv
check "spheres from a radius column" 0 splat-render -i radius.csv --style spheres --radius-column radius --size 16x16 -o r_%d.exr
finish
