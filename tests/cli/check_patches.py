"""openPMD particlePatches of a run on several ranks, read with h5py (formats/SPEC.md §3.3).

usage: python3 check_patches.py FILE.h5 PATCHES GROUP...

For every iteration of FILE.h5 and every GROUP: `particlePatches` has PATCHES entries (one per
rank); numParticlesOffset starts at 0 and each patch starts where the one before ends; the
counts add up to the group's particles and equal the iteration's `patches.<group>` attribute
(when PATCHES > 1); every non-NaN position lies in its patch's box (offset <= x < offset +
extent per component); and with several patches, within each patch the ids increase (rows
rank by rank, each rank's in id order; one rank's frame keeps the solver's order). Prints one line per problem and exits 1 if there is any.
"""
import sys

import h5py
import numpy as np

path, patch_count, groups = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
errors = []
checked = 0
with h5py.File(path, "r") as f:
    for step, iteration in f["data"].items():
        for group in groups:
            where = f"{path}: iteration {step}, {group}"
            species = iteration["particles"].get(group)
            if species is None:
                errors.append(f"{where}: no such group")
                continue
            patches = species["particlePatches"]
            num = patches["numParticles"][()]
            first = patches["numParticlesOffset"][()]
            n = species["position/x"].shape[0]
            if len(num) != patch_count or len(first) != patch_count:
                errors.append(f"{where}: {len(num)} patches, not {patch_count}")
                continue
            if num.dtype != np.uint64 or first.dtype != np.uint64:
                errors.append(f"{where}: patch counts are {num.dtype}, not uint64")
            starts = np.concatenate([[0], np.cumsum(num)[:-1]]).astype(np.uint64)
            if not np.array_equal(first, starts):
                errors.append(f"{where}: offsets {list(first)} are not contiguous for counts {list(num)}")
            if int(num.sum()) != n:
                errors.append(f"{where}: patches hold {int(num.sum())} particles, the group {n}")
            if patch_count > 1:
                attribute = iteration.attrs.get(f"patches.{group}")
                if attribute is None or list(np.asarray(attribute, dtype=np.float64)) != [float(c) for c in num]:
                    errors.append(f"{where}: attribute patches.{group} is {attribute}, numParticles {list(num)}")
            ids = species["id"][()] if "id" in species else None
            for c in "xyz":
                x = species[f"position/{c}"][()].astype(np.float64)
                low, size = patches[f"offset/{c}"][()], patches[f"extent/{c}"][()]
                for p in range(patch_count):
                    rows = x[int(first[p]):int(first[p]) + int(num[p])]
                    rows = rows[~np.isnan(rows)]
                    if len(rows) and not (np.all(rows >= low[p]) and np.all(rows < low[p] + size[p])):
                        errors.append(f"{where}, patch {p}: {c} in [{rows.min()}, {rows.max()}] is not inside "
                                      f"[{low[p]}, {low[p] + size[p]})")
            if ids is not None and patch_count > 1:
                for p in range(patch_count):
                    mine = ids[int(first[p]):int(first[p]) + int(num[p])]
                    if len(mine) > 1 and not np.all(np.diff(mine.astype(np.int64)) > 0):
                        errors.append(f"{where}, patch {p}: ids do not increase")
            checked += 1
if checked == 0:
    errors.append(f"{path}: no group checked")
for e in errors:
    print("FAIL " + e)
print(f"patches: {checked} groups checked, {len(errors)} errors")
sys.exit(1 if errors else 0)
