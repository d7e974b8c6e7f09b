#!/usr/bin/env bash
# nbody-run on several CPU ranks (mpirun --oversubscribe, one OpenMP thread per rank): after 10
# steps the frames of 2 and 4 ranks equal one rank's within the tree's own error (the same
# theta), with exactly the same bodies, ids and masses, in id order; the direct sum (sources
# round a ring) within round-off; a Plummer sphere and a galaxy pair; diagnostics reduced over
# the ranks (energies, the half-mass radius) plus imbalance and migrated columns;
# --force-error across ranks; a restart on another rank count; and failures that end every
# rank with one line, frames kept, never a hang (each mpirun under a timeout): a rank that
# throws on its own, a position that overflows on one rank (agreed), a truncated start frame,
# the hybrid method and more ranks than bodies (usage errors).
#
# Tolerances (as gpu_vs_cpu.sh argues them). One rank and several build the same tree from the
# same keys, but each rank walks its bodies in groups of 32 counted from its first body, so a
# group can hold other bodies than on one rank, and a cell the group opens on one side it may
# use whole on the other: such a body's acceleration differs by about its own tree error. The
# bound for the tree is twice its largest error on every body of the start frame
# (--force-error on all of them); over 10 steps that moves bodies by at most 1.4e-5 and
# changes speeds by at most 3.5e-4 (gpu_vs_cpu.sh's bounds, derived there for 20,000 bodies of
# the same model and theta). The direct sum adds the same pairs in another order (its own
# rank's sources first): float sums of thousands of terms, some cancelling, as CPU against GPU:
# 1e-4 relative (measured 2.8e-5 at 20,000 bodies). Energies and the half-mass radius agree to 1e-5 and 1e-4 relative. The Plummer
# sphere's momentum (0 at the start) to 1e-6: the tree conserves it only to its net force,
# 1.4e-5 of sum m|a| (docs/NBODY.md), about 1 here, over 10 steps of 1/128.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export OMP_NUM_THREADS=1 PARTIKEL_FAULT_TIMEOUT_S=30
exact="--columns id,mass --atol 0 --rtol 0"
diag_close="--columns total_energy,kinetic_energy,lagrangian_radius_50 --tol total_energy=0:1e-5
  --tol kinetic_energy=0:1e-5 --tol lagrangian_radius_50=0:1e-4"

nbody-init plummer -n 8192 --seed 51 -o p.pks 2>/dev/null
nbody-init plummer -n 4096 --seed 52 -o p4k.pks 2>/dev/null
check "tree error on every body" 0 nbody-run -q -i p.pks --force-error 8192 --device cpu
worst=$(awk -F'\t' 'NR == 2 { print $9 }' out)
bound=$(awk -v w="$worst" 'BEGIN { printf "%.3g", 2 * w }')
echo "the tree's largest relative error: $worst; bound for several ranks against one: $bound"
for method in tree direct; do
  input=p.pks rtol=$bound
  [ $method = direct ] && input=p4k.pks rtol=1e-4
  check "$method: one rank" 0 nbody-run -i $input -o $method-1.pks --method $method --steps 10 --every-steps 10 \
    --acceleration --diag $method-1.tsv --device cpu
  for np in 2 4; do
    check "$method: $np ranks" 0 mpi -np $np nbody-run -i $input -o $method-$np.pks --method $method --steps 10 \
      --every-steps 10 --acceleration --diag $method-$np.tsv --device cpu
    expect_text "$method: $np ranks: the log names the ranks" err "$np ranks (mpi)"
    [ "$(grep -c 'error' err)" -eq 0 ] || { echo "FAIL $method, $np ranks: errors logged"; fail=1; }
    check "$method: $np ranks equal one rank" 0 compare-results --tol acceleration=0:$rtol --tol position=1.4e-5:0 \
      --tol velocity=3.5e-4:0 $method-$np.pks $method-1.pks
    [ $fail -eq 0 ] || cat out
    check "$method: $np ranks: the same bodies and masses, exactly" 0 compare-results $exact $method-$np.pks $method-1.pks
    check "$method: $np ranks: diagnostics equal one rank's" 0 compare-results $diag_close $method-$np.tsv $method-1.tsv
    [ $fail -eq 0 ] || cat out
    check "$method: $np ranks: momentum" 0 compare-results --columns momentum_x,momentum_y,momentum_z \
      --tol momentum_x=1e-6:0 --tol momentum_y=1e-6:0 --tol momentum_z=1e-6:0 $method-$np.tsv $method-1.tsv
    [ $fail -eq 0 ] || cat out
    check "$method: $np ranks: frame info" 0 particle-info $method-$np.pks
    expect_text "$method: $np ranks: two frames" out "stream, 2 frames"
    expect_text "$method: $np ranks: provenance" out "ranks = $np"
    head -1 $method-$np.tsv | grep -q "	imbalance	migrated$" || { echo "FAIL $method, $np ranks: no imbalance column"; fail=1; }
    [ "$(wc -l < $method-$np.tsv)" -eq 3 ] || { echo "FAIL $method, $np ranks: diag rows"; fail=1; }
  done
done
# Frames of several ranks list the bodies in id order.
check "ids in order" 0 particle-convert tree-4.pks --frames 0 --to csv --columns id -o ids.csv
check "ids in order" 0 awk -F, '/^#/ || $1 == "id" { next } rows++ && $1 + 0 <= last + 0 { exit 1 } { last = $1 }
  END { exit rows != 8192 }' ids.csv
# The force error across ranks: the same bodies are sampled (indices along the curve), so the
# statistics are one rank's within the group effect above.
check "force error, one rank" 0 nbody-run -q -i p.pks --force-error 2000 --device cpu
mv out fe1.tsv
check "force error, 3 ranks" 0 mpi -np 3 nbody-run -q -i p.pks --force-error 2000 --device cpu
check "force error, 3 ranks" 0 awk -F'\t' 'NR == 2 { one = $6; samples = $5 } FNR == 2 && NR > 2 {
    d = ($6 - one) / one; exit !(samples == 2000 && $5 == 2000 && d * d < 0.01) }' fe1.tsv out

# A galaxy pair (disks in halos: strongly clustered) on 2 and 4 ranks, theta 0.75: the
# potential energy differs by the tree's potential error at theta 0.75 (about 1e-3 a body),
# averaged over 8,192 bodies (about 1e-5; measured 5e-6 and 1.1e-5): bound 1e-4.
nbody-init galaxy-pair -n 8192 -o g.pks 2>/dev/null
check "galaxy pair: tree error" 0 nbody-run -q -i g.pks --theta 0.75 --force-error 8192 --device cpu
gbound=$(awk -F'\t' 'NR == 2 { printf "%.3g", 2 * $9 }' out)
check "galaxy pair: one rank" 0 nbody-run -i g.pks -o g1.pks --theta 0.75 --steps 10 --every-steps 10 \
  --acceleration --diag g1.tsv --device cpu
for np in 2 4; do
  check "galaxy pair: $np ranks" 0 mpi -np $np nbody-run -i g.pks -o g$np.pks --theta 0.75 --steps 10 \
    --every-steps 10 --acceleration --diag g$np.tsv --device cpu
  check "galaxy pair: $np ranks equal one rank" 0 compare-results --tol acceleration=0:$gbound $exact g$np.pks g1.pks
  check "galaxy pair: $np ranks: diagnostics" 0 compare-results --columns total_energy,kinetic_energy,lagrangian_radius_50 \
    --tol total_energy=0:1e-4 --tol kinetic_energy=0:1e-5 --tol lagrangian_radius_50=0:1e-4 g$np.tsv g1.tsv
  [ $fail -eq 0 ] || cat out
done

# Restart on another rank count: 4 ranks' frame at step 5 goes on on 2 ranks to step 10, and
# on one rank: both equal the straight runs within the tree bound (frames hold single precision).
check "first half on 4 ranks" 0 mpi -np 4 nbody-run -i p.pks -o half.pks --steps 5 --device cpu
check "second half on 2 ranks" 0 mpi -np 2 nbody-run -i half.pks -o rest2.pks --steps 5 --acceleration --device cpu
check "second half on one rank" 0 nbody-run -i half.pks -o rest1.pks --steps 5 --acceleration --device cpu
for rest in rest2 rest1; do
  check "$rest equals the straight run" 0 compare-results --subset --tol acceleration=0:$bound --tol position=1.4e-5:0 \
    --tol velocity=3.5e-4:0 $rest.pks tree-1.pks
  [ $fail -eq 0 ] || cat out
done

# A rank that fails on its own (the run loop's test hook): every rank ends, rank 0 prints the
# failing rank's line, the frames written before are kept.
export PARTIKEL_TEST_FAIL_RANK=1 PARTIKEL_TEST_FAIL_STEP=5
check "a rank fails" 1 mpi -np 3 nbody-run -q -i p.pks -o failed.pks --steps 10 --every-steps 2 --device cpu
unset PARTIKEL_TEST_FAIL_RANK PARTIKEL_TEST_FAIL_STEP
expect_error "a rank fails" nbody-run "rank 1: injected failure before step 5"
check "frames before the failure are kept" 0 particle-info failed.pks
expect_text "frames before the failure are kept" out "stream, 3 frames"
# A position that overflows (a step of 1e30 model times): the rank holding the body names it,
# every rank ends with that line.
check "overflow" 1 mpi -np 2 nbody-run -q -i p.pks -o overflow.pks --dt 1e30 --steps 3 --device cpu
expect_error "overflow" nbody-run "rank [01]: nbody: step 1: body id [0-9]* has a non-finite position; frames up to step 0 are kept"
check "overflow: the first frame is kept" 0 particle-info overflow.pks
# A truncated start frame: rank 0 reads it, every rank ends with its error; nothing is written.
head -c 3000 p.pks > cut.pks
check "truncated input" 1 mpi -np 2 nbody-run -q -i cut.pks -o x.pks --steps 2 --device cpu
expect_error "truncated input" nbody-run "rank 0: cut.pks"
[ -e x.pks ] && { echo "FAIL truncated input: an output appeared"; fail=1; }
# Usage errors, on every rank alike.
check "hybrid across ranks" 2 mpi -np 2 nbody-run -q -i p.pks -o x.pks --method hybrid --steps 2 --device cpu
expect_error "hybrid across ranks" nbody-run "the hybrid method runs on one rank"
nbody-init kepler -o k.pks 2>/dev/null
check "more ranks than bodies" 2 mpi -np 4 nbody-run -q -i k.pks -o x.pks --steps 2 --device cpu
expect_error "more ranks than bodies" nbody-run "2 bodies cannot be split over 4 ranks"
finish
