//! What a terminating signal (SIGINT, SIGTERM, SIGHUP) must not leave
//! behind: emit's named temporary file, `pcmap cc`'s temporary objects and
//! directory, and the compiler `pcmap cc` waits for.
//!
//! ```text
//! armed:   paths to unlink (FILES slots) and flat directories to empty and
//!          remove (DIRS slots), each a leaked C string, prepared before the
//!          signal can come; the one child process being waited for
//! signal:  the handler sends the child the same signal and waits for it
//!          (SIGKILL after 5 s), so that it writes nothing more; unlinks and
//!          removes what is armed; and raises the signal again with its
//!          default action, so the process still dies of it
//! ```
//!
//! The handler makes async-signal-safe calls only (kill, waitpid,
//! nanosleep, open, getdents64, unlinkat, rmdir, raise). Handlers are
//! installed on first use, for each signal the process does not ignore (a
//! program started under nohup, or in the background, keeps ignoring
//! them). [`SignalsBlocked`] keeps the signals out of a section that must
//! not be cut (a rename, a spawn and the recording of its child).

use std::ffi::{c_char, c_int, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use std::sync::Once;

const SIGNALS: [c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Files armed at once: emit's named temporary file, a compile's temporary
/// object, a response file of pcmap's.
const FILES: usize = 8;
/// Directories armed at once: `pcmap cc`'s private directory.
const DIRS: usize = 2;

/// An empty slot.
#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

/// The armed paths, leaked `CString`s: whoever swaps one out (the handler,
/// or [`disarm`]) owns it; the handler never frees it.
static ARMED_FILES: [AtomicPtr<c_char>; FILES] = [EMPTY; FILES];
static ARMED_DIRS: [AtomicPtr<c_char>; DIRS] = [EMPTY; DIRS];

/// The child being waited for, or 0.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// SIGINT, SIGTERM and SIGHUP held back from the calling thread while this
/// lives (threads spawned meanwhile inherit the mask and keep it, and so
/// would a child process: [`run`] gives its child the mask from before);
/// delivered once it is dropped.
pub struct SignalsBlocked(libc::sigset_t);

impl SignalsBlocked {
    #[allow(clippy::new_without_default)]
    pub fn new() -> SignalsBlocked {
        let set = set();
        // SAFETY: sigset_t is plain data that pthread_sigmask fills in.
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are valid sigset_t; SIG_BLOCK only adds.
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old) };
        SignalsBlocked(old)
    }
}

impl Drop for SignalsBlocked {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved by `new`.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
    }
}

fn set() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigemptyset initialises it.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t, the signals valid numbers.
    unsafe {
        libc::sigemptyset(&mut set);
        for s in SIGNALS {
            libc::sigaddset(&mut set, s);
        }
    }
    set
}

/// What [`arm_file`] or [`arm_dir`] armed: its slot and the address of the
/// leaked path.
pub struct Token {
    slots: &'static [AtomicPtr<c_char>],
    index: usize,
    raw: usize,
}

/// Makes `path` a file a terminating signal unlinks. `None` when every slot
/// is taken (the file then stays if a signal comes).
pub fn arm_file(path: &Path) -> Option<Token> {
    arm(&ARMED_FILES, path)
}

/// Makes `path` a directory a terminating signal empties (its entries,
/// not recursively) and removes.
pub fn arm_dir(path: &Path) -> Option<Token> {
    arm(&ARMED_DIRS, path)
}

fn arm(slots: &'static [AtomicPtr<c_char>], path: &Path) -> Option<Token> {
    install();
    let raw = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
    for (index, slot) in slots.iter().enumerate() {
        if slot
            .compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        {
            return Some(Token {
                slots,
                index,
                raw: raw as usize,
            });
        }
    }
    // SAFETY: `raw` came from into_raw above and was not shared.
    drop(unsafe { CString::from_raw(raw) });
    None
}

/// The path of `token` no longer for a signal to remove.
pub fn disarm(token: Option<Token>) {
    let Some(Token { slots, index, raw }) = token else {
        return;
    };
    let raw = raw as *mut c_char;
    // A handler that swapped it out first may still be using it.
    if slots[index]
        .compare_exchange(
            raw,
            std::ptr::null_mut(),
            Ordering::SeqCst,
            Ordering::SeqCst,
        )
        .is_ok()
    {
        // SAFETY: from `arm`'s into_raw; swapped out, so no handler can
        // see it any more.
        drop(unsafe { CString::from_raw(raw) });
    }
}

/// A temporary file or directory a terminating signal removes (a file
/// unlinked, a directory emptied and removed), removed when dropped too:
/// [`ArmedFile`], [`ArmedDir`]. Create it with signals blocked, so that no
/// signal comes between its creation and its arming.
pub struct Armed<T> {
    value: Option<T>,
    token: Option<Token>,
}

impl<T> Armed<T> {
    fn get(&self) -> &T {
        self.value
            .as_ref()
            .expect("armed until persisted or dropped")
    }
}

impl<T> Drop for Armed<T> {
    fn drop(&mut self) {
        if let Some(value) = self.value.take() {
            let _blocked = SignalsBlocked::new();
            disarm(self.token.take());
            drop(value);
        }
    }
}

/// A temporary file (see [`Armed`]).
pub type ArmedFile = Armed<tempfile::TempPath>;

impl ArmedFile {
    pub fn new(path: tempfile::TempPath) -> ArmedFile {
        let token = arm_file(&path);
        Armed {
            value: Some(path),
            token,
        }
    }

    pub fn path(&self) -> &Path {
        self.get()
    }

    /// Renames the file to `target`, with no moment where a signal would
    /// remove it or leave its old name.
    pub fn persist(mut self, target: &Path) -> io::Result<()> {
        let _blocked = SignalsBlocked::new();
        let path = self.value.take().expect("armed until persisted or dropped");
        let result = path.persist(target).map_err(|e| e.error);
        disarm(self.token.take());
        result
    }
}

/// A private temporary directory (see [`Armed`]).
pub type ArmedDir = Armed<tempfile::TempDir>;

impl ArmedDir {
    /// A new directory `PREFIX…` in `$TMPDIR`.
    pub fn new(prefix: &str) -> io::Result<ArmedDir> {
        let _blocked = SignalsBlocked::new();
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        let token = arm_dir(dir.path());
        Ok(Armed {
            value: Some(dir),
            token,
        })
    }

    pub fn path(&self) -> &Path {
        self.get().path()
    }
}

/// Runs `command` to its end as the child a terminating signal stops
/// first: the signal cannot come between the spawn and the recording of
/// the child, nor between its end and the forgetting of its process ID (a
/// signal then would go to a process that reused it).
pub fn run(command: &mut Command) -> io::Result<ExitStatus> {
    install();
    let mut child: Child = {
        let blocked = SignalsBlocked::new();
        let before = blocked.0;
        // SAFETY: the closure runs in the child between fork and exec and
        // makes one async-signal-safe call on a copy of a plain sigset_t.
        unsafe {
            command.pre_exec(move || {
                libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
                Ok(())
            })
        };
        let child = command.spawn()?;
        CHILD.store(child.id() as i32, Ordering::SeqCst);
        child
    };
    let pid = child.id() as libc::id_t;
    // Wait for its end without reaping it: the ID stays the child's.
    loop {
        // SAFETY: siginfo_t is plain data waitid fills in.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer; WNOWAIT leaves the child waitable.
        let r = unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if r == 0 {
            break;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            CHILD.store(0, Ordering::SeqCst);
            return Err(e);
        }
    }
    let _blocked = SignalsBlocked::new();
    CHILD.store(0, Ordering::SeqCst);
    child.wait()
}

/// The exit code a shell reports for `status`: its code, or 128 + the
/// signal that killed it.
pub fn shell_code(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        (None, None) => 1,
    }
}

extern "C" fn on_signal(sig: c_int) {
    let child = CHILD.swap(0, Ordering::SeqCst);
    if child > 0 {
        stop(child, sig);
    }
    for slot in &ARMED_FILES {
        let path = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a NUL-terminated string `arm` leaked; unlink is
            // async-signal-safe.
            unsafe { libc::unlink(path) };
        }
    }
    for slot in &ARMED_DIRS {
        let path = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !path.is_null() {
            remove_flat_dir(path);
        }
    }
    // SA_RESETHAND restored the default action: this kills the process
    // (when the handler returns, if the signal is blocked in it).
    // SAFETY: raise is async-signal-safe.
    unsafe { libc::raise(sig) };
}

/// Sends `sig` to `child` and waits for it to end, SIGKILL after 5 s.
fn stop(child: libc::pid_t, sig: c_int) {
    // SAFETY: kill, waitpid and nanosleep are async-signal-safe; the
    // pointers are valid or null.
    unsafe {
        libc::kill(child, sig);
        for _ in 0..500 {
            match libc::waitpid(child, std::ptr::null_mut(), libc::WNOHANG) {
                0 => {
                    let pause = libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 10_000_000,
                    };
                    libc::nanosleep(&pause, std::ptr::null_mut());
                }
                // Ended and reaped, or not ours to wait for.
                _ => return,
            }
        }
        libc::kill(child, libc::SIGKILL);
        while libc::waitpid(child, std::ptr::null_mut(), 0) < 0
            && *libc::__errno_location() == libc::EINTR
        {}
    }
}

/// Unlinks every entry of the directory `path` (files: pcmap's and the
/// compiler's temporary files) and removes it, with async-signal-safe calls
/// only: getdents64 into a buffer on the stack.
fn remove_flat_dir(path: *const c_char) {
    // SAFETY: `path` is NUL-terminated; the calls are async-signal-safe;
    // the buffer outlives each getdents64 call, which writes at most its
    // length, and each entry is read within the bytes it returned.
    unsafe {
        let fd = libc::open(path, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
        if fd >= 0 {
            let mut buf = [0u8; 4096];
            // Entries removed while reading may make the reading skip
            // others: read again from the start until a pass removes none.
            for _ in 0..8 {
                let mut removed = false;
                loop {
                    let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
                    if n <= 0 {
                        break;
                    }
                    let mut at = 0usize;
                    while at + 19 < n as usize {
                        // struct linux_dirent64: d_ino u64, d_off i64,
                        // d_reclen u16, d_type u8, d_name NUL-terminated.
                        let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                        if reclen == 0 {
                            break;
                        }
                        let name = buf.as_ptr().add(at + 19) as *const c_char;
                        let dot = *name == b'.' as c_char
                            && (*name.add(1) == 0
                                || (*name.add(1) == b'.' as c_char && *name.add(2) == 0));
                        if !dot && libc::unlinkat(fd, name, 0) == 0 {
                            removed = true;
                        }
                        at += reclen;
                    }
                }
                if !removed || libc::lseek(fd, 0, libc::SEEK_SET) != 0 {
                    break;
                }
            }
            libc::close(fd);
        }
        libc::rmdir(path);
    }
}

/// Installs the handler for each signal the process does not ignore.
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        for sig in SIGNALS {
            // SAFETY: sigaction is plain data filled in by the kernel; the
            // handler only makes async-signal-safe calls.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_signal as extern "C" fn(c_int) as libc::sighandler_t;
                new.sa_flags = libc::SA_RESETHAND;
                libc::sigemptyset(&mut new.sa_mask);
                libc::sigaction(sig, &new, std::ptr::null_mut());
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_exhaustion_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let tokens: Vec<_> = (0..FILES)
            .map(|i| arm_file(&dir.path().join(i.to_string())))
            .collect();
        // Other tests may hold slots: at least one of ours is armed.
        assert!(tokens.iter().any(Option::is_some));
        let extra = arm_file(&dir.path().join("extra"));
        assert!(extra.is_none() || tokens.iter().any(Option::is_none));
        disarm(extra);
        for t in tokens {
            disarm(t);
        }
        let again = arm_file(&dir.path().join("again"));
        assert!(again.is_some());
        disarm(again);
    }

    #[test]
    fn a_flat_directory_is_emptied_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("private");
        std::fs::create_dir(&d).unwrap();
        for i in 0..300 {
            std::fs::write(d.join(format!("file-with-a-longish-name-{i}")), b"x").unwrap();
        }
        let c = CString::new(d.as_os_str().as_bytes()).unwrap();
        remove_flat_dir(c.as_ptr());
        assert!(!d.exists());
    }

    #[test]
    fn a_child_runs_with_the_mask_from_before_the_spawn() {
        let out = {
            let _blocked = SignalsBlocked::new();
            let mut c = Command::new("grep");
            c.args(["SigBlk", "/proc/self/status"])
                .stdout(std::process::Stdio::piped());
            let child = c.spawn().unwrap();
            child.wait_with_output().unwrap()
        };
        // Spawned by std with the signals blocked: blocked in the child too.
        assert!(!String::from_utf8_lossy(&out.stdout).contains("0000000000000000"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mask");
        let status = {
            let _blocked = SignalsBlocked::new();
            run(Command::new("sh").args([
                "-c",
                &format!("grep SigBlk /proc/self/status > {}", file.display()),
            ]))
            .unwrap()
        };
        assert!(status.success());
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("SigBlk:\t0000000000000000"), "{text}");
    }

    #[test]
    fn a_child_runs_to_its_end() {
        let status = run(Command::new("sh").args(["-c", "exit 3"])).unwrap();
        assert_eq!(shell_code(status), 3);
        let status = run(Command::new("sh").args(["-c", "kill -TERM $$"])).unwrap();
        assert_eq!(shell_code(status), 128 + libc::SIGTERM);
    }
}
