#!/usr/bin/env bash
# splat-render on several CPU ranks (mpirun --oversubscribe, one OpenMP thread per rank, so that
# a cell grid keeps each cell's particles in input order on every rank):
#   - one frame sort-last (--split particles, and auto for a single frame) on 2 and 4 ranks,
#     every style, against one rank's image: at least 40 dB PSNR in every channel, and bit-equal
#     where no float sum is reordered: depth, normals and counts of the fluid (each rank's
#     ellipsoids see the same neighbours in the same order: the halo), every channel of the
#     spheres (the nearest rank keeps its pixel), depth and count of the points;
#   - a sequence frame-parallel (--split frames) on 2 and 3 ranks, read by every rank (an indexed
#     file) or dealt out by rank 0 (stdin): every image bit-identical to one rank's, PNG
#     previews with the automatic exposure of the first frame too;
#   - failures: a rank that fails on its own (the test hook) ends every rank with one line
#     naming it, the frames written before are kept, nothing half-written, no hang (each mpirun
#     under a timeout); an output naming one file for frames of several ranks is a usage error.
. "$PARTIKEL_SOURCE_DIR/tests/cli/splat-render/lib.sh"
export OMP_NUM_THREADS=1 PARTIKEL_FAULT_TIMEOUT_S=30
prog=splat-render  # for expect_last_error (tests/cli/lib.sh)
make_dam_break || { echo "FAIL making the input"; exit 1; }
size="--size 160x100 --device cpu"

# One frame, sort-last.
for style in fluid points spheres; do
  extra=()
  exact=Z,count.X
  [ $style = fluid ] && exact=Z,N.X,N.Y,N.Z,count.X
  [ $style = spheres ] && exact=R,G,B,A,Z,N.X,N.Y,N.Z,count.X
  [ $style != fluid ] && extra=(--colour velocity)
  check "$style, one rank" 0 splat-render -q -i frames.pks --frames 2 -o "one_$style.exr" --style $style $size "${extra[@]}"
  for np in 2 4; do
    split=particles
    [ $np = 4 ] && split=auto  # one frame selected from an indexed file: particles
    check "$style, $np ranks" 0 mpi -np $np splat-render -i frames.pks --frames 2 --split $split -o "r${np}_$style.exr" \
      --style $style $size "${extra[@]}"
    expect_text "$style, $np ranks: composited" err "$np ranks (mpi)"
    expect_text "$style, $np ranks: composited" err "each frame's particles split, composited; every rank reads"
    check "$style, $np ranks: 40 dB" 0 compare-results --min-psnr 40 "r${np}_$style.exr" "one_$style.exr"
    check "$style, $np ranks: bit-equal $exact" 0 compare-results --atol 0 --rtol 0 --columns $exact \
      "r${np}_$style.exr" "one_$style.exr"
  done
done
# Read from stdin by rank 0 (which cuts it into slabs and sends the shares); from a file every
# rank reads the frame and keeps its own slab (above).
check "fluid from stdin, 2 ranks" 0 sh -c "cat frames.pks | timeout 300 mpirun --quiet --oversubscribe --allow-run-as-root \
  -np 2 splat-render -i - --frames 2 --split particles -o stdin_fluid.exr $size"
expect_text "fluid from stdin, 2 ranks" err "composited; rank 0 reads and sends"
check "fluid from stdin: bit-equal depth" 0 compare-results --atol 0 --rtol 0 --columns Z,count.X stdin_fluid.exr one_fluid.exr

# A sequence, frame-parallel: each frame rendered whole by one rank, bit-identical.
mkdir -p seq1 seq2 seq3 seqin
check "sequence, one rank" 0 splat-render -q -i frames.pks -o seq1/%d.exr --style points --colour velocity --preview $size
for np in 2 3; do
  check "sequence, $np ranks" 0 mpi -np $np splat-render -i frames.pks -o seq$np/%d.exr --style points --colour velocity \
    --preview $size
  expect_text "sequence, $np ranks: frame-parallel" err "frames dealt out"
  for f in 0 1 2; do
    check "sequence, $np ranks: frame $f" 0 compare-results --atol 0 --rtol 0 seq$np/$f.exr seq1/$f.exr
    cmp -s seq$np/$f.png seq1/$f.png || { echo "FAIL sequence, $np ranks: preview $f differs"; fail=1; }
  done
done
check "sequence from stdin, 3 ranks" 0 sh -c "cat frames.pks | timeout 300 mpirun --quiet --oversubscribe --allow-run-as-root \
  -np 3 splat-render -q -i - -o seqin/%d.exr --style points --colour velocity $size"
for f in 0 1 2; do
  check "sequence from stdin: frame $f" 0 compare-results --atol 0 --rtol 0 seqin/$f.exr seq1/$f.exr
done
mkdir -p single
check "one file for an indexed sequence" 2 mpi -np 2 splat-render -i frames.pks --split frames -o single/one.exr $size
expect_last_error "one file for an indexed sequence" "names one file, but the input has 3 frames"
# From stdin the frame count is unknown: a single name is refused before anything renders.
check "one file for several ranks' frames" 2 sh -c "cat frames.pks | timeout 300 mpirun --quiet --oversubscribe \
  --allow-run-as-root -np 2 splat-render -i - --split frames -o single/one.exr $size"
expect_last_error "one file for several ranks' frames" "names one file, but 2 ranks write frames of their own"
[ -e single/one.exr ] && { echo "FAIL one file: an image was written"; fail=1; }

# A rank that fails on its own: one line naming it, earlier frames kept, no temporaries.
mkdir -p failed parts
export PARTIKEL_TEST_FAIL_RANK=1 PARTIKEL_TEST_FAIL_FRAME=1
check "frame-parallel: a rank fails" 1 mpi -np 2 splat-render -i frames.pks -o failed/%d.exr --split frames $size
expect_last_error "frame-parallel: a rank fails" "rank 1: injected failure before frame 1"
expect_file "frame-parallel: the first frame is kept" failed/0.exr
[ -e failed/1.exr ] && { echo "FAIL frame-parallel: the failed frame was written"; fail=1; }
export PARTIKEL_TEST_FAIL_FRAME=2
check "sort-last: a rank fails" 1 mpi -np 3 splat-render -i frames.pks -o parts/%d.exr --split particles $size
expect_last_error "sort-last: a rank fails" "rank 1: injected failure before frame 2"
expect_file "sort-last: frame 0 is kept" parts/0.exr
expect_file "sort-last: frame 1 is kept" parts/1.exr
[ -e parts/2.exr ] && { echo "FAIL sort-last: the failed frame was written"; fail=1; }
unset PARTIKEL_TEST_FAIL_RANK PARTIKEL_TEST_FAIL_FRAME
for d in failed parts; do
  (cd $d && expect_no_file "$d: no temporaries" "partikel-tmp")
done
finish
