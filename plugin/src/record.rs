//! Generic PC sections: "record the PC of every instruction of class X in
//! section S, followed by constants A…". A rule is written
//!
//! ```text
//! CLASS@SECTION[:iN=VALUE]...     e.g.  call@my_calls:i32=7
//! ```
//!
//! in `pcmap<record=RULE>` or `PCMAP_RECORD=RULE,RULE`. Sections are emitted
//! exactly as named, with fixed-width constants, in both encodings, so they
//! need no rewriting; the layout description lists them all the same.

use std::fmt;

use crate::llvm::{AtomicScope, Instruction, Opcode};

/// A class of instructions whose PCs a rule records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstClass {
    /// Calls, invokes and callbrs to anything but an intrinsic.
    Call,
    Load,
    Store,
    AtomicRmw,
    CmpXchg,
    Fence,
    /// Any atomic instruction, in any synchronisation scope.
    Atomic,
}

const CLASSES: [(&str, InstClass); 7] = [
    ("call", InstClass::Call),
    ("load", InstClass::Load),
    ("store", InstClass::Store),
    ("atomicrmw", InstClass::AtomicRmw),
    ("cmpxchg", InstClass::CmpXchg),
    ("fence", InstClass::Fence),
    ("atomic", InstClass::Atomic),
];

impl InstClass {
    pub fn name(self) -> &'static str {
        CLASSES
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("?", |(n, _)| n)
    }

    pub fn matches(self, inst: Instruction<'_>) -> bool {
        let opcode = inst.opcode();
        match self {
            InstClass::Call => {
                matches!(
                    opcode,
                    Opcode::LLVMCall | Opcode::LLVMInvoke | Opcode::LLVMCallBr
                ) && !inst.called_function().is_some_and(|f| f.is_intrinsic())
            }
            InstClass::Load => opcode == Opcode::LLVMLoad,
            InstClass::Store => opcode == Opcode::LLVMStore,
            InstClass::AtomicRmw => opcode == Opcode::LLVMAtomicRMW,
            InstClass::CmpXchg => opcode == Opcode::LLVMAtomicCmpXchg,
            InstClass::Fence => opcode == Opcode::LLVMFence,
            InstClass::Atomic => inst.atomic_scope() != AtomicScope::NotAtomic,
        }
    }
}

/// One auxiliary constant stored after each recorded PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuxConst {
    pub bits: u32,
    pub value: u64,
}

impl AuxConst {
    /// Bytes the constant occupies after each PC (a whole number: the
    /// widths are those of [`AUX_WIDTHS`]).
    pub fn bytes(self) -> u8 {
        (self.bits / 8) as u8
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub class: InstClass,
    pub section: String,
    pub aux: Vec<AuxConst>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct RuleError(pub String);

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Prefix reserved for SanitizerBinaryMetadata's own sections.
const RESERVED_PREFIX: &str = "sanmd_";
const AUX_WIDTHS: [u32; 4] = [8, 16, 32, 64];

impl Rule {
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let bad = |why: String| RuleError(format!("bad record rule '{text}': {why}"));
        let (class, rest) = text
            .split_once('@')
            .ok_or_else(|| bad("expected CLASS@SECTION[:iN=VALUE...]".into()))?;
        let class = CLASSES
            .iter()
            .find(|(n, _)| *n == class)
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                let names: Vec<&str> = CLASSES.iter().map(|(n, _)| *n).collect();
                bad(format!(
                    "unknown class '{class}' (expected one of {})",
                    names.join(", ")
                ))
            })?;
        let mut parts = rest.split(':');
        let section = parts.next().unwrap_or_default().to_string();
        // __start_/__stop_ markers exist only for C-identifier section names.
        let ident = section
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            && section
                .chars()
                .all(|c| c == '_' || c.is_ascii_alphanumeric());
        if !ident {
            return Err(bad(format!("section '{section}' is not a C identifier")));
        }
        if section.starts_with(RESERVED_PREFIX) {
            return Err(bad(format!(
                "section names starting with '{RESERVED_PREFIX}' are reserved"
            )));
        }
        let aux = parts
            .map(|p| {
                let (ty, value) = p
                    .split_once('=')
                    .ok_or_else(|| bad(format!("constant '{p}' is not iN=VALUE")))?;
                let bits: u32 = ty
                    .strip_prefix('i')
                    .and_then(|b| b.parse().ok())
                    .filter(|b| AUX_WIDTHS.contains(b))
                    .ok_or_else(|| {
                        bad(format!("constant type '{ty}' is not i8, i16, i32 or i64"))
                    })?;
                let value: u64 = value
                    .parse()
                    .ok()
                    .filter(|v| bits == 64 || *v < (1u64 << bits))
                    .ok_or_else(|| bad(format!("'{value}' is not an unsigned {ty}")))?;
                Ok(AuxConst { bits, value })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rule {
            class,
            section,
            aux,
        })
    }
}

/// Checks a rule set: one rule per section, so that every entry of a section
/// has the same shape.
pub fn check_rules(rules: &[Rule]) -> Result<(), RuleError> {
    for (i, r) in rules.iter().enumerate() {
        if rules[..i].iter().any(|o| o.section == r.section) {
            return Err(RuleError(format!(
                "section '{}' is named by two record rules; use one rule per section",
                r.section
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules() {
        let r = Rule::parse("call@my_calls:i32=7:i8=255").unwrap();
        assert_eq!(r.class, InstClass::Call);
        assert_eq!(r.section, "my_calls");
        assert_eq!(
            r.aux,
            vec![
                AuxConst { bits: 32, value: 7 },
                AuxConst {
                    bits: 8,
                    value: 255
                }
            ]
        );
        assert!(Rule::parse("fence@f").unwrap().aux.is_empty());
    }

    #[test]
    fn rejects_bad_rules() {
        for bad in [
            "call",
            "jump@x",
            "call@",
            "call@a-b",
            "call@sanmd_x",
            "call@x:i7=1",
            "call@x:i8=256",
            "call@x:i32",
        ] {
            assert!(Rule::parse(bad).is_err(), "{bad}");
        }
        let rules = [
            Rule::parse("call@x").unwrap(),
            Rule::parse("load@x").unwrap(),
        ];
        assert!(check_rules(&rules).is_err());
    }
}
