#!/usr/bin/env bash
# Install the Debian/Ubuntu packages Partikel needs, only those missing (apt-get; sudo when
# not root). Works on Debian 12 and Ubuntu 24.04: every name below is a package of both, so no
# name needs a fallback (Ubuntu's from main and universe, which its default sources enable;
# the names that are newest or Debian-specific were looked up in Ubuntu 24.04's archive in
# 2026-11: libcli11-dev 2.4.1, doctest-dev 2.4.11, python3-xxhash 3.2.0, openimageio-tools and
# python3-openimageio 2.4.17, paraview 5.11.2, whose source builds python3-paraview as
# Debian's does). Nothing is downloaded from anywhere else.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libcli11-dev doctest-dev
  libhdf5-dev hdf5-tools
  libzstd-dev zstd libxxhash-dev
  libopenexr-dev libimath-dev
  openimageio-tools python3-openimageio
  libfftw3-dev
  libpng-dev
  libopenmpi-dev openmpi-bin
  python3 python3-numpy python3-h5py python3-xxhash
  # ParaView's pvpython for the tests that open our files in ParaView's own readers
  # (cli.particle-convert.paraview); about 1 min to install, 85 packages.
  python3-paraview
  # A virtual display for ParaView's rendering in scripts/interop-screenshots.sh (xvfb-run).
  # Blender, which that script also uses, is optional (about 300 MB): apt-get install blender.
  xvfb
  gnuplot-nox
  man-db
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# The OpenMP runtime comes with g++ (libgomp); clang users need libomp-dev in addition.

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "install-deps: error: not root and no sudo; install these packages: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
