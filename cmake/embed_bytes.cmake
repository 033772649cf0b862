# cmake -DIN=<file> -DOUT=<file.cpp> -DNAME=<identifier> -P embed_bytes.cmake
# Writes the bytes of IN as brisk::NAME (a byte array) and brisk::NAME_size, so that a change of
# the bytes is a change of the source (ccache would not see an .incbin's file).
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "// Generated from ${IN} by cmake/embed_bytes.cmake.\n#include <cstddef>\nnamespace brisk {\n"
                  "extern const unsigned char ${NAME}[];\nextern const size_t ${NAME}_size;\n"
                  "alignas(16) const unsigned char ${NAME}[] = {\n${bytes}};\nconst size_t ${NAME}_size = ${size};\n}\n")
