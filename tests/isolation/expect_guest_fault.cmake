# cmake -P expect_guest_fault.cmake -- <command> [args...]
# Passes when the guest dies of SIGSEGV (exit status 139) and brisk's one line names the fault the
# program announced on stdout: "brisk: guest killed by SIGSEGV: <what the program printed>".
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
if(NOT rc STREQUAL "139")
  message(FATAL_ERROR "exit status ${rc}, not 139 (SIGSEGV); stderr: ${err}")
endif()
if(NOT err STREQUAL "brisk: guest killed by SIGSEGV: ${out}")
  message(FATAL_ERROR "stderr is\n${err}but the program announced\n${out}")
endif()
