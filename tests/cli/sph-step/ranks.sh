#!/usr/bin/env bash
# sph-step on several CPU ranks (mpirun --oversubscribe, one OpenMP thread per rank): after a
# short run the frames of 2 and 4 ranks equal one rank's up to reordered sums (compare-results,
# tolerances below), with exactly the same particles, ids, kinds and masses; diagnostics gain an
# imbalance column; the halo overlap changes no bit; laminar+SPS viscosity on 3 ranks; a restart on a different rank count (2 -> 3, and 4 ranks' frame on 1) goes
# on like the straight run; the snow model (Bingham, kept neighbour lists) across 3 ranks; an
# interrupt stops every rank after the same step, the output kept; and
# failures end every rank with one line, frames kept, never a hang (each mpirun under a timeout):
# a rank that throws on its own, a runaway on any rank (agreed), a truncated start frame read by
# rank 0, a rank count that cuts slabs thinner than the halo, and --boundary mdbc (one rank only).
#
# Tolerances: 20 steps of the dam break from rest, one rank against several, differ only by
# the order of neighbour sums (ghost neighbours are summed after owned ones, dt is the same
# all-reduced minimum). Measured on 2 and 4 ranks (and a restart on 3): densities within one
# float ulp (6.1e-5 kg/m^3, 6e-8 relative), velocities within 2.9e-7 m/s (5e-5 of the
# smallest), positions within 1e-9 m. On two H100s against one (gpu_ranks.sh, 2026-11-27) the
# densities differed by up to 20 ulps (the GPU's fused multiply-adds round each reordered sum
# differently), 0.28 Pa of pressure. The bound, 1e-4 relative plus 1e-7 absolute, and 2 Pa
# absolute for the pressure (the Tait equation turns one density ulp into c0^2 x 6.1e-5 =
# 0.014 Pa, so 2 Pa is about 140 ulps, a fiftieth of what the density bound admits), leaves room
# for other compilers and thread counts without admitting a missing neighbour, which changes a
# density by about 1% (one pair's share of about 40) and a pressure by hundreds of Pa.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export OMP_NUM_THREADS=1 PARTIKEL_FAULT_TIMEOUT_S=30
prog=sph-step  # for expect_last_error (tests/cli/lib.sh)
close="--ignore order --rtol 1e-4 --atol 1e-7 --tol pressure=2:1e-4"
exact="--atol 0 --rtol 0 --columns id,kind,mass"

sph-init dam-break --dx 0.005 -o db.pks 2>/dev/null
check "one rank" 0 sph-step -i db.pks -o one.pks --steps 20 --every-steps 10 --diag one.tsv --device cpu
# Ranks on one host share its cores in every OpenMP loop (not only the CPU backend's), unless
# OMP_NUM_THREADS says how many each takes (the CPU backend's own threads included; the first
# check runs on whatever backend auto picks, so that a GPU host checks the GPU ranks' host loops).
share=$(( $(nproc) / 2 )); [ $share -ge 1 ] || share=1
check "threads: 2 ranks share the host" 0 mpi -np 2 env -u OMP_NUM_THREADS sph-step -i db.pks -o /dev/null --steps 1 -v
expect_text "threads: 2 ranks share the host" err "host loops: $share OpenMP threads"
check "threads: OMP_NUM_THREADS is each rank's" 0 mpi -np 2 sph-step -i db.pks -o /dev/null --steps 1 -v --device cpu
expect_text "threads: OMP_NUM_THREADS is each rank's" err "(1 OpenMP threads); host loops: 1 OpenMP threads"
for np in 2 4; do
  check "$np ranks" 0 mpi -np $np sph-step -i db.pks -o r$np.pks --steps 20 --every-steps 10 --diag r$np.tsv --device cpu
  expect_text "$np ranks: the log names the ranks" err "simulating"
  expect_text "$np ranks: the log names the ranks" err "$np ranks (mpi)"
  [ "$(grep -c 'error' err)" -eq 0 ] || { echo "FAIL $np ranks: errors logged"; fail=1; }
  check "$np ranks equal one rank" 0 compare-results $close r$np.pks one.pks
  check "$np ranks: the same particles and masses, exactly" 0 compare-results $exact r$np.pks one.pks
  check "$np ranks: frame info" 0 particle-info r$np.pks
  expect_text "$np ranks: three frames" out "stream, 3 frames"
  expect_text "$np ranks: provenance" out "ranks = $np"
  expect_text "$np ranks: transport" out 'transport = "mpi"'
  head -1 r$np.tsv | grep -q "	imbalance$" || { echo "FAIL $np ranks: no imbalance column"; fail=1; }
  [ "$(wc -l < r$np.tsv)" -eq 4 ] || { echo "FAIL $np ranks: diag rows $(wc -l < r$np.tsv)"; fail=1; }
  # The fluid count column (13th) is every rank's together.
  [ "$(cut -f13 r$np.tsv | tail -1)" = "$(cut -f13 one.tsv | tail -1)" ] || { echo "FAIL $np ranks: fluid count"; fail=1; }
done
# Fixed borders (no balancing) give the same frames too.
check "fixed borders" 0 mpi -np 2 sph-step -i db.pks -o fixed.pks --steps 20 --every-steps 10 --balance-every 0 --device cpu
check "fixed borders equal one rank" 0 compare-results $close fixed.pks one.pks
# The halo overlap (interior rows while the halo travels, the default) computes every row as
# building the halo first does: the same bits.
check "no halo overlap" 0 mpi -np 2 sph-step -i db.pks -o serial.pks --steps 20 --every-steps 10 --balance-every 0 --no-halo-overlap --device cpu
check "no halo overlap: the same bits" 0 compare-results --atol 0 --rtol 0 serial.pks fixed.pks

# Laminar+SPS: the SPS stress of neighbours on other ranks travels with the halo (a viscosity
# and Smagorinsky constant large enough that both terms shape the flow).
sps="--viscosity laminar-sps --laminar-nu 1e-4 --sps-cs 2 --steps 20 --every-steps 20 --device cpu"
check "laminar+sps on one rank" 0 sph-step -i db.pks -o sps1.pks $sps
check "laminar+sps on 3 ranks" 0 mpi -np 3 sph-step -i db.pks -o sps3.pks $sps
check "laminar+sps: 3 ranks equal one rank" 0 compare-results $close sps3.pks sps1.pks

# Restart on another rank count: 2 ranks to step 10, then 3 ranks to step 20; 4 ranks' last
# frame goes on on one rank.
check "first half on 2 ranks" 0 mpi -np 2 sph-step -i db.pks -o half.pks --steps 10 --device cpu
check "second half on 3 ranks" 0 mpi -np 3 sph-step -i half.pks -o rest.pks --steps 10 --device cpu
check "restart on 3 ranks equals the straight run" 0 compare-results --subset $close rest.pks one.pks
check "restart on 1 rank from 4 ranks' frame" 0 sph-step -i r4.pks --start-frame 1 -o from4.pks --steps 10 --device cpu
check "restart on 1 rank equals the straight run" 0 compare-results --subset $close from4.pks one.pks

# The snow model (Bingham: stress tensor, wall passes, neighbour lists kept over steps) on the
# dam break's particles, on 3 ranks.
snow="--model bingham --steps 30 --every-steps 30 --device cpu"
check "snow on one rank" 0 sph-step -i db.pks -o snow1.pks $snow
check "snow on 3 ranks" 0 mpi -np 3 sph-step -i db.pks -o snow3.pks $snow
check "snow: 3 ranks equal one rank" 0 compare-results $close snow3.pks snow1.pks
check "snow: the same particles, exactly" 0 compare-results $exact snow3.pks snow1.pks

# An interrupt: Ctrl-C on mpirun (which sends every rank SIGTERM) stops every rank after the
# same step; rank 0 keeps the output, its last frame a restart point. mpirun is given the time
# docs/SPH.md tells users to give it (OpenMPI kills ranks 1 s after its SIGTERM by default, too
# short for the last frame on a loaded 2-core machine).
# The signal goes to mpirun itself (not through `timeout`, which would pass it on to mpirun's
# whole process group as well); a watchdog ends a run that ignores it.
mpirun --quiet --oversubscribe --allow-run-as-root --mca odls_base_sigkill_timeout 10 -np 2 \
  sph-step -i db.pks -o int.pks --until 100 --every-steps 50 --device cpu 2> int.err &
pid=$!
( sleep 120; kill -KILL $pid ) > /dev/null 2>&1 &
watchdog=$!
for _ in $(seq 300); do ls -A | grep -q "int.pks.partikel-tmp" && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid
kill $watchdog 2>/dev/null
grep -q "interrupted by SIG.* at step" int.err || { echo "FAIL interrupt: no note"; sed 's/^/  /' int.err; fail=1; }
check "interrupted output is complete" 0 particle-info int.pks
check "interrupted output restarts" 0 sph-step -i int.pks -o /dev/null --force --steps 2 --device cpu

# A rank that fails on its own (the run loop's test hook): every rank ends, rank 0 prints the
# failing rank's line, the frames written before are kept.
export PARTIKEL_TEST_FAIL_RANK=1 PARTIKEL_TEST_FAIL_STEP=5
check "a rank fails" 1 mpi -np 3 sph-step -i db.pks -o failed.pks --steps 20 --every-steps 2 --device cpu
unset PARTIKEL_TEST_FAIL_RANK PARTIKEL_TEST_FAIL_STEP
expect_last_error "a rank fails" "rank 1: injected failure before step 5"
check "frames before the failure are kept" 0 particle-info failed.pks
expect_text "frames before the failure are kept" out "stream, 3 frames"
# A runaway (a time step far too long) on whichever rank: agreed, one line, frames kept.
check "runaway" 1 mpi -np 2 sph-step -i db.pks -o runaway.pks --dt 0.01 --steps 20 --device cpu
expect_last_error "runaway" "particle(s) with a non-finite state or a runaway speed"
expect_text "runaway: frames kept" err "are kept in runaway.pks"
check "runaway: the first frame is kept" 0 particle-info runaway.pks
# A truncated start frame: rank 0 reads it, every rank ends with its error.
head -c 3000 db.pks > cut.pks
check "truncated input" 1 mpi -np 2 sph-step -i cut.pks -o x.pks --steps 2 --device cpu
expect_last_error "truncated input" "rank 0: cut.pks"
[ -e x.pks ] && { echo "FAIL truncated input: an output appeared"; fail=1; }
# More ranks than slabs of the halo's width: a usage error.
sph-init still-tank --width 0.02 --dx 0.002 -o small.pks 2>/dev/null
check "too many ranks" 2 mpi -np 8 sph-step -i small.pks -o x.pks --steps 2 --device cpu
expect_last_error "too many ranks" "thinner than the halo reach"
# mDBC's ghost nodes reach past the halo: one rank only, a usage error on several.
check "mdbc on ranks" 2 mpi -np 2 sph-step -i db.pks -o x.pks --steps 2 --device cpu --boundary mdbc
expect_last_error "mdbc on ranks" "--boundary mdbc runs on one rank only"
[ -e x.pks ] && { echo "FAIL mdbc on ranks: an output appeared"; fail=1; }
finish
