# Tools some tests need beyond the build's own: without one, those tests are not registered, with a
# line saying so, and with BRISK_REQUIRE_TOOLS (scripts/test, and so CI) the configure fails instead,
# as a test that drops out proves nothing.
option(BRISK_REQUIRE_TOOLS "Fail the configure when a tool some tests need is missing" OFF)
function(brisk_find_tool var program package)
  find_program(${var} ${program})
  if(${var})
    return()
  elseif(BRISK_REQUIRE_TOOLS)
    message(FATAL_ERROR "${program} is missing (Debian package ${package}), and BRISK_REQUIRE_TOOLS is on: "
                        "run scripts/setup")
  endif()
  message(STATUS "${program} not found (Debian package ${package}): the tests that need it are not registered")
endfunction()
