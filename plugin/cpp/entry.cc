// The pass-plugin entry's C++ half: the PassBuilder callbacks, each
// forwarding to the Rust half (src/llvm.rs, "the plugin entry"), which
// decides everything; this file only adapts LLVM's C++ interface to it.
//
// Loading, as every LLVM tool does it (PassPlugin::Load):
//
//   dlopen(plugin)             nothing of ours runs (no static constructors)
//   llvmGetPassPluginInfo()    Rust: the version guard (C API only), then
//                              {API version, name, pcmap_register_callbacks}
//   pcmap_register_callbacks(PassBuilder &)   the host's C++ objects, from here on
//
// The registrar and everything after it are inline code of this LLVM's
// headers: PassBuilder's callback vectors, std::function, pass managers. Run
// in another LLVM release, it writes at the wrong offsets and corrupts the
// host's heap. So nothing here runs before the guard has checked the host's
// release.

#include "llvm-c/Types.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

#include <dlfcn.h>

#include <memory>

using namespace llvm;

// The Rust half (src/llvm.rs). `void *` states are Rust boxes, freed by the
// matching `_free` function.
extern "C" {
void *pcmap_builder_new(void);
void pcmap_builder_free(void *Builder);
void *pcmap_parse_pipeline_element(const char *Name, size_t Len);
void pcmap_pipeline_start(void *Builder);
void *pcmap_optimizer_last(void *Builder);
void *pcmap_full_lto_early(void);
bool pcmap_run_pass(void *Pass, LLVMModuleRef M);
void pcmap_pass_free(void *Pass);
}

namespace {

// A module pass of the Rust half, owning its state.
class PcmapPass : public PassInfoMixin<PcmapPass> {
  std::unique_ptr<void, void (*)(void *)> State;

public:
  explicit PcmapPass(void *State) : State(State, pcmap_pass_free) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return pcmap_run_pass(State.get(), wrap(&M)) ? PreservedAnalyses::none()
                                                 : PreservedAnalyses::all();
  }

  // Its name in -time-passes, -print-pipeline-passes, -debug-pass-manager.
  static StringRef name() { return "pcmap"; }
  // Instrumentation: not skipped by optnone or opt-bisect.
  static bool isRequired() { return true; }
};

void addPass(ModulePassManager &MPM, void *State) {
  if (State)
    MPM.addPass(PcmapPass(State));
}

} // namespace

// The registrar llvmGetPassPluginInfo hands the host once the guard passed.
extern "C" void pcmap_register_callbacks(PassBuilder &PB) {
  // Per PassBuilder: what its extension points saw (lib.rs).
  std::shared_ptr<void> Builder(pcmap_builder_new(), pcmap_builder_free);
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        void *State = pcmap_parse_pipeline_element(Name.data(), Name.size());
        addPass(MPM, State);
        return State != nullptr;
      });
  PB.registerPipelineStartEPCallback(
      [Builder](ModulePassManager &, OptimizationLevel) {
        pcmap_pipeline_start(Builder.get());
      });
  PB.registerFullLinkTimeOptimizationEarlyEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        addPass(MPM, pcmap_full_lto_early());
      });
  PB.registerOptimizerLastEPCallback(
      [Builder](ModulePassManager &MPM, OptimizationLevel) {
        addPass(MPM, pcmap_optimizer_last(Builder.get()));
      });
}

// What the host expects of a plugin (PassPlugin.h).
extern "C" uint32_t pcmap_plugin_api_version(void) {
  return LLVM_PLUGIN_API_VERSION;
}

// The plugin's file as the host loaded it (for the guard's message); null
// if the loader does not say.
extern "C" const char *pcmap_plugin_path(void) {
  Dl_info Self;
  return dladdr(reinterpret_cast<void *>(&pcmap_plugin_path), &Self)
             ? Self.dli_fname
             : nullptr;
}
