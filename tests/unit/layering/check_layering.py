#!/usr/bin/env python3
"""Fails when a source file includes across a forbidden edge of Partikel's layers.

The layers (docs/ARCHITECTURE.md, "Layers"), lowest first:
  base/                        errors, I/O, logging, progress, vectors, units; no CUDA
  formats/                     the data model and its encodings (base only)
  lib/core                     backends, buffers, execution policies, algorithms (base only)
  lib/image                    OpenEXR images (base only)
  lib/frnn                     neighbour search (core)
  lib/dist                     ranks: communicator, decomposition, halos (core)
  lib/<model>                  a model's physics (core, frnn, dist): sph, nbody, pic, render, ...
  lib/run, lib/compare         the run loop (core, dist, formats); comparison (core, formats,
                               image)
  lib/<area>/io                a model's frames, scenes and run-loop adapter (its physics,
                               dist, formats, image, run)
  tools/                       the programs (anything below them)
  bench/                       benchmarks (anything below tools, never tools)
Tests may include anything. `partikel_config.hpp` (generated) may be included anywhere.

Second check: a file's includes must also be reachable through CMake. Each CMakeLists.txt of
base/, formats/, lib/, tools/ and bench/ defines targets (partikel_add_library, add_library,
add_executable, partikel_add_tool) and their links (DEPS, target_link_libraries); a file in a
folder may include a header of another folder only when one of its folder's targets links,
directly or through PUBLIC links, a target defined in that folder (a header compiles with the
include paths and libraries its own target brings: including `run/` without linking
partikel_run works only by accident).

Usage: check_layering.py SOURCE_DIR   (exit 1 and one line per violation)
       check_layering.py --self-test  (a tree with every kind of violation must fail)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCES = ('.hpp', '.cpp', '.cu', '.cuh', '.h')
PHYSICS_DEPS = {'base', 'core', 'frnn', 'dist'}
FIXED = {
    'base': {'base'},
    'formats': {'base', 'formats'},
    'core': {'base', 'core'},
    'image': {'base', 'image'},
    'frnn': {'base', 'core', 'frnn'},
    'dist': {'base', 'core', 'dist'},
    'run': {'base', 'core', 'dist', 'formats', 'run'},
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
        return {'base', 'core', 'dist', 'frnn', 'frnn/io', 'formats', 'image', 'run', model, area}
    return PHYSICS_DEPS | {area}  # a model's physics


CMAKE_CALL = re.compile(
    r'\b(partikel_add_library|partikel_add_tool|add_library|add_executable|target_link_libraries)\s*\(([^)]*)\)')
KEYWORDS = {'SOURCES', 'CUDA_SOURCES', 'DEPS', 'LABEL', 'STATIC', 'SHARED', 'OBJECT'}
VISIBILITY = {'PUBLIC', 'PRIVATE', 'INTERFACE'}


def cmake_graph(root):
    """The targets each folder's CMakeLists.txt defines, and each target's links:
    (folder -> targets, target -> all direct links, target -> links that propagate)."""
    folders, links, public = {}, {}, {}
    for top in ('base', 'formats', 'lib', 'tools', 'bench'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            if 'CMakeLists.txt' not in files:
                continue
            folder = os.path.relpath(dirpath, root).replace(os.sep, '/')
            with open(os.path.join(dirpath, 'CMakeLists.txt'), encoding='utf-8', errors='replace') as f:
                text = re.sub(r'#[^\n]*', '', f.read())
            for m in CMAKE_CALL.finditer(text):
                command, args = m.group(1), m.group(2).split()
                if not args or 'ALIAS' in args or 'IMPORTED' in args:
                    continue
                name, rest = args[0], args[1:]
                if command == 'partikel_add_library':
                    name = 'partikel_' + name
                if command == 'target_link_libraries':
                    visibility = 'PUBLIC'
                    for word in rest:
                        if word in VISIBILITY:
                            visibility = word
                            continue
                        links.setdefault(name, set()).add(word)
                        if visibility != 'PRIVATE':
                            public.setdefault(name, set()).add(word)
                    continue
                folders.setdefault(folder, set()).add(name)
                deps = []
                if 'DEPS' in rest:
                    for word in rest[rest.index('DEPS') + 1:]:
                        if word in KEYWORDS:
                            break
                        deps.append(word)
                if command == 'partikel_add_tool':
                    deps.append('partikel_tool_common')
                links.setdefault(name, set()).update(deps)
                public.setdefault(name, set()).update(deps)
    return folders, links, public


def reachable(target, links, public):
    """Targets whose headers `target` may include: itself, its links, and what they pass on."""
    seen = {target}
    todo = list(links.get(target, ()))
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo.extend(public.get(t, ()))
    return seen


def folder_of(rel, folders):
    """The deepest folder with a CMakeLists.txt that holds `rel` (a file path)."""
    parts = rel.split('/')[:-1]
    while parts:
        folder = '/'.join(parts)
        if folder in folders:
            return folder
        parts.pop()
    return None


def source_files(root):
    """(full path, path relative to root) of every source under the layered folders."""
    for top in ('base', 'formats', 'lib', 'tools', 'bench'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith(SOURCES):
                    full = os.path.join(dirpath, name)
                    yield full, os.path.relpath(full, root).replace(os.sep, '/')


def includes(full):
    """(line number, included path) of every #include of a file."""
    with open(full, encoding='utf-8', errors='replace') as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def check_links(root):
    """Includes of a folder whose targets the includer's targets do not link."""
    folders, links, public = cmake_graph(root)
    violations = []
    for full, rel in source_files(root):
        own = folder_of(rel, folders)
        if own is None:
            continue
        allowed_targets = set()
        for t in folders[own]:
            allowed_targets |= reachable(t, links, public)
        for number, path in includes(full):
            if '/' not in path:
                continue
            target_file = None
            for prefix in ('', 'lib/', 'tools/'):
                if os.path.exists(os.path.join(root, prefix + path)):
                    target_file = prefix + path
                    break
            if target_file is None:
                continue
            theirs = folder_of(target_file, folders)
            if theirs is None or theirs == own:
                continue
            if not folders[theirs] & allowed_targets:
                violations.append(f'{rel}:{number}: includes "{path}" of {theirs} '
                                  f'({", ".join(sorted(folders[theirs]))}), which '
                                  f'{", ".join(sorted(folders[own]))} does not link')
    return violations


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
    cmake = {
        # nbody_io includes run/ but links only nbody: a violation of the second check.
        'lib/run/CMakeLists.txt': 'partikel_add_library(run SOURCES a.cpp DEPS partikel_core)',
        'lib/run/simulation.hpp': '#pragma once',
        'lib/core/CMakeLists.txt': 'partikel_add_library(core SOURCES a.cpp)',
        'lib/core/exec.hpp': '#pragma once',
        'lib/nbody/CMakeLists.txt': 'partikel_add_library(nbody SOURCES a.cpp DEPS partikel_core)',
        'lib/nbody/io/CMakeLists.txt': 'partikel_add_library(nbody_io SOURCES a.cpp DEPS partikel_nbody)',
        'lib/nbody/io/a.cpp': '#include "run/simulation.hpp"\n#include "core/exec.hpp"',
        # through a PUBLIC link of a link: fine; through a PRIVATE one: not.
        'lib/sph/CMakeLists.txt': 'partikel_add_library(sph SOURCES a.cpp DEPS partikel_nbody)\n'
                                  'target_link_libraries(partikel_sph PRIVATE partikel_run)',
        'tools/y/CMakeLists.txt': 'add_executable(y b.cpp)\ntarget_link_libraries(y PRIVATE partikel_sph)',
        'tools/y/b.cpp': '#include "core/exec.hpp"\n#include "run/simulation.hpp"',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {**bad, **good, **cmake}.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as f:
                f.write(text + '\n')
        found = check(root)
        unlinked = check_links(root)
    got = sorted({v.split(':')[0] for v in found})
    if got != sorted(bad):
        print('self-test failed: expected violations in', sorted(bad), 'found', got)
        return 1
    wanted_links = ['lib/nbody/io/a.cpp:1', 'tools/y/b.cpp:2']
    got_links = sorted(':'.join(v.split(':')[:2]) for v in unlinked)
    if got_links != wanted_links:
        print('self-test failed: expected unlinked includes at', wanted_links, 'found', got_links)
        return 1
    print(f'self-test: all {len(bad)} forbidden edges and {len(wanted_links)} unlinked includes found, no false alarm')
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--self-test':
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    violations = check(root)
    for v in violations:
        print('forbidden include:', v)
    unlinked = check_links(root)
    for v in unlinked:
        print('include without a link:', v)
    print(f'{len(violations)} forbidden includes, {len(unlinked)} includes without a link')
    return 1 if violations or unlinked else 0


def check(root):
    violations = []
    checked = 0
    for full, rel in source_files(root):
        area = area_of_file(rel)
        if area is None:
            continue
        rule = allowed(area)
        checked += 1
        for number, path in includes(full):
            if path == 'partikel_config.hpp':
                continue
            target = area_of_include(path)
            if target is None or rule is None:
                continue
            ok = target != 'tools' if rule == 'not tools' else target in rule
            if not ok:
                violations.append(f'{rel}:{number}: {area} includes "{path}" ({target})')
    if checked == 0:
        violations.append(f'{root}: no sources found')
    return violations


if __name__ == '__main__':
    sys.exit(main())
