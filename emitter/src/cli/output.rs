//! The file `pcmap emit` writes: complete or not at all, whatever happens to
//! the process, and `--in-place` keeps what makes the file the user's.
//!
//! ```text
//! written:    O_TMPFILE in the output's directory (no name: the kernel frees
//!             it if the process dies, kill -9 included), streamed through a
//!             BufWriter; where the filesystem has no O_TMPFILE, a named
//!             `.pcmap.XXXXXX` that a SIGINT/SIGTERM/SIGHUP handler unlinks
//! committed:  linkat(/proc/self/fd/N) to a fresh name + rename over the
//!             output (or linked straight to it when it does not exist), with
//!             SIGINT/SIGTERM/SIGHUP blocked for those two calls
//! in place:   symlinks resolved, the final target rewritten in its own
//!             directory with its mode, owner and group; a file with several
//!             hard links, or whose owner cannot be given back, gets the
//!             finished output copied into its inode (not atomic)
//! ```
//!
//! Signals (crate::signals): a named temporary file is armed for the
//! handler to remove. The caller keeps every other thread's
//! SIGINT/SIGTERM/SIGHUP blocked ([`SignalsBlocked`] around spawning them) so
//! that blocking them on the committing thread keeps them out of the commit.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Seek, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::signals::ArmedFile;
pub use crate::signals::SignalsBlocked;

/// Errors of the output; each names the output as the user gave it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: not a regular file ({})", .0.display(), .1)]
    NotRegular(PathBuf, &'static str),
    #[error("{}: cannot create a temporary file", path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: cannot write", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// How the temporary file is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TempKind {
    /// `O_TMPFILE`, or a named file where the filesystem lacks it.
    #[default]
    Unnamed,
    /// Always a named file (for tests of the fallback).
    Named,
}

/// The output of `pcmap emit`, an [`object::write::WritableBuffer`]. The
/// temporary file is created when writing starts, after every check of the
/// input passed (a bad input is reported as such whatever the output); the
/// first I/O error is kept, later writes are skipped. Nothing is visible at
/// the output's path before [`Output::commit`]; dropped, it leaves nothing.
pub struct Output {
    path: PathBuf,
    input: PathBuf,
    kind: TempKind,
    open: Option<Open>,
    error: Option<Error>,
}

struct Open {
    /// `path` with symlinks resolved: the file replaced or rewritten.
    target: PathBuf,
    dir: PathBuf,
    plan: Plan,
    writer: BufWriter<File>,
    /// The name of a named temporary file, removed on drop or by a signal.
    named: Option<ArmedFile>,
}

/// What the output's file must keep.
#[derive(Clone, Copy)]
enum Plan {
    /// A new file at the output's path, with the input's permission bits.
    New { mode: u32 },
    /// The output is the input's file (`--in-place`, or `-o` naming it):
    /// its mode, owner, group and links stay.
    Keep {
        mode: u32,
        uid: u32,
        gid: u32,
        links: u64,
    },
}

impl Output {
    /// The output `path` of a rewrite of `input` (the same path for
    /// `--in-place`). Touches nothing until the first write.
    pub fn new(path: &Path, input: &Path, kind: TempKind) -> Output {
        Output {
            path: path.to_path_buf(),
            input: input.to_path_buf(),
            kind,
            open: None,
            error: None,
        }
    }

    /// The error of creating the output, if that failed (a writer that
    /// cannot start makes the object writer fail: this is the cause).
    pub fn open_error(&mut self) -> Option<Error> {
        match self.error {
            Some(Error::NotRegular(..) | Error::Create { .. }) => self.error.take(),
            _ => None,
        }
    }

    /// Ends writing: the first error of creating or writing the output, or
    /// the output, complete, for a check and [`Written::commit`].
    pub fn finish(mut self) -> Result<Written, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let open = match self.open.take() {
            Some(open) => open,
            None => self.open()?,
        };
        let Open {
            target,
            dir,
            plan,
            writer,
            named,
        } = open;
        let file = writer.into_inner().map_err(|e| Error::Write {
            path: self.path.clone(),
            source: e.into_error(),
        })?;
        Ok(Written {
            path: self.path,
            target,
            dir,
            plan,
            file,
            named,
        })
    }

    fn open(&self) -> Result<Open, Error> {
        let create = |source| Error::Create {
            path: self.path.clone(),
            source,
        };
        let target = resolve(&self.path).map_err(create)?;
        let existing = match std::fs::metadata(&target) {
            Ok(m) if !m.is_file() => {
                let kind = crate::input::file_kind(m.file_type());
                return Err(Error::NotRegular(self.path.clone(), kind));
            }
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(create(e)),
        };
        let input = std::fs::metadata(&self.input).map_err(create)?;
        let plan = match existing {
            Some(m) if same_file(&m, &input) => Plan::Keep {
                mode: m.mode() & 0o7777,
                uid: m.uid(),
                gid: m.gid(),
                links: m.nlink(),
            },
            _ => Plan::New {
                mode: input.mode() & 0o7777,
            },
        };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let unnamed = match self.kind {
            TempKind::Unnamed => unnamed_temp(&dir),
            TempKind::Named => Err(unsupported()),
        };
        let (file, named) = match unnamed {
            Ok(file) => (file, None),
            Err(e) if is_unsupported(&e) => {
                let (file, armed) = named_temp(&dir).map_err(create)?;
                (file, Some(armed))
            }
            Err(e) => return Err(create(e)),
        };
        Ok(Open {
            target,
            dir,
            plan,
            writer: BufWriter::with_capacity(1 << 20, file),
            named,
        })
    }
}

impl object::write::WritableBuffer for Output {
    /// Opens the temporary file (once) and gives it the room for `size`
    /// bytes, the whole object (the builder reserves its exact size
    /// before writing; `write_bytes` reserves 0).
    fn reserve(&mut self, size: u64) -> Result<(), ()> {
        if self.error.is_some() {
            return Err(());
        }
        if self.open.is_none() {
            match self.open() {
                Ok(open) => self.open = Some(open),
                Err(e) => {
                    self.error = Some(e);
                    return Err(());
                }
            }
        }
        if let (Some(open), 1..) = (&self.open, size) {
            preallocate(open.writer.get_ref(), size);
        }
        Ok(())
    }

    fn write_bytes(&mut self, val: &[u8]) {
        if self.reserve(0).is_err() {
            return;
        }
        if let Some(Err(e)) = self.open.as_mut().map(|o| o.writer.write_all(val)) {
            self.error = Some(Error::Write {
                path: self.path.clone(),
                source: e,
            });
        }
    }
}

/// The complete output, not yet at the output's path: nothing is left of it
/// if it is dropped.
pub struct Written {
    path: PathBuf,
    target: PathBuf,
    dir: PathBuf,
    plan: Plan,
    file: File,
    named: Option<ArmedFile>,
}

impl Written {
    /// The temporary file, readable (to check what was written).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Puts the output in place: atomically, by a rename, unless the
    /// input's inode must be kept (several hard links, or an owner this
    /// process cannot give a new file); then it is copied into that inode,
    /// which is not atomic. The caller must no longer use any mapping of the
    /// input: its bytes may be overwritten.
    pub fn commit(self) -> Result<(), Error> {
        let Written {
            path,
            target,
            dir,
            plan,
            file,
            named,
        } = self;
        let cannot_write = |source| Error::Write {
            path: path.clone(),
            source,
        };
        match plan {
            Plan::New { mode } => {
                set_mode(&file, mode).map_err(cannot_write)?;
                replace(&file, named, &target, &dir).map_err(cannot_write)
            }
            Plan::Keep {
                mode,
                uid,
                gid,
                links,
            } => {
                // A rename would split hard links; a new file this process
                // cannot give the owner back to must not replace the old.
                if links == 1 && set_owner(&file, uid, gid).is_ok() {
                    set_mode(&file, mode).map_err(cannot_write)?;
                    replace(&file, named, &target, &dir).map_err(cannot_write)
                } else {
                    copy_into(file, &target).map_err(cannot_write)
                    // `named` (if any) is removed when dropped here.
                }
            }
        }
    }
}

fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether `output` (followed through symlinks) is `input`'s file.
pub fn is_input(input: &Path, output: &Path) -> bool {
    match (std::fs::metadata(input), std::fs::metadata(output)) {
        (Ok(a), Ok(b)) => same_file(&a, &b),
        _ => false,
    }
}

/// `path` with every symlink followed, also a dangling last one (its target
/// is where the file will be created), as `open` would follow them.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // Linux's own limit on symlinks in one lookup.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// Allocates disk blocks for the first `size` bytes of `file`, its size
/// unchanged (`FALLOC_FL_KEEP_SIZE`), so that the writes fill blocks
/// already allocated. Without them, ext4 allocates a file's blocks only as
/// it writes the file back (delayed allocation), except when a rename
/// replaces an existing file (`auto_da_alloc`: the output of a rebuild, as
/// [`replace`] does): then the rename itself allocates them and starts the
/// writeback, 10-30 ms for an object of 30 MB. Advice only: where the
/// filesystem has no fallocate, or the disk is full (which the writes then
/// report), nothing changes.
#[cfg(target_os = "linux")]
fn preallocate(file: &File, size: u64) {
    let _ = rustix::fs::fallocate(file, rustix::fs::FallocateFlags::KEEP_SIZE, 0, size);
}

#[cfg(not(target_os = "linux"))]
fn preallocate(_file: &File, _size: u64) {}

fn unsupported() -> io::Error {
    io::Error::from_raw_os_error(libc::EOPNOTSUPP)
}

/// `O_TMPFILE` refused by the kernel or the filesystem (kernels without it
/// see `O_DIRECTORY` and say EISDIR).
fn is_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
    )
}

/// A file in `dir` without a name.
#[cfg(target_os = "linux")]
fn unnamed_temp(dir: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, CWD};
    let fd = rustix::fs::openat(
        CWD,
        dir,
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    Ok(File::from(fd))
}

#[cfg(not(target_os = "linux"))]
fn unnamed_temp(_dir: &Path) -> io::Result<File> {
    Err(unsupported())
}

/// Gives the unnamed `file` the name `path`.
#[cfg(target_os = "linux")]
fn link(file: &File, path: &Path) -> io::Result<()> {
    use rustix::fs::{AtFlags, CWD};
    use std::os::fd::AsRawFd;
    let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    match rustix::fs::linkat(CWD, &*proc_path, CWD, path, AtFlags::SYMLINK_FOLLOW) {
        // No /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
        Err(rustix::io::Errno::NOENT) => {
            rustix::fs::linkat(file, "", CWD, path, AtFlags::EMPTY_PATH)?
        }
        r => r?,
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn link(_file: &File, _path: &Path) -> io::Result<()> {
    Err(unsupported())
}

fn named_temp(dir: &Path) -> io::Result<(File, ArmedFile)> {
    // No moment where the file exists and a signal would not remove it.
    let _blocked = SignalsBlocked::new();
    let (file, path) = tempfile::Builder::new()
        .prefix(".pcmap.")
        .tempfile_in(dir)?
        .into_parts();
    Ok((file, ArmedFile::new(path)))
}

fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

fn set_owner(file: &File, uid: u32, gid: u32) -> io::Result<()> {
    let now = file.metadata()?;
    if (now.uid(), now.gid()) == (uid, gid) {
        return Ok(());
    }
    std::os::unix::fs::fchown(file, Some(uid), Some(gid))
}

/// Puts `file`, finished, at `target` in one step: no moment where `target`
/// is missing or partial.
fn replace(file: &File, named: Option<ArmedFile>, target: &Path, dir: &Path) -> io::Result<()> {
    // A signal now would leave the name that link gives below.
    let _blocked = SignalsBlocked::new();
    if let Some(armed) = named {
        return armed.persist(target);
    }
    match link(file, target) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        r => return r,
    }
    let temp = tempfile::Builder::new()
        .prefix(".pcmap.")
        .make_in(dir, |path| link(file, path))?;
    // On failure the temporary name is removed as `temp` drops.
    temp.persist(target).map_err(|e| e.error)
}

/// Writes `file`'s bytes over `target`'s, in the same inode. A terminating
/// signal waits until the copy is complete; kill -9 or a full disk leaves
/// `target` partial.
fn copy_into(mut file: File, target: &Path) -> io::Result<()> {
    let _blocked = SignalsBlocked::new();
    let mut dest = OpenOptions::new().write(true).open(target)?;
    file.rewind()?;
    let len = io::copy(&mut file, &mut dest)?;
    dest.set_len(len)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::WritableBuffer;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn resolve_follows_relative_absolute_and_dangling_links() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::os::unix::fs::symlink("sub/b", d.join("a")).unwrap();
        std::os::unix::fs::symlink(d.join("c"), d.join("sub/b")).unwrap();
        // `c` does not exist: the file would be created there.
        assert_eq!(resolve(&d.join("a")).unwrap(), d.join("c"));
        std::os::unix::fs::symlink("../sub", d.join("sub/up")).unwrap();
        std::fs::write(d.join("sub/f"), b"").unwrap();
        std::os::unix::fs::symlink("up/f", d.join("sub/g")).unwrap();
        assert_eq!(resolve(&d.join("sub/g")).unwrap(), d.join("sub/up/f"));
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        let e = resolve(&d.join("loop")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    }

    fn write(kind: TempKind, dir: &Path, out: &Path, commit: bool) -> Result<(), Error> {
        let input = dir.join("in.o");
        std::fs::write(&input, b"input").unwrap();
        let mut o = Output::new(out, &input, kind);
        o.reserve(6).unwrap();
        o.write_bytes(b"out");
        o.write_bytes(b"put");
        if commit {
            o.finish()?.commit()
        } else {
            Ok(())
        }
    }

    #[test]
    fn committed_output_replaces_and_leaves_no_temporary_file() {
        for kind in [TempKind::Unnamed, TempKind::Named] {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out.o");
            std::fs::write(&out, b"old").unwrap();
            write(kind, dir.path(), &out, true).unwrap();
            assert_eq!(std::fs::read(&out).unwrap(), b"output");
            assert_eq!(names(dir.path()), ["in.o", "out.o"]);
        }
    }

    #[test]
    fn reserved_room_is_not_the_size() {
        // `reserve` allocates blocks; the file holds what was written.
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.o");
        std::fs::write(&input, b"input").unwrap();
        let out = dir.path().join("out.o");
        let mut o = Output::new(&out, &input, TempKind::Unnamed);
        o.reserve(1 << 20).unwrap();
        o.write_bytes(b"output");
        o.finish().unwrap().commit().unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 6);
        assert_eq!(std::fs::read(&out).unwrap(), b"output");
    }

    #[test]
    fn dropped_output_leaves_nothing() {
        for kind in [TempKind::Unnamed, TempKind::Named] {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out.o");
            write(kind, dir.path(), &out, false).unwrap();
            assert_eq!(names(dir.path()), ["in.o"]);
        }
    }

    #[test]
    fn a_directory_is_not_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = Output::new(dir.path(), &dir.path().join("in.o"), TempKind::Unnamed);
        assert!(o.reserve(1).is_err());
        let e = o.open_error().unwrap();
        assert_eq!(
            e.to_string(),
            format!("{}: not a regular file (a directory)", dir.path().display())
        );
    }
}
