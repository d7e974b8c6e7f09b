# Version, git commit and compiled-in backends for `--version`, into generated/partikel_config.hpp.
# -DPARTIKEL_GIT_COMMIT=... names the commit of a source tree and wins over its .git: a snapshot
# without .git, or a copy whose .git is not the tree's (scripts/gpu-check.sh, PARTIKEL_COMMIT).
find_package(Git QUIET)
if(PARTIKEL_GIT_COMMIT)
  # given
elseif(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _commit RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_rc EQUAL 0)
    set(PARTIKEL_GIT_COMMIT "${_commit}")
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE _dirty ERROR_QUIET)
    if(NOT _dirty EQUAL 0)
      string(APPEND PARTIKEL_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
if(NOT PARTIKEL_GIT_COMMIT)
  set(PARTIKEL_GIT_COMMIT "unknown")
endif()
if(PARTIKEL_HAVE_CUDA)
  set(PARTIKEL_HAVE_CUDA_01 1)
else()
  set(PARTIKEL_HAVE_CUDA_01 0)
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/partikel_config.hpp.in
               ${PROJECT_BINARY_DIR}/generated/partikel_config.hpp @ONLY)
