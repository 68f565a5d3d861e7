# Prints what a compiler cache did since the last call ("hits N misses M",
# N and M from its own statistics) and zeroes its counters: `ccache` (its
# --print-stats) or `sccache` (its JSON statistics); the cache's directory
# and server come from the environment.
import json
import subprocess
import sys

cache = sys.argv[1]
if cache == "ccache":
    stats = dict(line.split("\t") for line in
                 subprocess.check_output(["ccache", "--print-stats"], text=True).splitlines())
    hits = int(stats["direct_cache_hit"]) + int(stats["preprocessed_cache_hit"])
    misses = int(stats["cache_miss"])
    subprocess.check_call(["ccache", "--zero-stats"], stdout=subprocess.DEVNULL)
else:
    stats = json.loads(subprocess.check_output(
        ["sccache", "--show-stats", "--stats-format", "json"], text=True))["stats"]
    hits = sum(stats["cache_hits"]["counts"].values())
    misses = sum(stats["cache_misses"]["counts"].values())
    subprocess.check_call(["sccache", "--zero-stats"], stdout=subprocess.DEVNULL)
print(f"hits {hits} misses {misses}")
