//! A Rust runtime's walk over opened sections (`walk::SectionTables`): a
//! program's table and a library's, as two sections or as two tables of
//! one, in both byte orders, with and without a PC map; every frame
//! (`Frames`), every root decoded (`for_each_root`) and every root's slot
//! (`for_each_slot`), without a cache and with one, cold and warm.

use std::mem::MaybeUninit;

use pcmap_reader::flat::{OpenedSection, Pc, RecordKind, TABLE_ALIGN};
use pcmap_reader::stackmap::{write_flat_placed, FrameState, Function, Record, Table};
use pcmap_reader::walk::{
    Cache, Cursor, End, FrameAt, FrameOf, Memory, Options, Registers, RootSlot, SectionTables,
    Slot, Stop, UnwindTables, Walker, X86_64,
};
use pcmap_reader::{BigEndian, Endian, LittleEndian, Location, LocationKind};

const RSP: u16 = 7;
const RBX: u16 = 3;
const RIP: u16 = 16;
const S: u64 = 0x7ffe_0000;
const LARGE: u64 = 0x1234_5678_9abc;

fn loc(kind: LocationKind, dwarf_reg: u16, offset: i32) -> Location {
    Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    }
}

fn record(id: u64, at: u32, kind: RecordKind, locations: Vec<Location>, fs: FrameState) -> Record {
    Record {
        locations,
        frame_state: Some(fs),
        ..Record::new(id, at, kind)
    }
}

fn function(address: u64, records: Vec<Record>, map: bool) -> Function {
    Function {
        address,
        size: 0x40,
        stack_size: 16,
        records,
        code_offset: map.then_some(address & 0xffff),
    }
}

/// The program: A (0x40_1000; a statepoint at +0x10, one root at [RSP +
/// 8]) and B (0x40_1040; a stack map at +0x8 whose roots are RBX and [RSP
/// + 8]); each frame's CFA RSP + 24, RIP saved at CFA - 8.
fn program(map: bool) -> Table {
    let fs = || FrameState::new(RSP, 24, [(RIP, -8)]);
    let c = |v| loc(LocationKind::Constant, 0, v);
    let spill = loc(LocationKind::Indirect, RSP, 8);
    Table {
        constants: vec![],
        functions: vec![
            function(
                0x40_1000,
                vec![record(
                    1,
                    0x10,
                    RecordKind::StatePoint,
                    vec![c(0), c(0), c(0), spill, spill],
                    fs(),
                )],
                map,
            ),
            function(
                0x40_1040,
                vec![record(
                    2,
                    0x8,
                    RecordKind::StackMap,
                    vec![loc(LocationKind::Register, RBX, 0), spill],
                    fs(),
                )],
                map,
            ),
        ],
    }
}

/// The library: C (0x7f00_1000; a statepoint at +0x20 with a large
/// constant as its deopt argument and one root at [RSP]); its CFA RSP +
/// 32, RBX saved at CFA - 16, RIP at CFA - 8.
fn library(map: bool) -> Table {
    let c = |v| loc(LocationKind::Constant, 0, v);
    let spill = loc(LocationKind::Indirect, RSP, 0);
    Table {
        constants: vec![LARGE],
        functions: vec![function(
            0x7f00_1000,
            vec![record(
                3,
                0x20,
                RecordKind::StatePoint,
                vec![
                    c(0),
                    c(0),
                    c(1),
                    loc(LocationKind::ConstantIndex, 0, 0),
                    spill,
                    spill,
                ],
                FrameState::new(RSP, 32, [(RBX, -16), (RIP, -8)]),
            )],
            map,
        )],
    }
}

/// The stack at the safepoint in A (SP = S): A, called by C, called by B,
/// called by unmanaged code at 0x1234.
struct Stack(Vec<u64>);

impl Memory for Stack {
    fn read_u64(&self, address: u64) -> Option<u64> {
        let at = address.checked_sub(S)?;
        (at % 8 == 0).then_some(())?;
        self.0.get((at / 8) as usize).copied()
    }
}

fn stack() -> Stack {
    Stack(vec![
        0,           // S
        0xa0,        // S+8: A's root
        0x7f00_1020, // S+16: A's return address, into C
        0xc0,        // S+24: C's root
        0,           // S+32
        0xb0b0,      // S+40: RBX, saved by C: B's root
        0x40_1048,   // S+48: C's return address, into B
        0,           // S+56
        0xb8,        // S+64: B's spilled root
        0x1234,      // S+72: B's return address, unmanaged
    ])
}

fn first_frame() -> Registers {
    let mut regs = Registers::at::<X86_64>(0x40_1010, S);
    regs.set::<X86_64>(RBX, 0x5555, None);
    regs
}

/// Each layout of the two tables: sections and their addresses.
fn layouts<E: Endian>(endian: E, map: bool) -> Vec<Vec<(Vec<u8>, u64)>> {
    let (p, l) = (program(map), library(map));
    let (pa, la) = (0x60_0000, 0x7f00_8000);
    let two = vec![
        (write_flat_placed(&p, endian, false, map, pa).unwrap(), pa),
        (write_flat_placed(&l, endian, true, map, la).unwrap(), la),
    ];
    // One section of both tables, as a linker makes of two objects'.
    let mut one = write_flat_placed(&p, endian, false, map, pa).unwrap();
    one.resize(one.len().next_multiple_of(TABLE_ALIGN), 0);
    let at = pa + one.len() as u64;
    one.extend(write_flat_placed(&l, endian, false, map, at).unwrap());
    vec![two, vec![(one, pa)]]
}

fn each_layout(check: impl Fn(&SectionTables<'_, '_>)) {
    for map in [false, true] {
        let layouts = [layouts(LittleEndian, map), layouts(BigEndian, map)];
        for sections in layouts.iter().flatten() {
            let opened: Vec<OpenedSection<'_>> = sections
                .iter()
                .map(|(b, a)| OpenedSection::open(b, *a).unwrap())
                .collect();
            check(&SectionTables::new(&opened));
        }
    }
}

type Tables<'s, 'a> = SectionTables<'s, 'a>;

#[test]
fn frames_of_a_program_and_a_library() {
    each_layout(|tables| {
        let stack = stack();
        let cursor =
            Cursor::<X86_64, _, _>::new(tables, &stack, first_frame(), Options::default()).unwrap();
        let mut frames = cursor.frames();
        let seen: Vec<_> = frames.by_ref().map(|f| f.unwrap()).collect();
        assert_eq!(frames.end(), Some(Stop::Unmanaged));
        let what: Vec<_> = seen
            .iter()
            .map(|f| match &f.at {
                FrameAt::Record(f, r) => (f.address, Some(r.site.id), r.address),
                FrameAt::NoRecord(f) => (f.address, None, 0),
                FrameAt::Unmanaged => (0, None, 0),
            })
            .collect();
        assert_eq!(
            what,
            [
                (0x40_1000, Some(1), 0x40_1010),
                (0x7f00_1000, Some(3), 0x7f00_1020),
                (0x40_1040, Some(2), 0x40_1048),
                (0, None, 0),
            ]
        );
        let depths: Vec<_> = seen.iter().map(|f| f.depth).collect();
        assert_eq!(depths, [0, 1, 2, 3]);
        // RBX: the first frame's in A and C, C's saved one in B.
        let rbx: Vec<_> = seen.iter().map(|f| f.regs.get::<X86_64>(RBX)).collect();
        assert_eq!(rbx[..3], [Some(0x5555), Some(0x5555), Some(0xb0b0)]);
        assert_eq!(seen[2].regs.address::<X86_64>(RBX), Some(S + 40));
        // The library's large constant.
        let FrameAt::Record(_, r) = &seen[1].at else {
            unreachable!()
        };
        assert_eq!(tables.constant(r, 0), Ok(LARGE));
        assert!(tables.constant(r, 1).is_err());
        // Roots from a frame's view, as the walk decodes them.
        let mut values = vec![];
        for f in &seen {
            f.roots::<X86_64, Tables>(tables, &mut |b| {
                values.extend(b.iter().map(|r| (r.base.value(), r.base.address())))
            })
            .unwrap();
        }
        // Spilled roots are where they are; RBX also has its value.
        assert_eq!(
            values,
            [
                (None, Some(S + 8)),
                (None, Some(S + 24)),
                (Some(0xb0b0), Some(S + 40)),
                (None, Some(S + 64)),
            ]
        );
        // A return address at a function's end is the function's; an
        // instruction there is the next one's (none here).
        let end = Pc::ReturnAddress(0x40_1040);
        assert!(matches!(tables.frame_at(end), Ok(FrameAt::NoRecord(f)) if f.address == 0x40_1000));
        let end = Pc::Instruction(0x40_1040);
        assert!(matches!(tables.frame_at(end), Ok(FrameAt::NoRecord(f)) if f.address == 0x40_1040));
    });
}

#[test]
fn roots_and_slots_cached_and_not() {
    let want_values = [(0u32, S + 8), (1, S + 24), (2, S + 40), (2, S + 64)];
    let want_slots = [S + 8, S + 24, S + 40, S + 64];
    each_layout(|tables| {
        let stack = stack();
        let walker = Walker::<X86_64, Tables, _>::new(tables, &stack, Options::default());
        let mut memory: Vec<MaybeUninit<Slot<_, _>>> =
            (0..16).map(|_| MaybeUninit::uninit()).collect();
        let mut cache = Cache::new(&mut memory).unwrap();
        for round in 0..3 {
            let mut c = (round > 0).then_some(&mut cache);
            let mut frame = FrameOf::<Tables>::new(first_frame());
            walker.start(&mut frame, c.as_deref_mut()).unwrap();
            let mut values = vec![];
            let ended = walker.for_each_root(&mut frame, c.as_deref_mut(), |depth, _, roots| {
                values.extend(roots.iter().map(|r| (depth, r.base.address().unwrap())))
            });
            assert_eq!(ended, Err(End::Stop(Stop::Unmanaged)));
            assert_eq!(values, want_values, "round {round}");
            // Slots into a buffer of two (B's two roots fit, not more) and of
            // many; a buffer of one is too small for B.
            for room in [1, 2, 64] {
                let mut frame = FrameOf::<Tables>::new(first_frame());
                walker.start(&mut frame, c.as_deref_mut()).unwrap();
                let mut buffer = vec![MaybeUninit::<RootSlot>::uninit(); room];
                let (mut slots, mut flushes) = (vec![], 0);
                let ended = walker.for_each_slot(&mut frame, c.as_deref_mut(), &mut buffer, |s| {
                    flushes += 1;
                    slots.extend(s.iter().map(|s| {
                        assert_eq!(s.base, s.derived);
                        s.base
                    }))
                });
                if room == 1 {
                    // Stopped at B (depth 2) with A's and C's slots given.
                    assert_eq!(ended, Err(End::Full));
                    assert_eq!((frame.depth, &slots[..]), (2, &want_slots[..2]));
                    continue;
                }
                assert_eq!(ended, Err(End::Stop(Stop::Unmanaged)));
                assert_eq!(frame.depth, 3);
                assert_eq!(slots, want_slots, "round {round}, room {room}");
                assert!(flushes <= if room == 2 { 3 } else { 1 });
            }
        }
        assert!(cache.hits > 0);
    });
}

#[test]
fn a_section_of_an_object_is_refused() {
    let mut w = pcmap_reader::stackmap::write_flat(&program(false), LittleEndian, false).unwrap();
    for &at in &w.address_offsets {
        w.bytes[at..at + 4].fill(0);
    }
    let e = OpenedSection::open(&w.bytes, 0).unwrap_err();
    assert_eq!(e, pcmap_reader::Error::Unrelocated);
}
