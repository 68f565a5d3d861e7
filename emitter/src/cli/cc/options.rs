//! The few of clang's driver options that decide what `pcmap cc` does with
//! a command line, every spelling the driver accepts for each. The driver
//! is the authority: the unit test `options_agree_with_the_driver` holds
//! these tables against clang-16's and clang-19's own option tables (every
//! spelling `--autocomplete` lists, and the double-dash aliases of
//! Options.td it does not), through `-###` and `-ccc-print-phases`.

/// What a spelling does to the driver's last phase (clang's
/// `Driver::getFinalPhase`: the earliest phase named wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// The driver writes no object: it preprocesses, checks, analyses,
    /// precompiles, prints, or emits IR.
    NoObject,
    /// Assembly (`-S`).
    Assembly,
    /// An object (`-c`).
    Object,
}

/// Spellings that end the driver's work before an object, or print instead
/// of compiling.
const NO_OBJECT: &[&str] = &[
    "-E",
    "--E",
    "--preprocess",
    "-M",
    "--dependencies",
    "-MM",
    "--user-dependencies",
    "-fsyntax-only",
    "--precompile",
    "--analyze",
    "--migrate",
    "-###",
    "-emit-ast",
    "-emit-llvm",
    "-emit-interface-stubs",
    "-extract-api",
    "-fmodule-header",
    "-module-file-info",
    "-verify-pch",
    "-rewrite-objc",
    "-rewrite-legacy-objc",
    "-fdriver-only",
    "-ccc-print-phases",
    "-ccc-print-bindings",
    "-help",
    "--help",
    "--help-hidden",
    "--version",
    "-dumpmachine",
    "-dumpversion",
    "-dumpspecs",
    "-print-diagnostic-options",
    "--print-diagnostic-options",
    "--print-diagnostic-categories",
    "-print-effective-triple",
    "--print-effective-triple",
    "-print-enabled-extensions",
    "--print-enabled-extensions",
    "-print-libgcc-file-name",
    "--print-libgcc-file-name",
    "-print-library-module-manifest-path",
    "--print-library-module-manifest-path",
    "-print-multi-directory",
    "-print-multi-flags-experimental",
    "--print-multi-flags-experimental",
    "-print-multi-lib",
    "-print-multi-os-directory",
    "-print-resource-dir",
    "--print-resource-dir",
    "-print-runtime-dir",
    "--print-runtime-dir",
    "-print-search-dirs",
    "--print-search-dirs",
    "-print-supported-cpus",
    "--print-supported-cpus",
    "-print-supported-extensions",
    "--print-supported-extensions",
    "-print-target-triple",
    "--print-target-triple",
    "-print-targets",
    "--print-targets",
    "--print-file-name",
    "--print-prog-name",
];

/// Joined spellings (a prefix and a value in one argument) that end the
/// driver's work the same way.
const NO_OBJECT_JOINED: &[&str] = &[
    "-fmodule-header=",
    "-print-file-name=",
    "--print-file-name=",
    "-print-prog-name=",
    "--print-prog-name=",
];

/// The spellings of `-S` and of `-c`.
const ASSEMBLY: &[&str] = &["-S", "--assemble"];
const OBJECT: &[&str] = &["-c", "--compile"];

/// Spellings `pcmap cc` cannot serve, each with what to do instead.
const REFUSED: &[(&str, &str)] = &[(
    "--emit-static-lib",
    "the driver archives its objects itself, where pcmap cannot finish them: compile with -c (pcmap cc) and archive the objects",
)];

/// Why `pcmap cc` cannot serve a spelling, if it cannot.
pub fn refused(arg: &str) -> Option<&'static str> {
    REFUSED.iter().find(|(s, _)| *s == arg).map(|(_, why)| *why)
}

/// The phase a spelling asks for, if it asks for one.
pub fn phase(arg: &str) -> Option<Phase> {
    if NO_OBJECT.contains(&arg) || NO_OBJECT_JOINED.iter().any(|p| arg.starts_with(p)) {
        Some(Phase::NoObject)
    } else if ASSEMBLY.contains(&arg) {
        Some(Phase::Assembly)
    } else if OBJECT.contains(&arg) {
        Some(Phase::Object)
    } else {
        None
    }
}

/// Spellings whose value is the next argument (clang's `Separate`,
/// `JoinedOrSeparate` and `MultiArg` options used alone): that argument is
/// never an input nor an option.
const SEPARATE: &[&str] = &[
    "-o",
    "--output",
    "-x",
    "--language",
    "-I",
    "--include-directory",
    "-D",
    "--define-macro",
    "-U",
    "--undefine-macro",
    "-include",
    "--include",
    "-include-pch",
    "--imacros",
    "-imacros",
    "-isystem",
    "-isystem-after",
    "-cxx-isystem",
    "-iquote",
    "-idirafter",
    "--include-directory-after",
    "-iprefix",
    "--include-prefix",
    "-iwithprefix",
    "--include-with-prefix",
    "--include-with-prefix-after",
    "-iwithprefixbefore",
    "--include-with-prefix-before",
    "-iwithsysroot",
    "-iframework",
    "-iframeworkwithsysroot",
    "-imultilib",
    "-isysroot",
    "-ivfsoverlay",
    "-vfsoverlay",
    "--vfsoverlay",
    "-iapinotes-modules",
    "-stdlib++-isystem",
    "-iembed-dir",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-Xclang",
    "-Xlinker",
    "--for-linker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xanalyzer",
    "-Xopenmp-target",
    "-Xoffload-linker",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-Xarch_host",
    "-Xarch_device",
    "-Xflang",
    "-mllvm",
    "-mmlir",
    "-L",
    "--library-directory",
    "-l",
    "-T",
    "-u",
    "--force-link",
    "-e",
    "-z",
    "-B",
    "--prefix",
    "-F",
    "-A",
    "--assert",
    "-G",
    "-target",
    "-arch",
    "-arch_only",
    "-gcc-toolchain",
    "-rpath",
    "-resource-dir",
    "--resource",
    "-dependency-file",
    "-dependency-dot",
    "-serialize-diagnostics",
    "--serialize-diagnostics",
    "-working-directory",
    "-aux-info",
    "-ccc-gcc-name",
    "-ccc-arcmt-migrate",
    "-ccc-objcmt-migrate",
    "-ccc-install-dir",
    "--sysroot",
    "--gcc-toolchain",
    "--param",
    "--std",
    "--stdlib",
    "--rtlib",
    "--mhwdiv",
    "--CLASSPATH",
    "--classpath",
    "--bootclasspath",
    "--extdirs",
    "--encoding",
    "--output-class-directory",
    "--dyld-prefix",
    "--analyzer-output",
    "-dumpdir",
    "-V",
    "-b",
    "-meabi",
    "-mthread-model",
    "-dsym-dir",
    "-fdebug-compilation-dir",
    "-fmodules-user-build-path",
    "-ftrapv-handler",
    "-gen-cdb-fragment-path",
    "-module-dependency-dir",
    "-arcmt-migrate-report-output",
    "-fexperimental-openacc-macro-override",
    "-hlsl-entry",
    "-validator-version",
    "-darwin-target-variant",
    "-darwin-target-variant-triple",
    "-framework",
    "-weak_framework",
    "-weak_library",
    "-reexport_framework",
    "-reexport_library",
    "-lazy_framework",
    "-lazy_library",
    "-allowable_client",
    "-bundle_loader",
    "-client_name",
    "-compatibility_version",
    "-current_version",
    "-dylib_file",
    "-dylinker_install_name",
    "-exported_symbols_list",
    "-filelist",
    "-image_base",
    "-init",
    "-install_name",
    "-multiply_defined",
    "-multiply_defined_unused",
    "-pagezero_size",
    "-read_only_relocs",
    "-sectalign",
    "-sectcreate",
    "-sectobjectsymbols",
    "-sectorder",
    "-seg1addr",
    "-segaddr",
    "-segcreate",
    "-segprot",
    "-segs_read_only_addr",
    "-segs_read_write_addr",
    "-seg_addr_table",
    "-seg_addr_table_filename",
    "-sub_library",
    "-sub_umbrella",
    "-umbrella",
    "-unexported_symbols_list",
    "-weak_reference_mismatches",
    "-undefined",
];

/// Every spelling these tables name (for the test against the driver).
#[cfg(test)]
pub fn spellings() -> impl Iterator<Item = &'static str> {
    NO_OBJECT
        .iter()
        .chain(NO_OBJECT_JOINED)
        .chain(ASSEMBLY)
        .chain(OBJECT)
        .chain(SEPARATE)
        .copied()
        .chain(REFUSED.iter().map(|(s, _)| *s))
}

/// How many values follow a spelling as separate arguments (0: none).
pub fn separate_values(arg: &str) -> usize {
    match arg {
        // MultiArg options.
        "-sectalign" | "-sectcreate" | "-sectorder" | "-segcreate" | "-segprot" => 3,
        "-sectobjectsymbols" | "-segaddr" => 2,
        _ if SEPARATE.contains(&arg) => 1,
        // -Xarch_<arch> <arg>, -Xopenmp-target=<triple> <arg>.
        _ if arg.starts_with("-Xarch_") || arg.starts_with("-Xopenmp-target=") => 1,
        _ => 0,
    }
}

/// Options whose names begin with `-o` (the driver takes the longest name
/// that matches, so these are not `-o` joined to a value).
const NOT_OUTPUT: &[&str] = &["-objcmt-", "-object"];

/// Where an option names the output: `-o X`, `-oX`, `--output X`,
/// `--output=X`. `Some(None)` for the separate spellings (the value is the
/// next argument).
pub fn output(arg: &str) -> Option<Option<&str>> {
    match arg {
        "-o" | "--output" => Some(None),
        _ if NOT_OUTPUT.iter().any(|p| arg.starts_with(p)) => None,
        _ => arg
            .strip_prefix("--output=")
            .or_else(|| arg.strip_prefix("-o"))
            .map(Some),
    }
}

/// Where an option names the language of the inputs after it: `-x L`,
/// `-xL`, `--language L`, `--language=L`.
pub fn language(arg: &str) -> Option<Option<&str>> {
    match arg {
        "-x" | "--language" => Some(None),
        _ => arg
            .strip_prefix("--language=")
            .or_else(|| arg.strip_prefix("-x"))
            .map(Some),
    }
}

/// Whether a spelling asks for a dependency file beside the object (`-MD`,
/// `-MMD`, their long spellings, and `-Wp,` forms of them); its default
/// target is the object's path as given.
pub fn writes_dependencies(arg: &str) -> bool {
    match arg {
        "-MD" | "-MMD" | "--write-dependencies" | "--write-user-dependencies" => true,
        _ => arg
            .strip_prefix("-Wp,")
            .is_some_and(|rest| rest.split(',').any(|w| w == "-MD" || w == "-MMD")),
    }
}

/// Whether a spelling names the dependency file's target itself (`-MT`,
/// `-MQ`, separate or joined).
pub fn names_dependency_target(arg: &str) -> bool {
    arg.starts_with("-MT") || arg.starts_with("-MQ")
}
