# Helpers for the splat-render CLI tests: tests/cli/lib.sh plus small inputs.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

# frames.pks: a small dam break (2000 fluid, 3780 boundary particles) with three frames.
make_dam_break() {
  sph-init dam-break --width 0.04 --dx 0.004 -o init.pks 2>/dev/null &&
    sph-step -q -i init.pks -o frames.pks --steps 2 --every-steps 1
}

# expect_file DESCRIPTION FILE: FILE must exist and not be empty.
expect_file() {
  if [ ! -s "$2" ]; then echo "FAIL $1: no file $2"; ls -la | sed 's/^/  /'; fail=1; fi
}

# expect_no_file DESCRIPTION GLOB: nothing may match (no partial or temporary output).
expect_no_file() {
  local matches
  matches=$(ls -a | grep -E "$2" || true)
  if [ -n "$matches" ]; then echo "FAIL $1: unexpected files: $matches"; fail=1; fi
}
