#!/usr/bin/env python3
"""sbm_parity: the plugin against LLVM's own SanitizerBinaryMetadata pass on
IR files, for every subset of features: `pcmap<…;native>` against the
`sanmd-module` of the plugin's opt (16 or 19), `pcmap<…>` (compact) against
opt-19's.

    sbm_parity.py --opt OPT --opt19 OPT --plugin SO --attachments SCRIPT
                  [--triple T] FILE.ll...

Each run's output goes through scripts/pcsections-attachments.py
--structors: every !pcsections attachment resolved (the plugin's requests
written as LLVM 19's, as the layout description says), the structors, their
callback calls, the section markers, llvm.global_ctors/dtors/used and the
callbacks' declarations. `@__pcmap_layout` and its `!exclude` node are ours
and not compared (docs/plugin.md). Prints one line per comparison with the
number of lines compared; on any difference, the diff and exit status 1.
"""
import argparse
import difflib
import itertools
import subprocess
import sys

FEATURES = ("covered", "atomics", "uar")


def subsets():
    for n in range(1, len(FEATURES) + 1):
        yield from itertools.combinations(FEATURES, n)


def listing(cmd, attachments, path):
    ir = subprocess.run(cmd + [path], check=True, capture_output=True, text=True).stdout
    out = subprocess.run(["python3", attachments, "--structors", "-"], input=ir,
                         check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True, help="the plugin's opt")
    ap.add_argument("--opt19", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--attachments", required=True)
    ap.add_argument("--triple", default="x86_64-unknown-linux-gnu")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    failed = 0
    for path in args.files:
        name = path.rsplit("/", 1)[-1]
        for features in subsets():
            flags = [f"-sanitizer-metadata-{f}" for f in features]
            llvm = ["-mtriple=" + args.triple, "-passes=module(sanmd-module)", *flags, "-S"]
            for mode, oracle in (("native", args.opt), ("compact", args.opt19)):
                params = ";".join(features + (("native",) if mode == "native" else ()))
                ours = listing([args.opt, "-mtriple=" + args.triple,
                                f"-load-pass-plugin={args.plugin}",
                                f"-passes=pcmap<{params}>", "-S"], args.attachments, path)
                theirs = listing([oracle, *llvm], args.attachments, path)
                what = f"{name} {'+'.join(features)} {mode} vs {'its own opt' if mode == 'native' else 'opt-19'}"
                if ours == theirs:
                    print(f"same: {what} ({len(ours)} lines)")
                    continue
                failed += 1
                print(f"DIFFERENT: {what}")
                for line in difflib.unified_diff(theirs, ours, "llvm", "pcmap", lineterm="", n=1):
                    print("  " + line)
    if failed:
        print(f"{failed} comparisons differ")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
