#!/usr/bin/env python3
"""sbm_runtime: LLVM's own SanitizerBinaryMetadata runtime tests
(plugin/llvm-sbm/*.cpp with common.h, whose callbacks decode the covered
table as LLVM 19 writes it and print every function's features and
stack-arguments size), built twice and run: with the plugin's clang++ (16
or 19) -fpass-plugin (PCMAP_FEATURES=F) and `pcmap emit`, and with clang++-19
-fexperimental-sanitize-metadata=F. Both programs must print the same.

    sbm_runtime.py --clang CLANG++ --clang19 CLANG++ --plugin SO --pcmap PCMAP
                   --target TRIPLE [--run "qemu-… -L …"] --out DIR
                   SOURCE.cpp:FEATURES[:FLAGS] ...

Prints one line per program; on any difference the diff and exit status 1.
"""
import argparse
import difflib
import os
import shlex
import subprocess
import sys


def run(cmd, env=None):
    subprocess.run(cmd, check=True, env=env)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--clang", "--clang19", "--plugin", "--pcmap", "--target", "--out"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--run", default="")
    ap.add_argument("--link", default="-fuse-ld=lld")
    ap.add_argument("programs", nargs="+")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    runner = shlex.split(args.run)
    link = [args.clang, f"--target={args.target}", *shlex.split(args.link)]
    failed = 0
    for spec in args.programs:
        source, features, *flags = spec.split(":")
        flags = shlex.split(flags[0]) if flags else []
        include = f"-I{os.path.dirname(os.path.abspath(source))}"
        stem = os.path.join(args.out, f"{os.path.basename(source)}.{features.replace(',', '_')}")
        env = dict(os.environ, PCMAP_FEATURES=features)
        compile_ours = [args.clang, f"--target={args.target}", *flags, include,
                        f"-fpass-plugin={args.plugin}", "-c", source, "-o", stem + ".raw.o"]
        # LLVM 16 warns when PowerPC atomics lose their PCs; not this test's concern.
        subprocess.run(compile_ours, check=True, env=env, stderr=subprocess.DEVNULL)
        run([args.pcmap, "emit", stem + ".raw.o", "-o", stem + ".ours.o"])
        run([args.clang19, f"--target={args.target}", *flags, include,
             f"-fexperimental-sanitize-metadata={features}", "-c", source, "-o", stem + ".19.o"])
        outputs = []
        for which in ("ours", "19"):
            run(link + [f"{stem}.{which}.o", "-o", f"{stem}.{which}"])
            outputs.append(subprocess.run(runner + [f"{stem}.{which}"], check=True,
                                          capture_output=True, text=True).stdout.splitlines())
        ours, theirs = outputs
        what = f"{args.target} {os.path.basename(source)} {features} {' '.join(flags)}".rstrip()
        if ours == theirs:
            sizes = sorted({line.split("stack_args=")[1] for line in ours if "stack_args=" in line})
            print(f"same: {what} ({len(ours)} lines; stack_args {', '.join(sizes) or '-'})")
            continue
        failed += 1
        print(f"DIFFERENT: {what}")
        for line in difflib.unified_diff(theirs, ours, "clang-19", "pcmap", lineterm=""):
            print("  " + line)
    if failed:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
