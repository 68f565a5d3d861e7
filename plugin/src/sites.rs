//! Stack map sites: every call LLVM 16 lowers to a `.llvm_stackmaps`
//! record, with the record's kind, ID and patchable size (which the section
//! does not carry), written to `.pcmap.sites` for `pcmap emit`. Format and
//! matching rule: `pcmap_reader::sites`, docs/stackmap-sites.md.
//!
//! What becomes a record, per LLVM 16's `SelectionDAGBuilder` (`visitCall`,
//! `visitInvoke`):
//!
//! * `llvm.experimental.stackmap(i64 ID, i32 shadow, …)`: a stackmap;
//! * `llvm.experimental.patchpoint.{void,i64}(i64 ID, i32 numBytes, …)`: a
//!   patchpoint;
//! * `llvm.experimental.gc.statepoint.*(i64 ID, i32 numPatchBytes, …)`, any
//!   overload: a statepoint;
//! * a call or invoke with a `"deopt"` operand bundle whose callee is neither
//!   inline asm nor an intrinsic (`LowerCallSiteWithDeoptBundle`), and
//!   `llvm.experimental.deoptimize` (`LowerDeoptimizeCall`): a statepoint
//!   whose ID and numPatchBytes are the call's `"statepoint-id"` and
//!   `"statepoint-num-patch-bytes"` attributes as
//!   `parseStatepointDirectivesFromAttrs` reads them, else
//!   `StatepointDirectives::DeoptBundleStatepointID` (0xABCDEF0F) and 0.
//!
//! LLVM 16 keeps the low 32 bits of a statepoint's ID
//! (`StatepointLoweringInfo::ID` is `unsigned`, fixed in LLVM 19 by
//! llvm-project #85908), so a statepoint site carries those: the ID its
//! record has. Stackmap and patchpoint IDs keep all 64 bits.
//!
//! The list may hold sites that get no record (a call LLVM deletes, or
//! lowers otherwise: GlobalISel at `-O0` on AArch64 lowers deopt-bundle calls
//! as plain calls; a `readnone` libm call with a bundle may become an
//! instruction); every record has its site.

use pcmap_reader::sites::{SiteKind, Writer, GLOBAL_NAME, SECTION};

use crate::description;
use crate::llvm::{self, Callee, Function, Instruction, Linkage, Module, Opcode};
use crate::release::LLVM_MAJOR;

/// One site, in IR order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub kind: SiteKind,
    pub id: u64,
    /// Shadow, numBytes or numPatchBytes.
    pub bytes: u32,
    /// The function's symbol name; empty for a function without a name.
    pub function: Vec<u8>,
}

/// The intrinsics that become records, as the running LLVM numbers them.
struct Intrinsics {
    stackmap: u32,
    patchpoint_void: u32,
    patchpoint_i64: u32,
    statepoint: u32,
    deoptimize: u32,
}

impl Intrinsics {
    fn new() -> Intrinsics {
        let id = |name| {
            let id = llvm::intrinsic_id(name);
            assert!(id != 0, "LLVM does not know {name}");
            id
        };
        Intrinsics {
            stackmap: id("llvm.experimental.stackmap"),
            patchpoint_void: id("llvm.experimental.patchpoint.void"),
            patchpoint_i64: id("llvm.experimental.patchpoint.i64"),
            // Overloaded on the callee's type: one ID for every overload.
            statepoint: id("llvm.experimental.gc.statepoint"),
            deoptimize: id("llvm.experimental.deoptimize"),
        }
    }
}

/// Every site of every function with a body, in IR order.
pub fn collect(m: Module<'_>) -> Vec<Site> {
    let intrinsics = Intrinsics::new();
    let mut sites = Vec::new();
    for f in m.functions().filter(|f| !f.is_declaration()) {
        let mut name: Option<Vec<u8>> = None;
        for inst in f.instructions() {
            if let Some((kind, id, bytes)) = site_of(inst, &intrinsics) {
                let function = name.get_or_insert_with(|| symbol(f)).clone();
                sites.push(Site {
                    kind,
                    id,
                    bytes,
                    function,
                });
            }
        }
    }
    sites
}

/// The object's symbol for `f`; empty for the functions whose symbol the
/// pass cannot name: unnamed ones, which LLVM numbers (`__unnamed_N`) in the
/// order it writes them, and private ones, whose temporary `.L` label no
/// symbol table holds (`Mangler` prefixes private names unless they start
/// with `\1`).
fn symbol(f: Function<'_>) -> Vec<u8> {
    let private = f.linkage() == Linkage::LLVMPrivateLinkage
        && !f.as_value().name_bytes().starts_with(b"\x01");
    match f.symbol_name() {
        Some(name) if !private => name,
        _ => Vec::new(),
    }
}

/// (kind, ID, bytes) of `inst`, if it becomes a record.
fn site_of(inst: Instruction<'_>, intrinsics: &Intrinsics) -> Option<(SiteKind, u64, u32)> {
    // Only calls and invokes: callbr calls inline asm only. (One query per
    // instruction: this runs on every instruction of the module.)
    if !matches!(inst.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke) {
        return None;
    }
    // The immediate ID and size operands (verified `immarg` constants).
    let args = |kind| {
        let id = inst.const_int_arg(0)?;
        // An i32 operand: its bits, as the backend reads it.
        let bytes = u32::try_from(inst.const_int_arg(1)?).ok()?;
        Some((kind, id, bytes))
    };
    match inst.callee() {
        Callee::InlineAsm => None,
        Callee::Intrinsic(id) if id == intrinsics.stackmap => args(SiteKind::StackMap),
        Callee::Intrinsic(id)
            if id == intrinsics.patchpoint_void || id == intrinsics.patchpoint_i64 =>
        {
            args(SiteKind::PatchPoint)
        }
        Callee::Intrinsic(id) if id == intrinsics.statepoint => {
            args(SiteKind::StatePoint).map(|(kind, id, bytes)| (kind, statepoint_id(id), bytes))
        }
        Callee::Intrinsic(id) if id == intrinsics.deoptimize => deopt_statepoint(inst),
        Callee::Intrinsic(_) => None,
        Callee::Other if inst.has_deopt_bundle() => deopt_statepoint(inst),
        Callee::Other => None,
    }
}

/// The statepoint LLVM makes of a call with a `"deopt"` bundle.
fn deopt_statepoint(inst: Instruction<'_>) -> Option<(SiteKind, u64, u32)> {
    let directives = inst.statepoint_directives();
    let id = directives
        .id
        .unwrap_or_else(llvm::deopt_bundle_statepoint_id);
    let bytes = directives.num_patch_bytes.unwrap_or(0);
    Some((SiteKind::StatePoint, statepoint_id(id), bytes))
}

/// The ID the plugin's release writes for a statepoint whose IR ID is `id`:
/// LLVM 16 keeps its low 32 bits, LLVM 19 all 64.
fn statepoint_id(id: u64) -> u64 {
    if LLVM_MAJOR >= 19 {
        id
    } else {
        id & u64::from(u32::MAX)
    }
}

/// The text of one `.pcmap.sites` record.
pub fn describe(sites: &[Site]) -> String {
    let write = || {
        let mut w = Writer::new(String::new())?;
        for s in sites {
            w.site(s.kind, s.id, s.bytes, &s.function)?;
        }
        w.finish()
    };
    // Writing to a String cannot fail.
    write().unwrap_or_default()
}

/// Adds the record to the module as `@__pcmap_sites` in `.pcmap.sites`.
pub fn emit(m: Module<'_>, text: &str) {
    description::emit(m, GLOBAL_NAME, SECTION, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statepoint_ids_per_release() {
        let (max, high) = match LLVM_MAJOR {
            16 => (4_294_967_295, 0),
            _ => (u64::MAX, 1 << 32),
        };
        assert_eq!(statepoint_id(u64::MAX), max);
        assert_eq!(statepoint_id(1 << 32), high);
        assert_eq!(statepoint_id(0xABCD_EF0F), 0xABCD_EF0F);
    }

    #[test]
    fn record_text() {
        let sites = [
            Site {
                kind: SiteKind::StackMap,
                id: u64::MAX,
                bytes: 16,
                function: b"f g".to_vec(),
            },
            Site {
                kind: SiteKind::StatePoint,
                id: 0xABCD_EF0F,
                bytes: 0,
                function: b"100%\n".to_vec(),
            },
        ];
        assert_eq!(
            describe(&sites),
            "pcmap-sites 1\nsite stackmap 18446744073709551615 16 f g\nsite statepoint 2882400015 0 100%25%0A\nend\n"
        );
    }
}
