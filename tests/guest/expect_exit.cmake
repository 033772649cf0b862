# cmake -DSTATUS=<n> -DSTDERR=<regex> -P expect_exit.cmake -- <command> [args...]
# Runs the command; passes when it exits with status n (or, for a command a signal killed, n is
# the signal's description, e.g. "Illegal instruction") and its stderr matches the regex.
# (A PASS_REGULAR_EXPRESSION alone would ignore the exit status.)
set(cmd)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()

execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(NOTICE "${out}${err}")
if(NOT rc STREQUAL "${STATUS}")
  message(FATAL_ERROR "exit status ${rc}, expected ${STATUS}")
endif()
if(NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match: ${STDERR}")
endif()
