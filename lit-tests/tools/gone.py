# Reads a log of compiler commands (Inputs/log-cc) and checks that every
# temporary object `pcmap cc` compiled (-o in a pcmap-cc.* directory) and
# its directory are gone: prints "N temporary objects, none left".
import os
import sys

paths = []
for line in open(sys.argv[1]):
    words = line.split()
    for i, w in enumerate(words[:-1]):
        if w == "-o" and "/pcmap-cc." in words[i + 1]:
            paths.append(words[i + 1])
left = [p for p in paths + [os.path.dirname(p) for p in paths] if os.path.exists(p)]
print(f"{len(paths)} temporary objects, {'none left' if not left else 'left: ' + ' '.join(left)}")
