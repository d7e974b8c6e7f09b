#!/usr/bin/env bash
# The snow models through sph-init and sph-step (docs/SNOW.md): the pool scene writes its model
# and rheology as attributes; sph-step --model turns a WCSPH scene into a Bingham run whose frames
# carry velocity_half, strain_rate, yielded and (--write-stress) stress; a restart from its own
# output continues bit-identically on the CPU; a bad model name is a usage error.
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

check "pool" 0 sph-init pool --particles 70000 --model bingham -o pool.pks
check "pool info" 0 particle-info pool.pks
expect_text "pool model" out 'sph.model = "bingham"'
expect_text "pool count" out "group fluid: 70000 particles"
check "pool steps" 0 sph-step -q -i pool.pks -o pool_run.pks --steps 3 --device cpu

snow="--model bingham --gas-constant 400 --mu 1 --mu-solid 20 --yield-stress 5 --device cpu"
sph-init box --dx 0.02 --hdx 3 --box 0,0,0,0.2,0.2,0.2 --domain 0,0,0,0.4,0.4,0.4 -o box.pks 2>/dev/null
check "straight" 0 sph-step -q -i box.pks -o straight.pks --steps 8 --every-steps 4 --write-stress $snow
check "frame columns" 0 particle-info straight.pks
for col in velocity_half strain_rate yielded stress; do expect_text "column $col" out "$col"; done
check "first part" 0 sph-step -q -i box.pks -o part1.pks --steps 4 $snow
check "restart" 0 sph-step -q -i part1.pks -o part2.pks --steps 4 --write-stress --device cpu
check "restart is bit-identical" 0 compare-results --subset --atol 0 --rtol 0 part2.pks straight.pks
check "unknown model" 2 sph-step -q -i box.pks -o x.pks --steps 1 --model snowball
finish
