# Sourced by the device scripts (gpu-check.sh, multi-gpu-check.sh) from the repository root:
# where the machine has no OpenEXR, unpack Debian's packages fetched into the git-ignored .deps/
# and point pkg-config, CMake and the loader at them.
if [ -d .deps ] && ls .deps/*.deb >/dev/null 2>&1 && ! { command -v pkg-config >/dev/null && pkg-config --exists OpenEXR; }; then
  mkdir -p /tmp/exr
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/exr; done
  pcdir=/tmp/exr/usr/lib/x86_64-linux-gnu/pkgconfig
  sed -i 's#=/usr#=/tmp/exr/usr#g' "$pcdir"/*.pc  # prefix and the absolute include/lib dirs
  export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export CMAKE_PREFIX_PATH=/tmp/exr/usr LD_LIBRARY_PATH=/tmp/exr/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
