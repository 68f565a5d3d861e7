# Runs a command and prints "exit N" with its exit status (lit's shell can
# only tell zero from non-zero).
import subprocess
import sys

print(f"exit {subprocess.run(sys.argv[1:]).returncode}", flush=True)
