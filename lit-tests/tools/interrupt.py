#!/usr/bin/env python3
"""Stops `pcmap emit` while it writes its output, sends it a signal and
checks what is left in the output's directory.

    interrupt.py PCMAP OBJECT WORKDIR

Each scenario runs pcmap on a copy of OBJECT in a directory of its own,
waits until /proc shows the output's temporary file open, stops the process
(SIGSTOP) and checks that it really is mid-write (the output is as before),
then sends the signal, lets it go on (SIGCONT) and checks that it died of the
signal and that the directory holds exactly what it held before, the output
unchanged. A run that finished before it was stopped is retried. Prints one
line per scenario; exits 1 on the first failure."""
import os
import shutil
import signal
import subprocess
import sys
import time

pcmap, obj, work = sys.argv[1:4]
work = os.path.abspath(work)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

SCENARIOS = [
    # (temporary file, signal, output: new / replace / in-place)
    ("unnamed", "KILL", "new"),
    ("unnamed", "KILL", "replace"),
    ("unnamed", "KILL", "in-place"),
    ("unnamed", "TERM", "new"),
    ("unnamed", "INT", "in-place"),
    ("unnamed", "HUP", "replace"),
    # The fallback: a named file a handler removes (kill -9 cannot be
    # handled: it is not run here).
    ("named", "TERM", "new"),
    ("named", "INT", "replace"),
    ("named", "HUP", "in-place"),
]


def default_signals():
    # Whatever the caller ignores (a background job ignores SIGINT), pcmap
    # starts with the default actions, as from a terminal.
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def listing(d):
    return {name: open(os.path.join(d, name), "rb").read() for name in sorted(os.listdir(d))}


def temp_fd(pid, d, exclude):
    """(the /proc path of, the link of) the fd pcmap writes its output
    through, if open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return None
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            target = os.readlink(path)
        except OSError:
            continue
        if target.startswith(d + "/") and target not in exclude:
            return path, target
    return None


def same_inode(path, names, d):
    """Whether every one of `names` in `d` is a link to the file open at
    `path` (a /proc fd)."""
    try:
        ino = os.stat(path).st_ino
        return all(os.stat(os.path.join(d, n)).st_ino == ino for n in names)
    except FileNotFoundError:
        return False


def blocked(pid, signum):
    """Whether `pid` has `signum` blocked (its /proc status SigBlk mask)."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("SigBlk:"):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except FileNotFoundError:
        pass
    return False


def wait_stopped(pid):
    """Until /proc says `pid` is stopped (state T) or gone."""
    while True:
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except FileNotFoundError:
            return
        # The state follows the command name's closing parenthesis.
        if stat[stat.rindex(")") + 2] in "TtZX":
            return
        time.sleep(0.0005)


def run(n, temp, sig, output):
    d = os.path.join(work, f"{n}-{temp}-{sig}-{output}")
    os.makedirs(d)
    inp = os.path.join(d, "in.o")
    shutil.copyfile(obj, inp)
    out = os.path.join(d, "out.o")
    if output == "replace":
        with open(out, "wb") as f:
            f.write(b"the old output\n")
    args = [pcmap, "emit", inp] + (["--in-place"] if output == "in-place" else ["-o", out])
    if temp == "named":
        args.append("--named-temp")
    before = listing(d)
    proc = subprocess.Popen(args, preexec_fn=default_signals, stdout=subprocess.DEVNULL)
    found = None
    while proc.poll() is None and found is None:
        found = temp_fd(proc.pid, d, {inp})
    if found is None:
        proc.wait()
        return None  # finished before its output was seen: retry
    os.kill(proc.pid, signal.SIGSTOP)
    # A signal takes effect asynchronously: until the process shows as
    # stopped it may still put its output in place (a fast emit did, between
    # the listing below and the stop).
    wait_stopped(proc.pid)
    fd_path, target = found
    during = listing(d)
    written = inp if output == "in-place" else out
    if during.get(os.path.basename(written)) != before.get(os.path.basename(written)):
        # The output was already put in place: too late, retry.
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return None
    extra = sorted(set(during) - set(before))
    if blocked(proc.pid, getattr(signal, "SIG" + sig)):
        # Stopped inside the commit, where pcmap holds the signal back
        # until the output is in place (docs/emit.md): the signal would
        # take effect after a complete output, not interrupt the write.
        # Caught there: too late, retry.
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return None
    if (temp == "unnamed" and extra and target.endswith(" (deleted)")
            and same_inode(fd_path, extra, d)):
        # The unnamed file has been linked to a fresh name, to be renamed
        # over the output: the commit (its fd still reads "(deleted)").
        # SIGKILL cannot be blocked, so a kill between those two system
        # calls leaves the fresh name: the one window no design closes
        # (docs/emit.md). Caught there: too late, retry.
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return None
    problem = None
    if temp == "unnamed" and (extra or not target.endswith(" (deleted)")):
        problem = f"a name is visible while writing: {extra or target}"
    if temp == "named" and len(extra) != 1:
        problem = f"expected one named temporary file while writing, saw {extra}"
    if problem:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return problem
    os.kill(proc.pid, getattr(signal, "SIG" + sig))
    os.kill(proc.pid, signal.SIGCONT)
    code = proc.wait()
    if code != -getattr(signal, "SIG" + sig):
        return f"exit status {code}, not death by SIG{sig}"
    after = listing(d)
    if after != before:
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        return f"left behind or changed: {changed}"
    return "ok"


# A quiet machine catches the write on the first run; a loaded one may give
# this poller no time while emit writes, run after run.
ATTEMPTS = 200

for n, (temp, sig, output) in enumerate(SCENARIOS):
    for attempt in range(1, ATTEMPTS + 1):
        result = run(f"{n}.{attempt}", temp, sig, output)
        if result is not None:
            print(f"caught writing on run {attempt}", file=sys.stderr)
            break
    else:
        result = f"never caught writing in {ATTEMPTS} runs"
    print(f"{temp} SIG{sig} {output}: {result}")
    if result != "ok":
        sys.exit(1)
shutil.rmtree(work)
