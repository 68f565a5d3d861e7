"""Compiles DIR/NAME.ll for TRIPLE both ways pcmap learns kinds and sizes —
the plugin's .pcmap.sites (opt -passes=pcmap<sites>, llc, emit) and the IR
(llc, emit --ir) — and fails unless the two flat tables are the same bytes
with the same relocations, every record's kind and size known, and the
emitted object has no .pcmap.sites left.

usage: both-paths.py OPT LLC PCMAP PLUGIN READELF OBJCOPY DIR NAME TRIPLE"""
import json
import subprocess
import sys

opt, llc, pcmap, plugin, readelf, objcopy, d, name, triple = sys.argv[1:10]
src = f"{d}/{name}.ll"
base = f"{d}/{name}.{triple}"


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or "warning" in p.stderr:
        sys.exit(f"both-paths: `{' '.join(cmd)}`: {p.stderr.strip()}")
    return p.stdout


run(opt, f"-mtriple={triple}", f"-load-pass-plugin={plugin}", "-passes=pcmap<sites>", src,
    "-o", f"{base}.sites.bc")
run(llc, "-O2", f"-mtriple={triple}", "-filetype=obj", f"{base}.sites.bc", "-o", f"{base}.sites.o")
run(pcmap, "emit", f"{base}.sites.o", "-o", f"{base}.sites.flat.o")
run(llc, "-O2", f"-mtriple={triple}", "-filetype=obj", src, "-o", f"{base}.o")
run(pcmap, "emit", "--ir", src, f"{base}.o", "-o", f"{base}.ir.flat.o")


def table(obj):
    run(objcopy, f"--dump-section=pcmap_stackmaps={obj}.sec", obj, f"{obj}.tmp")
    relocs = [line.split()[:3] + line.split()[4:] for line in
              run(readelf, "-r", obj).split("Relocation section '.relapcmap_stackmaps'")[1]
              .split("Relocation section")[0].splitlines()[2:] if line.strip()]
    return open(f"{obj}.sec", "rb").read(), relocs


described, ir = table(f"{base}.sites.flat.o"), table(f"{base}.ir.flat.o")
if described != ir:
    sys.exit(f"both-paths: {name} {triple}: the plugin's path and --ir give different flat tables")
if ".pcmap.sites" in run(readelf, "-S", f"{base}.sites.flat.o"):
    sys.exit(f"both-paths: {name} {triple}: emit left .pcmap.sites in the object")
records = [r for t in json.loads(run(pcmap, "dump", "--json", f"{base}.sites.flat.o"))["stackmaps"]
           if t["format"] == "flat" for r in t["records"]]
unknown = [r for r in records if r.get("kind") in (None, "unknown") or r.get("patchable_size") is None]
if unknown or not records:
    sys.exit(f"both-paths: {name} {triple}: {len(unknown)} of {len(records)} records unknown")
print(f"{name} {triple}: the same flat table ({len(records)} records, every kind and size known) "
      f"and relocations; .pcmap.sites removed")
