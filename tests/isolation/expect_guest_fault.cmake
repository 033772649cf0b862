# cmake -DBRISK=<brisk> -DENGINE=<engine> -DPROGRAM=<guest> -P expect_guest_fault.cmake
# Passes when the guest dies of SIGSEGV (exit status 139) and brisk's one line names the fault the
# program announced on stdout: "brisk: guest killed by SIGSEGV: <what the program printed>".
execute_process(COMMAND ${BRISK} run --engine=${ENGINE} ${PROGRAM}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL "139")
  message(FATAL_ERROR "exit status ${rc}, not 139 (SIGSEGV); stderr: ${err}")
endif()
if(NOT err STREQUAL "brisk: guest killed by SIGSEGV: ${out}")
  message(FATAL_ERROR "stderr is\n${err}but the program announced\n${out}")
endif()
