# A pure-Python loop for bench/programs: integer arithmetic and a branch, the interpreter's
# dispatch and object handling with no C library code to speak of.
s = 0
for i in range(2000000):
    if i % 3:
        s += i * i
    else:
        s -= i
print(s)
