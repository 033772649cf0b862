# cmake -DBRISK_REQUIRE_TOOLS=ON -P require_tool.cmake: must fail as the configure would (tests.require_tools).
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/brisk_find_tool.cmake)
brisk_find_tool(NO_SUCH_TOOL no-such-tool-brisk none)
