# Writes version.h with the current git hash and build date (UTC).
execute_process(COMMAND git -C ${SRC} rev-parse --short=12 HEAD
                OUTPUT_VARIABLE HASH OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE RC ERROR_QUIET)
if(NOT RC EQUAL 0 OR HASH STREQUAL "")
  set(HASH "unknown")
else()
  execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE DIRTY OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT DIRTY STREQUAL "")
    set(HASH "${HASH}-dirty")
  endif()
endif()
string(TIMESTAMP DATE "%Y-%m-%d" UTC)
set(PROJECT_VERSION ${VERSION})
set(PGRTT_GIT_HASH ${HASH})
set(PGRTT_BUILD_DATE ${DATE})
set(CMAKE_SYSTEM_PROCESSOR ${ARCH})
configure_file(${SRC}/src/base/version.h.in ${OUT}.tmp @ONLY)
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
