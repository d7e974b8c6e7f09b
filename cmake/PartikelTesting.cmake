# Test helpers. Labels: unit, cli, physics, gpu, mpi, slow (the default run excludes gpu and
# slow; mpi tests run CPU ranks under mpirun there, gpu+mpi ones on the GPU machine). Tests run
# on the CPU backend everywhere; doctest cases in the "gpu" test suite run the CUDA backend and
# are registered only under the `gpu` label.

# partikel_add_doctest(area SOURCES ... DEPS ... [LABEL unit|physics]):
# one doctest binary per area; registers <label>.<area> (every suite except "gpu" and "slow"),
# and, only when the sources contain such cases, slow.<label>.<area> (suite "slow") and
# gpu.<area>.<label> (suite "gpu", or PK_BACKEND_TEST): a registered suite never passes empty.
function(partikel_add_doctest area)
  cmake_parse_arguments(A "" "LABEL" "SOURCES;DEPS" ${ARGN})
  if(NOT A_LABEL)
    set(A_LABEL unit)
  endif()
  set(target test_${A_LABEL}_${area})
  add_executable(${target} ${A_SOURCES})
  target_link_libraries(${target} PRIVATE partikel_test_main ${A_DEPS})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  set(has_gpu FALSE)
  set(has_slow FALSE)
  foreach(src IN LISTS A_SOURCES)
    get_filename_component(path ${src} ABSOLUTE)
    if(EXISTS ${path})
      file(READ ${path} text)
      if(text MATCHES "(test_suite|TEST_SUITE)\\(\"gpu\"\\)" OR text MATCHES "PK_(BACKEND|PHYSICS|SLOW_PHYSICS)_TEST\\(")
        set(has_gpu TRUE)
      endif()
      if(text MATCHES "(test_suite|TEST_SUITE)\\(\"slow\"\\)" OR text MATCHES "PK_SLOW_PHYSICS_TEST\\(")
        set(has_slow TRUE)
      endif()
    endif()
  endforeach()
  add_test(NAME ${A_LABEL}.${area}
           COMMAND ${target} --test-suite-exclude=gpu,slow --no-intro --no-version)
  set_tests_properties(${A_LABEL}.${area} PROPERTIES LABELS ${A_LABEL})
  if(has_slow)
    add_test(NAME slow.${A_LABEL}.${area} COMMAND ${target} --test-suite=slow --no-intro --no-version)
    set_tests_properties(slow.${A_LABEL}.${area} PROPERTIES LABELS "slow;${A_LABEL}")
  endif()
  if(has_gpu)
    add_test(NAME gpu.${area}.${A_LABEL} COMMAND ${target} --test-suite=gpu --no-intro --no-version)
    set_tests_properties(gpu.${area}.${A_LABEL} PROPERTIES LABELS gpu ENVIRONMENT PARTIKEL_REQUIRE_GPU=1)
  endif()
endfunction()

# partikel_add_mpi_doctest(name TARGET target): with MPI, the doctest binary `target` (its
# default suites) on 2 and 4 CPU ranks under mpirun, registered as mpi.<name>.np2 and .np4
# (label mpi; oversubscribed: the test machines have 2 cores).
function(partikel_add_mpi_doctest name)
  cmake_parse_arguments(A "" "TARGET" "" ${ARGN})
  if(NOT PARTIKEL_HAVE_MPI)
    return()
  endif()
  foreach(ranks 2 4)
    add_test(NAME mpi.${name}.np${ranks}
             COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe --allow-run-as-root -np ${ranks}
                     $<TARGET_FILE:${A_TARGET}> --test-suite-exclude=gpu,slow --no-intro --no-version)
    set_tests_properties(mpi.${name}.np${ranks} PROPERTIES LABELS mpi TIMEOUT 300
                         ENVIRONMENT "OMP_NUM_THREADS=1;PARTIKEL_FAULT_TIMEOUT_S=20")
  endforeach()
endfunction()

# partikel_add_shell_test(name SCRIPT file LABELS ... [TIMEOUT s]): a shell script run with
# bash, with PATH starting at the built programs and PARTIKEL_SOURCE_DIR set.
function(partikel_add_shell_test name)
  cmake_parse_arguments(A "" "SCRIPT;TIMEOUT" "LABELS;ARGS" ${ARGN})
  add_test(NAME ${name} COMMAND bash ${A_SCRIPT} ${A_ARGS}
           WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set(env "PATH=${PROJECT_BINARY_DIR}/bin:$ENV{PATH}"
          "PARTIKEL_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
          "PARTIKEL_BUILD_DIR=${PROJECT_BINARY_DIR}")
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}" ENVIRONMENT "${env}")
  if(A_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT})
  endif()
endfunction()
