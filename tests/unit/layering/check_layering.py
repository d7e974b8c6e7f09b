#!/usr/bin/env python3
"""Fails when a source file includes across a forbidden edge of Partikel's layers.

The layers (docs/ARCHITECTURE.md, "Layers"), lowest first:
  base/                        errors, I/O, logging, progress, vectors, units; no CUDA
  formats/                     the data model and its encodings (base only)
  lib/core                     backends, buffers, execution policies, algorithms (base only)
  lib/image                    OpenEXR images (base only)
  lib/frnn                     neighbour search (core)
  lib/<model>                  a model's physics (core, frnn): sph, nbody, pic, render, ...
  lib/run, lib/compare         the run loop; comparison (core, formats, image)
  lib/<area>/io                a model's frames, scenes and run-loop adapter (its physics,
                               formats, image, run)
  tools/                       the programs (anything below them)
  bench/                       benchmarks (anything below tools, never tools)
Tests may include anything. `partikel_config.hpp` (generated) may be included anywhere.

Usage: check_layering.py SOURCE_DIR   (exit 1 and one line per violation)
       check_layering.py --self-test  (a tree with every kind of violation must fail)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCES = ('.hpp', '.cpp', '.cu', '.cuh', '.h')
PHYSICS_DEPS = {'base', 'core', 'frnn'}
FIXED = {
    'base': {'base'},
    'formats': {'base', 'formats'},
    'core': {'base', 'core'},
    'image': {'base', 'image'},
    'frnn': {'base', 'core', 'frnn'},
    'run': {'base', 'core', 'formats', 'run'},
    'compare': {'base', 'core', 'formats', 'image', 'compare'},
}


def area_of_file(rel):
    parts = rel.split('/')
    if parts[0] in ('base', 'formats', 'tools', 'bench', 'tests'):
        return parts[0]
    if parts[0] == 'lib' and len(parts) > 2:
        return parts[1] + '/io' if parts[2] == 'io' else parts[1]
    return None


def area_of_include(path):
    parts = path.split('/')
    if len(parts) == 1:
        return None  # a file beside the includer
    if parts[0] in ('base', 'formats'):
        return parts[0]
    if parts[0] == 'common':
        return 'tools'  # tools/common, on the tools' include path
    if len(parts) > 2 and parts[1] == 'io':
        return parts[0] + '/io'
    return parts[0]


def allowed(area):
    if area in FIXED:
        return FIXED[area]
    if area == 'tools':
        return None  # anything
    if area == 'bench':
        return 'not tools'
    if area.endswith('/io'):
        model = area[:-3]
        return {'base', 'core', 'frnn', 'frnn/io', 'formats', 'image', 'run', model, area}
    return PHYSICS_DEPS | {area}  # a model's physics


def self_test():
    """The checker must find what it exists to find: a tree with one file per forbidden edge."""
    import tempfile
    bad = {
        'formats/a.cpp': '#include "core/buffer.hpp"',
        'base/a.hpp': '#include "formats/frame.hpp"',
        'lib/core/a.cpp': '#include "frnn/box.hpp"',
        'lib/frnn/a.cpp': '#include "sph/params.hpp"',
        'lib/sph/a.cpp': '#include "formats/frame.hpp"',
        'lib/sph/b.cpp': '#include "image/exr.hpp"',
        'lib/run/a.cpp': '#include "common/tool.hpp"',
        'bench/sph/a.cpp': '#include "common/tool.hpp"',
    }
    good = {
        'lib/sph/io/a.cpp': '#include "formats/frame.hpp"\n#include "sph/solver.hpp"\n#include "run/simulation.hpp"',
        'tools/x/a.cpp': '#include "common/tool.hpp"\n#include "sph/io/frame_io.hpp"',
        'lib/frnn/c.cpp': '#include "core/exec.hpp"\n#include "partikel_config.hpp"\n#include "c_impl.hpp"',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {**bad, **good}.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as f:
                f.write(text + '\n')
        found = check(root)
    wanted = sorted(bad)
    got = sorted({v.split(':')[0] for v in found})
    if got != wanted:
        print('self-test failed: expected violations in', wanted, 'found', got)
        return 1
    print(f'self-test: all {len(bad)} forbidden edges found, no false alarm')
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--self-test':
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    violations = check(root)
    for v in violations:
        print('forbidden include:', v)
    print(f'{len(violations)} forbidden includes')
    return 1 if violations else 0


def check(root):
    violations = []
    checked = 0
    for top in ('base', 'formats', 'lib', 'tools', 'bench'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, '/')
                area = area_of_file(rel)
                if area is None:
                    continue
                rule = allowed(area)
                checked += 1
                with open(full, encoding='utf-8', errors='replace') as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == 'partikel_config.hpp':
                            continue
                        target = area_of_include(m.group(1))
                        if target is None or rule is None:
                            continue
                        ok = target != 'tools' if rule == 'not tools' else target in rule
                        if not ok:
                            violations.append(f'{rel}:{number}: {area} includes "{m.group(1)}" ({target})')
    if checked == 0:
        violations.append(f'{root}: no sources found')
    return violations


if __name__ == '__main__':
    sys.exit(main())
