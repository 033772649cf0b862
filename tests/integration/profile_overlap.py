#!/usr/bin/env python3
"""Block overlap of two LLVM text sample profiles (llvm-profgen --format=text), the accuracy
measure docs/profiling.md defines: each profile's body samples, keyed by function, inline call
path and line offset.discriminator, are normalised to fractions of that profile's total, and
the overlap is the sum over all keys of the smaller of the two fractions (1 = the same shape,
0 = nothing in common). Prints the overlap, then each top-level function's share of the body
samples in both profiles, heaviest first in the first profile:

    overlap 0.9731
    function weight_a weight_b head_a head_b
    hot_loop 0.6120 0.6081 1 1
"""
import re
import sys

# " 4.2: 534 callee:12 other:3" (body) or " 4: inlinee:1000" (an inlined call site); both
# indented one space deeper than the function they belong to.
BODY = re.compile(r"^( +)(\d+)(?:\.(\d+))?: (\d+)((?: \S+:\d+)*)$")
INLINE = re.compile(r"^( +)(\d+)(?:\.(\d+))?: (\S+):(\d+)$")
HEADER = re.compile(r"^(\S.*):(\d+):(\d+)$")


def read(path):
    """(body samples by key, body samples by top-level function, head samples by function)."""
    body, weight, head = {}, {}, {}
    stack = []  # the inline path: (call site, callee) per nesting level below the function
    func = None
    try:
        lines = open(path).read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"{path}: {getattr(e, 'strerror', None) or e}")
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("!"):
            continue  # metadata such as !CFGChecksum
        m = HEADER.match(line)
        if m:
            func, stack = m.group(1), []
            head[func] = head.get(func, 0) + int(m.group(3))
            weight.setdefault(func, 0)
            continue
        m = BODY.match(line) or INLINE.match(line)
        if not m or func is None:
            sys.exit(f"{path}:{n}: not a line of a text sample profile: {line!r}")
        depth = len(m.group(1)) - 1
        if depth > len(stack):
            sys.exit(f"{path}:{n}: indented deeper than its inline call site")
        del stack[depth:]
        site = f"{m.group(2)}.{m.group(3) or 0}"
        if m.re is INLINE:
            stack.append((site, m.group(4)))
            continue
        key = (func, tuple(stack), site)
        body[key] = body.get(key, 0) + int(m.group(4))
        weight[func] += int(m.group(4))
    return body, weight, head


def fractions(counts):
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: profile_overlap.py PROFILE_A PROFILE_B")
    (body_a, weight_a, head_a), (body_b, weight_b, head_b) = (read(p) for p in sys.argv[1:])
    fa, fb = fractions(body_a), fractions(body_b)
    if not fa or not fb:
        sys.exit(f"no body samples in {sys.argv[1] if not fa else sys.argv[2]}")
    print(f"overlap {sum(min(v, fb.get(k, 0.0)) for k, v in fa.items()):.4f}")
    print("function weight_a weight_b head_a head_b")
    wa, wb = fractions(weight_a), fractions(weight_b)
    for func in sorted(set(wa) | set(wb), key=lambda f: (-wa.get(f, 0.0), -wb.get(f, 0.0), f)):
        print(f"{func} {wa.get(func, 0.0):.4f} {wb.get(func, 0.0):.4f} {head_a.get(func, 0)} {head_b.get(func, 0)}")


if __name__ == "__main__":
    main()
