#!/usr/bin/env bash
# pic-track on several CPU ranks (mpirun --oversubscribe, one OpenMP thread per rank): the
# per-turn moment table of 2 and 4 ranks equals one rank's up to reordered sums
# (compare-results, tolerances below), with exactly the same alive and lost counts; frames hold
# the same particles in the same rows (ids, status, loss turn and element exactly); without
# space charge the ranks never exchange a value and the tables (tunes included, from probes
# spread over three ranks) are bit-identical; a restart on another rank count goes on like
# the straight run; and a rank that fails ends every rank with one line, frames kept, no hang
# (each mpirun under a timeout).
#
# Tolerances, measured: the ranks' charge grids are summed in another order than one rank's
# (float sums of 32 x 32 x 64 cloud-in-cell weights), so fields and kicks differ by float
# round-off, which space charge amplifies from turn to turn. Over this case's 8 turns the rms
# sizes and emittances of 2 and 4 ranks differed from one rank's by at most 2.1e-7 relative and
# the centroids by 7.2e-10 (m or rad, against rms sizes of 1e-2 m and 1e-3 rad) -- as much as
# one rank on 2 OpenMP threads differs from one thread (7.6e-8, 6.0e-10). Bounds: 1e-6 relative
# for sizes and emittances, 5e-9 absolute for centroids. A lost share of the charge is far
# outside them: the run with half the intensity (what one of two ranks alone would see) is
# checked to fail the same comparison. Single particles differ more than moments (up to
# 5.6e-7 m in x, 5.4e-8 rad in x' after 8 turns on 4 ranks): coordinates within 2e-6 absolute
# (2e-4 of the beam's rms size) or 1e-6 relative. (A stronger beam, 5e9 ions, grows round-off to 1e-4 in
# 12 turns and moves a loss by a turn even between thread counts: not a test of ranks.)
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export OMP_NUM_THREADS=1 PARTIKEL_FAULT_TIMEOUT_S=30
prog=pic-track  # for expect_last_error (tests/cli/lib.sh)
sizes="--key turn --columns rms_x_m,rms_xp,rms_y_m,rms_yp,rms_z_m,rms_delta,emittance_x_m,emittance_y_m,emittance_z_m --rtol 1e-6 --atol 0"
centroids="--key turn --columns mean_x_m,mean_xp,mean_y_m,mean_yp,mean_z_m,mean_delta --rtol 0 --atol 5e-9"
coordinates="--rtol 1e-6 --atol 2e-6"
exact_counts="--key turn --columns alive,lost,newly_lost --atol 0 --rtol 0"
exact_rows="--atol 0 --rtol 0 --columns id,particleStatus,lost_turn,lost_element"

# A bunched argon beam with transverse (per-kick maps, conducting pipe) and longitudinal
# space charge; a Gaussian beam (rms 12.8 mm) in a pipe of 30 mm, so that particles are lost
# at the first turn and, a few, at every later one.
beam="--Z 18 --A 40 --energy 11.4e6 --intensity 2e9 --distribution gaussian --particles 4000 --emittance 4 --bunch-length 20"
beam="$beam --pipe-radius 0.03 --sc-pipe --sc-kicks 8 --sc-maps per-kick --sc-grid 32,32 --longitudinal-sc"
run="--steps 8 --every-steps 4 --diag-every-steps 1 --device cpu"
check "one rank" 0 pic-track $beam $run --diag one.tsv -o one.pks
[ "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } END { print $c["lost"] }' one.tsv)" -gt 0 ] ||
  { echo "FAIL one rank: the test wants lost particles"; fail=1; }
check "half the charge" 0 pic-track ${beam/--intensity 2e9/--intensity 1e9} $run --diag half.tsv -o /dev/null
check "the sizes tell half the charge" 1 compare-results $sizes half.tsv one.tsv
for np in 2 4; do
  check "$np ranks" 0 mpi -np $np pic-track $beam $run --diag r$np.tsv -o r$np.pks
  expect_text "$np ranks: the log names the ranks" err "$np ranks (mpi)"
  check "$np ranks: sizes and emittances equal one rank's" 0 compare-results $sizes r$np.tsv one.tsv
  check "$np ranks: centroids equal one rank's" 0 compare-results $centroids r$np.tsv one.tsv
  check "$np ranks: alive and lost exactly" 0 compare-results $exact_counts r$np.tsv one.tsv
  check "$np ranks: coordinates" 0 compare-results $coordinates r$np.pks one.pks
  check "$np ranks: the same rows, ids and losses" 0 compare-results $exact_rows r$np.pks one.pks
  check "$np ranks: frame info" 0 particle-info r$np.pks
  expect_text "$np ranks: three frames" out "stream, 3 frames"
  expect_text "$np ranks: provenance" out "ranks = $np"
done

# Without space charge nothing is summed across ranks: bit-identical tables, tune columns
# included (8 probes over 12 particles on 4 ranks: the probes are rows of ranks 0, 1 and 2).
linear="--Z 18 --A 40 --energy 11.4e6 --intensity 2e11 --distribution waterbag --particles 12 --tune-probes 8"
linear="$linear --tune-turns 64 --steps 64 --diag-every-steps 8 --device cpu -o /dev/null"
check "linear, one rank" 0 pic-track $linear --diag lin1.tsv
check "linear, 4 ranks" 0 mpi -np 4 pic-track $linear --diag lin4.tsv
check "linear: 4 ranks bit-identical, tunes too" 0 compare-results --key turn --atol 0 --rtol 0 --nan-equal lin4.tsv lin1.tsv
[ "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } END { print ($c["tune_x"] > 0) }' lin4.tsv)" = 1 ] ||
  { echo "FAIL linear: no tune measured"; fail=1; }

# Restart on another rank count: 2 ranks to turn 4, then 3 ranks to turn 8, against one rank
# doing the same (a restart sizes the longitudinal field's geometry factor anew, from the beam
# it reads, so it is compared with a restart, not the straight run).
restart="--pipe-radius 0.03 --sc-pipe --sc-kicks 8 --sc-maps per-kick --sc-grid 32,32 --longitudinal-sc --steps 4 --device cpu"
check "first half on one rank" 0 pic-track $beam --steps 4 --device cpu -o half1.pks
check "second half on one rank" 0 pic-track -i half1.pks $restart -o rest1.pks
check "first half on 2 ranks" 0 mpi -np 2 pic-track $beam --steps 4 --device cpu -o half.pks
check "second half on 3 ranks" 0 mpi -np 3 pic-track -i half.pks $restart -o rest.pks
check "restart on 3 ranks equals one rank's" 0 compare-results $coordinates rest.pks rest1.pks
check "restart: the same rows and losses" 0 compare-results $exact_rows rest.pks rest1.pks

# A rank that fails on its own (the run loop's test hook): every rank ends, rank 0 prints the
# failing rank's line, the frames written before are kept.
export PARTIKEL_TEST_FAIL_RANK=1 PARTIKEL_TEST_FAIL_STEP=5
check "a rank fails" 1 mpi -np 3 pic-track $beam --steps 8 --every-steps 2 --device cpu -o failed.pks
unset PARTIKEL_TEST_FAIL_RANK PARTIKEL_TEST_FAIL_STEP
expect_last_error "a rank fails" "rank 1: injected failure before step 5"
check "frames before the failure are kept" 0 particle-info failed.pks
expect_text "frames before the failure are kept" out "stream, 3 frames"
# A truncated start frame: rank 0 reads it, every rank ends with its error, nothing written.
head -c 3000 one.pks > cut.pks
check "truncated input" 1 mpi -np 2 pic-track -i cut.pks --steps 2 --device cpu -o x.pks
expect_last_error "truncated input" "rank 0: cut.pks"
[ -e x.pks ] && { echo "FAIL truncated input: an output appeared"; fail=1; }
finish
