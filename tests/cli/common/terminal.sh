#!/usr/bin/env bash
# What every program shows on a terminal (issue 25): --help fits 80 columns (and follows
# $COLUMNS), a successful run ends with one summary line on stderr when stderr is not a
# terminal, and the man pages share one header style and keep their examples within 80
# columns (as man renders them in an 80-column terminal).
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export PATH="$PARTIKEL_BUILD_DIR/bin:$PATH" PARTIKEL_DEVICE=cpu LC_ALL=C.UTF-8
man_dir="$PARTIKEL_SOURCE_DIR/man/man1"
programs=(sph-init sph-step nbody-init nbody-run pic-track frnn-build splat-render particle-info particle-convert
          compare-results)
widest() { awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'; }

# --- --help -----------------------------------------------------------------------------------
for prog in "${programs[@]}"; do
  width=$(env -u COLUMNS "$prog" --help | widest)
  [ "$width" -le 80 ] || { echo "FAIL $prog --help is $width columns wide:"; env -u COLUMNS "$prog" --help | awk 'length($0) > 80' | head -3; fail=1; }
done
# Wider and narrower terminals: the description fills 120 columns; narrower ones, down to the
# 50 columns --help keeps at least, get every line within them: descriptions wrap, a long
# example continues shell-style and a long option value list after a comma.
width=$(COLUMNS=120 splat-render --help | widest)
[ "$width" -gt 80 ] && [ "$width" -le 120 ] || { echo "FAIL COLUMNS=120: splat-render --help is $width columns wide"; fail=1; }
for columns in 72 60 50; do
  for prog in "${programs[@]}"; do
    width=$(COLUMNS=$columns "$prog" --help | widest)
    [ "$width" -le $columns ] || { echo "FAIL COLUMNS=$columns: $prog --help is $width columns wide:";
      COLUMNS=$columns "$prog" --help | awk -v c=$columns 'length($0) > c' | head -3; fail=1; }
  done
done
# The continued example, joined again, is the 80-column line; the value list keeps every name.
example() { sed -e ':a' -e '/ \\$/N; s/ \\\n */ /; ta' | grep -F 'mpirun -np 4 nbody-run'; }
[ "$(COLUMNS=50 nbody-run --help | example)" = "$(env -u COLUMNS nbody-run --help | example)" ] ||
  { echo "FAIL COLUMNS=50: nbody-run's example is not the 80-column one continued:"; COLUMNS=50 nbody-run --help | grep -A2 -F 'mpirun -np 4'; fail=1; }
COLUMNS=50 splat-render --help | tr -d '\n ' | grep -qF -- '--colormapTEXT:{viridis,magma,inferno,coolwarm,grey,gray}=viridis' ||
  { echo "FAIL COLUMNS=50: splat-render's --colormap values are not all there:"; COLUMNS=50 splat-render --help | grep -A2 -- --colormap; fail=1; }

# --- one summary line at the end of a run ------------------------------------------------------
# summary PROG ARGS...: the run succeeds and its last stderr line is PROG's info line.
summary() {
  local prog=$1
  check "$prog runs" 0 "$@"
  local last
  last=$(tail -n 1 "$work/err")
  [[ "$last" == "$prog: info: "* ]] || { echo "FAIL $prog: no summary line last on stderr (got '$last')"; fail=1; }
}
summary sph-init dam-break --dx 0.05 -o db.pks
summary sph-step -i db.pks --steps 2 --every-steps 1 -o run.pks
expect_text "sph-step's summary" "$work/err" "2 steps (step 0 to 2)"
summary nbody-init plummer -n 64 -o nb.pks
summary nbody-run -i nb.pks --steps 2 -o nbrun.pks
summary pic-track --distribution kv --particles 64 --energy 1e9 --intensity 1e10 --steps 1 -o beam.pks
summary frnn-build -i db.pks -r 0.1 -o lists.pks
expect_text "frnn-build's summary" "$work/err" "frnn-build: info: wrote the lists of 1 frame in "
summary particle-convert run.pks copy.pks
expect_text "particle-convert's summary" "$work/err" "particle-convert: info: wrote 3 frames to copy.pks in "
summary splat-render -i run.pks --frames 2 --style points --size 16x16 -o f%d.exr
expect_text "splat-render's summary" "$work/err" "splat-render: info: wrote 1 frame in "
check "quiet: no summary" 0 particle-convert -q run.pks quiet.pks
[ -s "$work/err" ] && { echo "FAIL particle-convert -q wrote to stderr: $(cat "$work/err")"; fail=1; }
# The progress rate of a run to a simulated time names its unit.
check "progress" 0 sph-step -i db.pks --until 0.004 --every 0.002 --progress -o timed.pks
expect_text "sph-step's rate" "$work/err" "simulated s per wall s"

# --- man pages ------------------------------------------------------------------------------
for page in "$man_dir"/*.1; do
  name=$(basename "$page" .1)
  header=$(head -n 1 "$page")
  upper=$(tr 'a-z' 'A-Z' <<<"$name")
  [[ "$header" =~ ^\.TH\ $upper\ 1\ [0-9]{4}-[0-9]{2}-[0-9]{2}\ \"Partikel\ [0-9]+\.[0-9]+\"\ \"Partikel\ Manual\"$ ]] ||
    { echo "FAIL $name.1: header '$header' is not '.TH $upper 1 YYYY-MM-DD \"Partikel X.Y\" \"Partikel Manual\"'"; fail=1; }
  if command -v man >/dev/null; then
    long=$(MANWIDTH=80 man -l "$page" 2>/dev/null | col -bx | awk '/^EXAMPLES/ { e = 1; next } /^[A-Z]/ { e = 0 } e && length($0) > 80')
    [ -z "$long" ] || { echo "FAIL $name.1: EXAMPLES wider than 80 columns:"; echo "$long" | head -5; fail=1; }
  fi
done
command -v man >/dev/null || echo "man not installed (man-db): example widths not checked"
finish
