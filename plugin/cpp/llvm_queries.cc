// LLVM C++ entry points the C API lacks, exposed as plain C functions.
//
// Each wrapper forwards to one LLVM library routine and adds no policy of its
// own: the decisions (what is atomic, what escapes, what gets metadata) live
// in the Rust sources. The symbols resolve against the libLLVM that loads the
// plugin, so the answers are exactly those of the running opt/clang.

#include "llvm-c/Core.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Mangler.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Statepoint.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace {

// An error reported through the module's LLVMContext, so that each tool
// handles it its own way: clang prints "error: ..." and deletes its output,
// lld fails the link, opt prints "error: ..." and exits 1.
class PcmapError final : public DiagnosticInfo {
  StringRef Message;

public:
  explicit PcmapError(StringRef Message)
      : DiagnosticInfo(kind(), DS_Error), Message(Message) {}
  void print(DiagnosticPrinter &DP) const override { DP << Message; }

  static int kind() {
    static const int Kind = getNextAvailablePluginDiagnosticKind();
    return Kind;
  }
};

} // namespace

extern "C" {

bool pcmap_may_read_or_write_memory(LLVMValueRef Inst) {
  return unwrap<Instruction>(Inst)->mayReadOrWriteMemory();
}

// 0: not atomic; 1: atomic in the single-thread scope; 2: any other scope.
int pcmap_atomic_scope(LLVMValueRef Inst) {
  std::optional<SyncScope::ID> SSID =
      getAtomicSyncScopeID(unwrap<Instruction>(Inst));
  if (!SSID)
    return 0;
  return *SSID == SyncScope::SingleThread ? 1 : 2;
}

bool pcmap_is_lifetime_marker_or_droppable(LLVMValueRef Inst) {
  auto *I = unwrap<Instruction>(Inst);
  return I->isLifetimeStartOrEnd() || I->isDroppable();
}

bool pcmap_underlying_object_is_alloca(LLVMValueRef Ptr) {
  return isa<AllocaInst>(getUnderlyingObject(unwrap(Ptr)));
}

bool pcmap_pointer_may_be_captured(LLVMValueRef Ptr) {
  return PointerMayBeCaptured(unwrap(Ptr), /*ReturnCaptures=*/true,
                              /*StoreCaptures=*/true);
}

LLVMValueRef pcmap_strip_in_bounds_offsets(LLVMValueRef Ptr) {
  return wrap(unwrap(Ptr)->stripInBoundsOffsets());
}

// Module::getCodeModel: -1 when the module does not pin one.
int pcmap_module_code_model(LLVMModuleRef M) {
  std::optional<CodeModel::Model> CM = unwrap(M)->getCodeModel();
  return CM ? static_cast<int>(*CM) : -1;
}

// A `void()` function with the module's default attributes (uwtable,
// frame-pointer, ...) and nounwind, registered in llvm.used: what
// createSanitizerCtor builds, minus the body the caller adds.
LLVMValueRef pcmap_create_structor(LLVMModuleRef Mod, const char *Name,
                                   size_t NameLen) {
  Module &M = *unwrap(Mod);
  Function *F = Function::createWithDefaultAttr(
      FunctionType::get(Type::getVoidTy(M.getContext()), false),
      GlobalValue::InternalLinkage, M.getDataLayout().getProgramAddressSpace(),
      StringRef(Name, NameLen), &M);
  F->addFnAttr(Attribute::NoUnwind);
  setKCFIType(M, *F, "_ZTSFvvE"); // void (*)(void); no-op unless -fsanitize=kcfi
  appendToUsed(M, {F});
  return wrap(F);
}

void pcmap_append_to_global_ctors(LLVMModuleRef M, LLVMValueRef F,
                                  int Priority, LLVMValueRef ComdatKey) {
  appendToGlobalCtors(*unwrap(M), unwrap<Function>(F), Priority,
                      ComdatKey ? unwrap<Constant>(ComdatKey) : nullptr);
}

void pcmap_append_to_global_dtors(LLVMModuleRef M, LLVMValueRef F,
                                  int Priority, LLVMValueRef ComdatKey) {
  appendToGlobalDtors(*unwrap(M), unwrap<Function>(F), Priority,
                      ComdatKey ? unwrap<Constant>(ComdatKey) : nullptr);
}

void pcmap_append_to_compiler_used(LLVMModuleRef M, LLVMValueRef GV) {
  appendToCompilerUsed(*unwrap(M), {unwrap<GlobalValue>(GV)});
}

// The object file format LLVM derives from the module's target triple
// (Triple::getObjectFormat), by name.
const char *pcmap_module_object_format(LLVMModuleRef M) {
  switch (Triple(unwrap(M)->getTargetTriple()).getObjectFormat()) {
  case Triple::COFF:
    return "COFF";
  case Triple::DXContainer:
    return "DXContainer";
  case Triple::ELF:
    return "ELF";
  case Triple::GOFF:
    return "GOFF";
  case Triple::MachO:
    return "Mach-O";
  case Triple::SPIRV:
    return "SPIR-V";
  case Triple::Wasm:
    return "Wasm";
  case Triple::XCOFF:
    return "XCOFF";
  case Triple::UnknownObjectFormat:
    break;
  }
  return "unknown";
}

// Reports an error through the context's diagnostic handler: clang and lld
// install one that records it (clang prints "error: ...", fails the compile
// and deletes its output; lld fails the link). Without one (opt), LLVMContext
// would print and exit(1) at once, leaving opt's output file behind; so this
// prints the same line, removes the files registered for removal on signal
// (ToolOutputFile's) and exits 1.
void pcmap_emit_error(LLVMModuleRef M, const char *Message, size_t Len) {
  LLVMContext &Ctx = unwrap(M)->getContext();
  PcmapError Error(StringRef(Message, Len));
  // The handler is owned by the context and not const; only the accessor is.
  auto *Handler = const_cast<DiagnosticHandler *>(Ctx.getDiagHandlerPtr());
  if (Handler && Handler->handleDiagnostics(Error))
    return;
  errs() << "error: " << StringRef(Message, Len) << "\n";
  sys::RunInterruptHandlers();
  exit(1);
}

// Whether a call or invoke has a "deopt" operand bundle, which LLVM 16's
// SelectionDAGBuilder lowers as a statepoint (LowerCallSiteWithDeoptBundle).
bool pcmap_has_deopt_bundle(LLVMValueRef Call) {
  return unwrap<CallBase>(Call)->countOperandBundlesOfType(
             LLVMContext::OB_deopt) != 0;
}

// parseStatepointDirectivesFromAttrs over the call's own attributes, as
// LowerCallSiteWithDeoptBundleImpl reads them. Bit 0 of the result: the
// "statepoint-id" parsed, into *ID; bit 1: "statepoint-num-patch-bytes"
// parsed, into *NumPatchBytes.
unsigned pcmap_statepoint_directives(LLVMValueRef Call, uint64_t *ID,
                                     uint32_t *NumPatchBytes) {
  StatepointDirectives SD =
      parseStatepointDirectivesFromAttrs(unwrap<CallBase>(Call)->getAttributes());
  unsigned Found = 0;
  if (SD.StatepointID) {
    *ID = *SD.StatepointID;
    Found |= 1;
  }
  if (SD.NumPatchBytes) {
    *NumPatchBytes = *SD.NumPatchBytes;
    Found |= 2;
  }
  return Found;
}

// The ID of such a statepoint without "statepoint-id".
uint64_t pcmap_deopt_bundle_statepoint_id(void) {
  return StatepointDirectives::DeoptBundleStatepointID;
}

// The symbol name LLVM gives GV in an object file: TargetMachine::getSymbol
// asks the Mangler, which TargetLoweringObjectFile calls this way on ELF.
// Copies at most Cap bytes to Buf; returns the name's length.
size_t pcmap_symbol_name(LLVMValueRef GV, char *Buf, size_t Cap) {
  SmallString<128> Name;
  Mangler().getNameWithPrefix(Name, unwrap<GlobalValue>(GV),
                              /*CannotUsePrivateLabel=*/false);
  if (Cap != 0)
    std::memcpy(Buf, Name.data(), std::min(Cap, size_t(Name.size())));
  return Name.size();
}

// Removes the files the host registered for removal on a signal (clang's
// temporary output, opt's output file), as LLVM's report_fatal_error does
// before it exits. A free function of every release, with no arguments: the
// guard may call it in a host of another release.
void pcmap_run_interrupt_handlers(void) { sys::RunInterruptHandlers(); }

} // extern "C"
