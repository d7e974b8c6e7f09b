#!/usr/bin/env bash
# particle-convert between every encoding: CSV -> stream -> HDF5 -> stream -> CSV is exact,
# pipes carry streams, frames/groups/columns are selected and renamed, exports are well-formed.
. "$(dirname "$0")/lib.sh"

check "csv to csv" 0 particle-convert --csv-metadata "$data/sample.csv" direct.csv
check "csv to stream" 0 particle-convert -i "$data/sample.csv" -o a.pks
check "stream to h5" 0 particle-convert a.pks b.h5
check "h5 to stream via stdout" 0 sh -c 'particle-convert b.h5 - > c.pks'
check "stream from stdin to csv" 0 sh -c 'particle-convert --csv-metadata - back.csv < c.pks'
if ! cmp -s direct.csv back.csv; then echo "FAIL csv -> pks -> h5 -> pks -> csv is not exact:"; diff direct.csv back.csv | head; fail=1; fi
expect_text "csv keeps types" back.csv "temperature:f64"
expect_text "csv keeps the step" back.csv "# step: 120"
check "plain csv by default" 0 particle-convert a.pks plain.csv
if ! head -n 1 plain.csv | grep -qx 'position_x,position_y,position_z,velocity_x,.*,temperature,cell_x,cell_y,tag,serial'; then
  echo "FAIL plain csv: the first line is not the plain header: $(head -c 200 plain.csv)"; fail=1
fi
check "zstd HDF5" 0 particle-convert --h5-compression zstd --h5-level 9 a.pks z.h5
check "zstd HDF5 back" 0 particle-convert --csv-metadata z.h5 z.csv
cmp -s direct.csv z.csv || { echo "FAIL zstd HDF5 round trip"; fail=1; }
check "h5dump sees the zstd filter" 0 h5dump -p -H z.h5
expect_text "filter 32015 in h5dump" out "FILTER_ID 32015"
check "h5dump layout" 0 h5dump -H b.h5
expect_text "openPMD position/x" out 'DATASET "x"'
expect_text "id as uint64" out "H5T_STD_U64LE"
expect_text "XDMF side file" b.xmf 'TopologyType="Polyvertex"'
[ "$(cat b.pmd)" = "b.h5" ] || { echo "FAIL b.pmd does not name b.h5: $(head -c 100 b.pmd)"; fail=1; }

# Three frames through a pipe: concatenated streams, selection, renaming.
for s in 1 2 3; do sed "s/^# step: 120/# step: $s/" "$data/sample.csv" > s$s.csv; particle-convert s$s.csv s$s.pks; done
check "pipeline with selection" 0 sh -c 'cat s1.pks s2.pks s3.pks | particle-convert --frames 1: --columns position,density:rho | particle-info --json --no-stats'
expect_text "frames 1 and 2 kept" out '"step": 2'
expect_text "frames 1 and 2 kept" out '"step": 3'
if grep -q '"step": 1,' out; then echo "FAIL frame 0 was not dropped"; fail=1; fi
expect_text "renamed column" out '"name": "rho"'
if grep -q '"velocity"' out; then echo "FAIL velocity was not dropped"; fail=1; fi
check "groupBased h5 of three frames" 0 sh -c 'cat s1.pks s2.pks s3.pks | particle-convert --groups fluid:water - series.h5'
check "frame 2 of the h5" 0 particle-info --frames 2 --no-stats series.h5
expect_text "h5 frame 2" out "frame 2: step 3"
expect_text "group renamed" out "group water"
check "fileBased" 0 sh -c 'cat s1.pks s2.pks s3.pks | particle-convert --file-based - run.h5'
for s in 1 2 3; do [ -f run_00000$s.h5 ] || { echo "FAIL run_00000$s.h5 missing"; fail=1; }; done
[ "$(cat run.pmd)" = "run_%T.h5" ] || { echo "FAIL run.pmd does not name run_%T.h5: $(head -c 100 run.pmd)"; fail=1; }
check "fileBased series read back" 0 particle-info --no-stats 'run_%T.h5'
expect_text "series has three frames" out "3 frames"
check "csv per frame with %T" 0 sh -c 'cat s1.pks s2.pks s3.pks | particle-convert - frame_%T.csv'
[ -f frame_000003.csv ] || { echo "FAIL frame_000003.csv missing"; fail=1; }
check "two frames into one csv" 2 sh -c 'cat s1.pks s2.pks | particle-convert - two.csv'
expect_error "two frames into one csv" particle-convert "%T"
[ -e two.csv ] && { echo "FAIL two.csv left behind"; fail=1; }

# Exports: VTK legacy and binary PLY headers and sizes.
check "vtk" 0 particle-convert a.pks a.vtk
expect_text "vtk header" a.vtk "DATASET POLYDATA"
expect_text "vtk points" a.vtk "POINTS 3 float"
expect_text "vtk vectors" a.vtk "VECTORS velocity float"
expect_text "vtk tensor as field" a.vtk "stress 6 3 float"
[ -e a.vtk.series ] && { echo "FAIL a single VTK file got a .vtk.series"; fail=1; }
check "vtk series" 0 sh -c 'cat s1.pks s2.pks s3.pks | particle-convert - v_%T.vtk'
expect_text "vtk series names the files with times in seconds" v.vtk.series '{ "name": "v_000003.vtk", "time": 0.6 }'
check "ply" 0 particle-convert a.pks a.ply
expect_text "ply format" a.ply "format binary_little_endian 1.0"
expect_text "ply x" a.ply "property float x"
expect_text "ply id" a.ply "property double id"
header=$(grep -a -n "^end_header" a.ply | cut -d: -f1)
hbytes=$(head -n "$header" a.ply | wc -c)
# row: 3+3 f32, density, pressure f32, id f64, kind u8, 6 f32, f64, 2 i32, u32, i64 as f64
row=$((6*4 + 4 + 4 + 8 + 1 + 6*4 + 8 + 2*4 + 4 + 8))
[ $(( $(stat -c %s a.ply) - hbytes )) -eq $((3 * row)) ] || { echo "FAIL ply body size"; fail=1; }
finish
