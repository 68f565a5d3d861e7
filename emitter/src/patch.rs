//! Patchable sizes from the IR an object was compiled from.
//!
//! `.llvm_stackmaps` does not record a stackmap's shadow, a patchpoint's
//! `numBytes` or a statepoint's `numPatchBytes`; the IR does. We read the
//! textual IR's calls of the three intrinsics (function, ID, kind, size) and
//! match them to records by function and ID, in order.

use std::collections::HashMap;

use pcmap_reader::flat::RecordKind;

/// One call of a stack map intrinsic in the IR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    pub kind: RecordKind,
    pub id: u64,
    /// Shadow bytes, `numBytes` or `numPatchBytes`.
    pub bytes: u32,
}

/// Sites by function name, in textual order.
#[derive(Debug, Default)]
pub struct IrSites {
    pub by_function: HashMap<String, Vec<Site>>,
}

/// What every intrinsic name below starts with.
const PREFIX: &str = "@llvm.experimental.";

const INTRINSICS: [(&str, RecordKind); 3] = [
    ("@llvm.experimental.stackmap(", RecordKind::StackMap),
    ("@llvm.experimental.patchpoint.", RecordKind::PatchPoint),
    ("@llvm.experimental.gc.statepoint.", RecordKind::StatePoint),
];

impl IrSites {
    pub fn parse(text: &str) -> IrSites {
        let mut sites = IrSites::default();
        let mut function: Option<String> = None;
        for line in text.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("define ") {
                function = rest
                    .split_once('@')
                    .and_then(|(_, r)| r.split_once('('))
                    .map(|(name, _)| name.trim_matches('"').to_string());
                continue;
            }
            if line.starts_with("declare ") || line.starts_with('}') && line.len() == 1 {
                if line.starts_with('}') {
                    function = None;
                }
                continue;
            }
            let Some(f) = &function else { continue };
            // One search per line; most lines call no intrinsic.
            let Some(at) = line.find(PREFIX) else {
                continue;
            };
            let call = &line[at..];
            for (name, kind) in INTRINSICS {
                let Some(after) = call.strip_prefix(name) else {
                    continue;
                };
                // `stackmap(` ends at the argument list; the others have a
                // type suffix first (`patchpoint.i64(`, `statepoint.p0(`).
                let args = match kind {
                    RecordKind::StackMap => after,
                    _ => match after.split_once('(') {
                        Some((_, a)) => a,
                        None => continue,
                    },
                };
                if let Some(site) = parse_args(kind, args) {
                    sites.by_function.entry(f.clone()).or_default().push(site);
                }
            }
        }
        sites
    }

    /// The site for the `nth` record with `id` in `function` (records in
    /// instruction order): the only size used for that ID, or the nth site.
    pub fn lookup(&self, function: &str, id: u64, nth: usize) -> Result<Site, String> {
        let sites: Vec<&Site> = self
            .by_function
            .get(function)
            .map(|v| v.iter().filter(|s| s.id == id).collect())
            .unwrap_or_default();
        match sites.first() {
            None => Err(format!(
                "no stack map intrinsic with ID {id} in function {function} of the IR"
            )),
            Some(first) if sites.iter().all(|s| *s == *first) => Ok(**first),
            Some(_) => sites
                .get(nth)
                .map(|s| **s)
                .ok_or_else(|| format!("more records with ID {id} in {function} than IR sites")),
        }
    }
}

/// `i64 ID, i32 N, ...` at the start of an argument list.
fn parse_args(kind: RecordKind, args: &str) -> Option<Site> {
    let mut it = args.split(',');
    let id = it.next()?.trim().strip_prefix("i64")?.trim().parse().ok()?;
    let bytes = it.next()?.trim().strip_prefix("i32")?.trim().parse().ok()?;
    Some(Site { kind, id, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sites() {
        let ir = r#"
declare void @llvm.experimental.stackmap(i64, i32, ...)
define i64 @"f"(i64 %a) {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 8, i64 %a)
  %r = call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 11, i32 300, ptr null, i32 0)
  %t = call token (i64, i32, ptr, i32, i32, ...) @llvm.experimental.gc.statepoint.p0(i64 2882400000, i32 0, ptr elementtype(void ()) @g, i32 0, i32 0, i32 0, i32 0)
  ret i64 %r
}
"#;
        let s = IrSites::parse(ir);
        let f = &s.by_function["f"];
        assert_eq!(
            f[0],
            Site {
                kind: RecordKind::StackMap,
                id: 7,
                bytes: 8
            }
        );
        assert_eq!(
            f[1],
            Site {
                kind: RecordKind::PatchPoint,
                id: 11,
                bytes: 300
            }
        );
        assert_eq!(
            f[2],
            Site {
                kind: RecordKind::StatePoint,
                id: 2882400000,
                bytes: 0
            }
        );
        assert!(s.lookup("f", 99, 0).is_err());
    }
}
