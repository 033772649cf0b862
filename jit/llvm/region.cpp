#include "jit/llvm/region.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/Orc/EPCEHFrameRegistrar.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>

#include "jit/x64/translator.h"
#include "runtime/hart.h"
#include "runtime/quiet_thread.h"

namespace brisk {
// The semantics' bitcode (CMakeLists.txt: runtime/semantics.cpp and sem_int.cpp, linked).
extern const unsigned char kSemanticsBitcode[];
extern const size_t kSemanticsBitcode_size;
namespace tier2 {
extern const uint64_t kHartLayout[6];
}
}  // namespace brisk

namespace brisk::tier2 {

namespace {

// brisk::kSemantics, whose initializer names each op's semantic function in the bitcode, and
// kHartLayout (jit/llvm/hart_layout.cpp).
constexpr const char* kSemanticsTable = "_ZN5brisk10kSemanticsE";
constexpr const char* kHartLayoutName = "_ZN5brisk5tier211kHartLayoutE";

static_assert(static_cast<uint32_t>(kStatusSlowAccess) == x64::kExitRegionStep);

std::string error_text(llvm::Error e) { return llvm::toString(std::move(e)); }

// Builds `region` in m from its blocks' plans: see RegionFn and Compiled.
class RegionBuilder {
 public:
  RegionBuilder(llvm::Module& m, const std::vector<jit::BlockPlan>& plans, const llvm::ConstantArray& table)
      : m_(m), ctx_(m.getContext()), b_(ctx_), plans_(plans), table_(table) {}

  llvm::Function* build(const std::string& name, bool inject_failure) {
    auto* i32 = b_.getInt32Ty();
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(i32, {b_.getPtrTy()}, false),
                                      llvm::GlobalValue::ExternalLinkage, name, m_);
    // Nothing else reaches the hart while the region runs, except through the calls it makes: LLVM
    // may keep its fields in SSA values in between.
    fn->addParamAttr(0, llvm::Attribute::NoAlias);
    fn->addParamAttr(0, llvm::Attribute::NonNull);
    fn->addParamAttr(0, llvm::Attribute::getWithDereferenceableBytes(ctx_, sizeof(Hart)));
    fn_ = fn;
    h_ = fn->getArg(0);
    auto* entry = block("entry");
    for (const jit::BlockPlan& plan : plans_) heads_.emplace(plan.pc, block(fmt::format("block_{:x}", plan.pc)));
    b_.SetInsertPoint(entry);
    b_.CreateBr(heads_.at(plans_.front().pc));
    for (const jit::BlockPlan& plan : plans_) emit_block(plan, inject_failure);
    return fn;
  }

 private:
  void emit_block(const jit::BlockPlan& plan, bool inject_failure) {
    plan_ = &plan;
    // A block entry: leave before the block if running it could pass the deadline, which another
    // thread or a signal may lower at any time (Hart::request_exit).
    b_.SetInsertPoint(heads_.at(plan.pc));
    instret_ = b_.CreateLoad(b_.getInt64Ty(), field(offsetof(Hart, instret)), "instret");
    auto* deadline = b_.CreateLoad(b_.getInt64Ty(), field(offsetof(Hart, deadline)), /*isVolatile=*/true);
    auto* late = b_.CreateICmpUGT(b_.CreateAdd(instret_, i64(plan.insns.size())), deadline);
    auto* late_bb = block("deadline");
    auto* first = block("insn0");
    b_.CreateCondBr(late, late_bb, first);
    b_.SetInsertPoint(late_bb);
    store64(offsetof(Hart, pc), plan.pc);
    if (inject_failure) {
      auto missing = m_.getOrInsertFunction("brisk_tier2_injected_failure", llvm::FunctionType::get(b_.getVoidTy(), false));
      b_.CreateCall(missing);
    }
    b_.CreateRet(i32c(x64::kExitDeadline));

    b_.SetInsertPoint(first);
    for (size_t k = 0; k < plan.insns.size(); k++) emit_insn(k);
  }

  llvm::BasicBlock* block(const std::string& name) { return llvm::BasicBlock::Create(ctx_, name, fn_); }
  llvm::ConstantInt* i64(uint64_t v) { return b_.getInt64(v); }
  llvm::ConstantInt* i32c(uint32_t v) { return b_.getInt32(v); }
  llvm::Value* field(size_t off) { return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), h_, off); }
  void store64(size_t off, llvm::Value* v) { b_.CreateStore(v, field(off)); }
  void store64(size_t off, uint64_t v) { store64(off, i64(v)); }
  void set_instret(uint64_t retired) { store64(offsetof(Hart, instret), b_.CreateAdd(instret_, i64(retired))); }
  uint64_t guest_pc(uint64_t pc) const { return plan_->cfg.rv32 ? static_cast<uint32_t>(pc) : pc; }

  // The Insn as a constant, so that LLVM folds its fields into the inlined semantics.
  llvm::Constant* insn_constant(const Insn& i) {
    uint8_t bytes[sizeof(Insn)] = {};
    std::memcpy(bytes, &i, sizeof i);
    auto* init = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint8_t>(bytes, sizeof bytes));
    auto* gv = new llvm::GlobalVariable(m_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, "insn");
    gv->setAlignment(llvm::Align(alignof(Insn)));
    return gv;
  }

  // Leaves the block for `pc` (hart.pc already holds it) after `retired` of its instructions: to that
  // block's entry when it is the region's, else out, on through the lookup table.
  void leave_to(uint64_t pc, uint64_t retired) {
    set_instret(retired);
    if (auto it = heads_.find(pc); it != heads_.end()) {
      b_.CreateBr(it->second);
    } else {
      b_.CreateRet(i32c(x64::kExitRegionNext));
    }
  }

  void emit_insn(size_t k) {
    const jit::PlanInsn& p = plan_->insns[k];
    const Insn& i = p.insn;
    const bool last = k + 1 == plan_->insns.size();
    store64(offsetof(Hart, pc), p.pc);
    set_instret(k);
    auto* sem = llvm::cast<llvm::Function>(table_.getOperand(static_cast<unsigned>(i.op)));
    // Inlined unless it must stay a call (BRISK_GUEST_ACCESS, runtime/hart.h) or the bitcode lacks it.
    if (!sem->isDeclaration() && !sem->hasFnAttribute(llvm::Attribute::NoInline))
      sem->addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::Value* st = b_.CreateCall(sem, {h_, insn_constant(i)}, "st");
    const uint64_t next_pc = guest_pc(p.pc + i.len);
    auto* next = last ? block("end") : block(fmt::format("insn{}", k + 1));
    // Trap, Exit and kStatusSlowAccess leave with the state before the instruction: their JitExit
    // codes are theirs.
    auto* stop = block(fmt::format("stop{}", k));
    auto* sw = b_.CreateSwitch(st, stop, 2);
    b_.SetInsertPoint(stop);
    // Stored again here, so that LLVM drops the stores before the instruction where nothing reads
    // them (a semantic's own trap path, which leaves through here, no longer does).
    store64(offsetof(Hart, pc), p.pc);
    set_instret(k);
    b_.CreateRet(st);

    auto* fall = block(fmt::format("next{}", k));
    sw->addCase(i32c(static_cast<uint32_t>(Status::Next)), fall);
    // Status::Jump, from a branch, a jump or a block-ending helper: the semantics wrote hart.pc.
    auto* jumped = block(fmt::format("jumped{}", k));
    if (p.exit != jit::Exit::None) sw->addCase(i32c(static_cast<uint32_t>(Status::Jump)), jumped);
    b_.SetInsertPoint(jumped);
    if (p.exit == jit::Exit::None) {
      b_.CreateUnreachable();
    } else if (p.exit == jit::Exit::Indirect) {
      // To whichever of the region's blocks the register names, else out.
      auto* pc = b_.CreateLoad(b_.getInt64Ty(), field(offsetof(Hart, pc)));
      auto* out = block(fmt::format("out{}", k));
      auto* to = b_.CreateSwitch(pc, out, static_cast<unsigned>(heads_.size()));
      for (const auto& [head_pc, head] : heads_) {
        auto* again = block(fmt::format("to_{:x}", head_pc));
        to->addCase(i64(head_pc), again);
        b_.SetInsertPoint(again);
        leave_to(head_pc, k + 1);
      }
      b_.SetInsertPoint(out);
      leave_to(~0ull, k + 1);
    } else if (p.exit == jit::Exit::Helper) {
      set_instret(k + 1);
      b_.CreateRet(i32c(x64::kExitDispatch));  // the exec loop re-derives the translation key
    } else {
      leave_to(p.target, k + 1);  // a taken branch or a jump: the plan knows where to
    }

    b_.SetInsertPoint(fall);
    switch (p.exit) {
      case jit::Exit::Helper:
        store64(offsetof(Hart, pc), next_pc);
        set_instret(k + 1);
        b_.CreateRet(i32c(x64::kExitDispatch));
        break;
      case jit::Exit::Branch:
        store64(offsetof(Hart, pc), next_pc);
        leave_to(next_pc, k + 1);
        break;
      default:
        // A store that overwrote this block's code (Hart::code_written) leaves right after it, as
        // the baseline's does.
        if (i.flags() & kStore) {
          const size_t flag = offsetof(Hart, code_written);
          auto* written = b_.CreateLoad(b_.getInt8Ty(), field(flag), /*isVolatile=*/true);
          auto* out = block(fmt::format("written{}", k)), *on = block(fmt::format("on{}", k));
          b_.CreateCondBr(b_.CreateICmpNE(written, b_.getInt8(0)), out, on);
          b_.SetInsertPoint(out);
          b_.CreateStore(b_.getInt8(0), field(flag), /*isVolatile=*/true);
          store64(offsetof(Hart, pc), next_pc);
          set_instret(k + 1);
          b_.CreateRet(i32c(x64::kExitDispatch));
          b_.SetInsertPoint(on);
        }
        b_.CreateBr(next);
        break;
    }
    b_.SetInsertPoint(next);
    if (last && (p.exit == jit::Exit::None || p.exit == jit::Exit::Side)) {
      store64(offsetof(Hart, pc), plan_->end_pc);
      leave_to(plan_->end_pc, k + 1);
    } else if (last) {
      b_.CreateUnreachable();  // every terminator left above
    }
  }

  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const std::vector<jit::BlockPlan>& plans_;
  const llvm::ConstantArray& table_;
  llvm::Function* fn_ = nullptr;
  llvm::Value* h_ = nullptr;
  std::map<uint64_t, llvm::BasicBlock*> heads_;  // each block's entry, by its pc
  const jit::BlockPlan* plan_ = nullptr;  // the block being emitted
  llvm::Value* instret_ = nullptr;  // hart.instret at its entry
};

// Reads the bodies of the functions `root` reaches in the lazily read m, and makes the others
// declarations, which nothing left refers to but the kSemantics table that GlobalDCE drops.
llvm::Error materialize_reachable(llvm::Module& m, llvm::Function& root) {
  std::vector<llvm::Value*> work{&root};
  llvm::SmallPtrSet<llvm::Value*, 32> seen{&root};
  while (!work.empty()) {
    llvm::Value* v = work.back();
    work.pop_back();
    auto* g = llvm::dyn_cast<llvm::GlobalValue>(v);
    if (g && g->isMaterializable())
      if (auto e = g->materialize()) return e;
    auto visit = [&](llvm::Value* op) {
      if ((llvm::isa<llvm::GlobalValue>(op) || llvm::isa<llvm::ConstantExpr>(op) ||
           llvm::isa<llvm::ConstantAggregate>(op)) && seen.insert(op).second)
        work.push_back(op);
    };
    if (auto* f = llvm::dyn_cast<llvm::Function>(v)) {
      for (llvm::Instruction& i : llvm::instructions(*f))
        for (llvm::Value* op : i.operands()) visit(op);
    } else if (auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(v)) {
      if (gv->hasInitializer()) visit(gv->getInitializer());
    } else if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
      for (llvm::Value* op : c->operands()) visit(op);
    }
  }
  for (llvm::Function& f : m)
    if (f.isMaterializable()) {
      f.deleteBody();
      f.setComdat(nullptr);  // a declaration has none
    }
  return m.materializeAll();
}

// Guest memory, which the inlined semantics reach through flat_synced's asm (runtime/sem_int.cpp),
// never overlaps the hart: told so (scoped alias metadata on every access of either, once the
// semantics are inlined), LLVM keeps the guest registers and the hart's other fields it loaded in
// SSA values across guest stores, and hoists the flat path's checks out of loops.
struct SeparateGuestMemory : llvm::PassInfoMixin<SeparateGuestMemory> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
    if (f.isDeclaration() || f.arg_empty()) return llvm::PreservedAnalyses::all();
    llvm::MDBuilder mdb(f.getContext());
    llvm::MDNode* guest = mdb.createAnonymousAliasScope(mdb.createAnonymousAliasScopeDomain("region"), "guest");
    llvm::MDNode* scopes = llvm::MDNode::get(f.getContext(), {guest});
    const llvm::Value* hart = f.getArg(0);
    for (llvm::Instruction& i : llvm::instructions(f)) {
      const llvm::Value* ptr = llvm::getLoadStorePointerOperand(&i);
      if (!ptr) continue;
      const llvm::Value* base = llvm::getUnderlyingObject(ptr);
      if (const auto* asm_call = llvm::dyn_cast<llvm::CallInst>(base); asm_call && asm_call->isInlineAsm())
        i.setMetadata(llvm::LLVMContext::MD_alias_scope, scopes);
      else if (base == hart)
        i.setMetadata(llvm::LLVMContext::MD_noalias, scopes);
    }
    return llvm::PreservedAnalyses::none();
  }
};

// The bitcode's hart must be brisk's: the region addresses its fields by brisk's offsets.
bool same_hart_layout(const llvm::Module& m) {
  auto* g = m.getGlobalVariable(kHartLayoutName);
  auto* a = g && g->hasInitializer() ? llvm::dyn_cast<llvm::ConstantDataArray>(g->getInitializer()) : nullptr;
  if (!a || a->getNumElements() != std::size(kHartLayout)) return false;
  for (unsigned k = 0; k < a->getNumElements(); k++)
    if (a->getElementAsInteger(k) != kHartLayout[k]) return false;
  return true;
}

}  // namespace

class LlvmCompiler;

struct Impl {
  Compiler::Options opt;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string jit_error;  // why there is no LLJIT
  std::string session_error;  // what the session last reported while linking

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<uint64_t, std::vector<jit::BlockPlan>>> queue;
  std::vector<Compiled> done;
  std::atomic<bool> has_done{false};
  std::map<uint64_t, llvm::orc::ResourceTrackerSP> trackers;
  std::map<std::string, uint64_t, std::less<>> code_sizes;  // of regions linked, by name (RegionSizes)
  bool stop = false;
  bool compiling = false;  // the worker is in compile(), with mu not held
  std::thread worker;

  Compiled compile(uint64_t id, const std::vector<jit::BlockPlan>& plans);
  void work();
};

// Records the size of each region's code as JITLink lays it out, for --perf-map.
class RegionSizes final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  explicit RegionSizes(Impl& impl) : impl_(impl) {}
  void modifyPassConfig(llvm::orc::MaterializationResponsibility&, llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph& g) {
      std::lock_guard lock(impl_.mu);
      for (llvm::jitlink::Symbol* sym : g.defined_symbols())
        if (sym->hasName() && sym->getName().starts_with("brisk_region_")) impl_.code_sizes[sym->getName().str()] = sym->getSize();
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override { return llvm::Error::success(); }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey, llvm::orc::ResourceKey) override {}

 private:
  Impl& impl_;
};

class LlvmCompiler final : public Compiler {
 public:
  explicit LlvmCompiler(const Options& opt);
  ~LlvmCompiler() override;
  Compiled compile(uint64_t id, const std::vector<jit::BlockPlan>& plans) override;
  void submit(uint64_t id, std::vector<jit::BlockPlan> plans) override;
  bool has_done() const override;
  std::vector<Compiled> take_done() override;
  void release(uint64_t id) override;

 private:
  std::unique_ptr<Impl> impl_;
};

void Impl::work() {
  std::unique_lock lock(mu);
  for (;;) {
    cv.wait(lock, [&] { return stop || !queue.empty(); });
    if (stop) return;
    // Not while a guest's process forks: first work_lock, then mu again (the forking thread takes
    // only work_lock).
    lock.unlock();
    std::unique_lock busy(work_lock());
    lock.lock();
    if (stop) return;
    {
      auto [id, plans] = std::move(queue.front());
      queue.pop_front();
      compiling = true;
      lock.unlock();
      Compiled r = compile(id, plans);
      lock.lock();
      compiling = false;
      // The owner left while this compiled (~LlvmCompiler): nobody takes the region.
      if (stop) return;
      done.push_back(std::move(r));
    }  // The plans are freed with work_lock held: a fork must not find this thread inside malloc.
    has_done.store(true, std::memory_order_release);
    // Under mu, so that the owner, once it has set stop, knows this no longer runs.
    if (opt.on_done) opt.on_done();
    busy.unlock();
  }
}

LlvmCompiler::LlvmCompiler(const Options& opt) : impl_(std::make_unique<Impl>()) {
  impl_->opt = opt;
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // JITLink as LLJIT sets it up by itself on x86-64 (position-independent code, the small code model,
  // unwind tables registered, so that an exception may pass through region code), and RegionSizes.
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    impl_->jit_error = error_text(jtmb.takeError());
    return;
  }
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  jtmb->setCodeModel(llvm::CodeModel::Small);
  auto link = [impl = impl_.get()](llvm::orc::ExecutionSession& es,
                                   const llvm::Triple&) -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
    auto layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(es);
    auto registrar = llvm::orc::EPCEHFrameRegistrar::Create(es);
    if (!registrar) return registrar.takeError();
    layer->addPlugin(std::make_shared<llvm::orc::EHFrameRegistrationPlugin>(es, std::move(*registrar)));
    layer->addPlugin(std::make_shared<RegionSizes>(*impl));
    return layer;
  };
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).setObjectLinkingLayerCreator(link).create();
  if (!jit) {
    impl_->jit_error = error_text(jit.takeError());
    return;
  }
  // Calls the bitcode leaves to brisk itself (the semantics it does not inline, csr::access, ...).
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    impl_->jit_error = error_text(process.takeError());
    return;
  }
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  // What goes wrong while linking a region (a symbol not found) is reported here, not on stderr:
  // brisk says it once, with the region that failed (JitEngine::install_regions).
  (*jit)->getExecutionSession().setErrorReporter([impl = impl_.get()](llvm::Error e) {
    std::lock_guard lock(impl->mu);
    impl->session_error = error_text(std::move(e));
  });
  impl_->jit = std::move(*jit);
}

LlvmCompiler::~LlvmCompiler() {
  bool compiling;
  {
    std::lock_guard lock(impl_->mu);
    impl_->stop = true;
    compiling = impl_->compiling;
  }
  impl_->cv.notify_all();
  if (!impl_->worker.joinable()) return;
  if (!compiling) {
    impl_->worker.join();
    return;
  }
  // A compilation takes a tenth of a second and more, which the end of a run does not wait for: the
  // worker finishes it and ends by itself, with Impl its own from here on (note_abandoned).
  impl_->worker.detach();
  (void)impl_.release();
  note_abandoned();
}

Compiled LlvmCompiler::compile(uint64_t id, const std::vector<jit::BlockPlan>& plans) {
  return impl_->compile(id, plans);
}

Compiled Impl::compile(uint64_t id, const std::vector<jit::BlockPlan>& plans) {
  const auto t0 = std::chrono::steady_clock::now();
  Compiled r;
  r.id = id;
  auto elapsed = [&] {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  };
  auto fail = [&](std::string why) {
    r.error = std::move(why);
    r.nanoseconds = elapsed();
    return r;
  };
  if (!jit) return fail(jit_error);

  auto ctx = std::make_unique<llvm::LLVMContext>();
  const llvm::StringRef bytes(reinterpret_cast<const char*>(kSemanticsBitcode), kSemanticsBitcode_size);
  // Lazily: a region needs a few of the semantics' functions, and reading every body took most of
  // a compilation.
  auto parsed = llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(bytes, "semantics.bc"), *ctx);
  if (!parsed) return fail(error_text(parsed.takeError()));
  std::unique_ptr<llvm::Module> m = std::move(*parsed);
  if (!same_hart_layout(*m)) return fail("the semantics' bitcode lays Hart out differently from brisk");
  auto* table = m->getGlobalVariable(kSemanticsTable);
  auto* entries = table && table->hasInitializer() ? llvm::dyn_cast<llvm::ConstantArray>(table->getInitializer()) : nullptr;
  if (!entries || entries->getNumOperands() != kOpCount) return fail("the semantics' bitcode has no kSemantics table");

  const std::string name = fmt::format("brisk_region_{}", id);
  llvm::Function* region = RegionBuilder(*m, plans, *entries).build(name, opt.inject_failure);
  if (auto e = materialize_reachable(*m, *region)) return fail(error_text(std::move(e)));
  // Only the region is the module's own: the rest is inlined into it or dropped, and the
  // semantics it still calls are brisk's, found by name.
  for (llvm::Function& f : *m)
    if (!f.isDeclaration() && f.getName() != name) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& g : m->globals())
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
  std::string verify;
  llvm::raw_string_ostream vs(verify);
  if (llvm::verifyModule(*m, &vs)) return fail("invalid region IR: " + verify);

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return fail(error_text(jtmb.takeError()));
  auto tm = jtmb->createTargetMachine();
  if (!tm) return fail(error_text(tm.takeError()));
  m->setDataLayout(jit->getDataLayout());
  m->setTargetTriple(jit->getTargetTriple().str());
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm->get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::GlobalDCEPass());  // first: most of the semantics are not the region's
    mpm.addPass(llvm::AlwaysInlinerPass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(SeparateGuestMemory()));
    mpm.addPass(pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2));
    mpm.run(*m, mam);
  }
  if (std::getenv("BRISK_TIER2_DUMP_IR")) m->print(llvm::errs(), nullptr);

  auto rt = jit->getMainJITDylib().createResourceTracker();
  if (auto e = jit->addIRModule(rt, llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    return fail(error_text(std::move(e)));
  auto sym = jit->lookup(name);
  if (!sym) {
    std::string why = error_text(sym.takeError());
    llvm::consumeError(rt->remove());
    std::lock_guard lock(mu);
    if (!session_error.empty()) why = std::exchange(session_error, {}) + " (" + why + ")";
    return fail(why);
  }
  {
    std::lock_guard lock(mu);
    trackers[id] = rt;
    if (auto it = code_sizes.find(name); it != code_sizes.end()) {
      r.size = it->second;
      code_sizes.erase(it);
    }
  }
  r.fn = sym->toPtr<RegionFn>();
  r.nanoseconds = elapsed();
  return r;
}

void LlvmCompiler::submit(uint64_t id, std::vector<jit::BlockPlan> plans) {
  {
    std::lock_guard lock(impl_->mu);
    impl_->queue.emplace_back(id, std::move(plans));
    if (!impl_->worker.joinable()) impl_->worker = quiet_thread([impl = impl_.get()] { impl->work(); });
  }
  impl_->cv.notify_one();
}

bool LlvmCompiler::has_done() const { return impl_->has_done.load(std::memory_order_relaxed); }

std::vector<Compiled> LlvmCompiler::take_done() {
  std::lock_guard lock(impl_->mu);
  impl_->has_done.store(false, std::memory_order_relaxed);
  return std::exchange(impl_->done, {});
}

void LlvmCompiler::release(uint64_t id) {
  llvm::orc::ResourceTrackerSP rt;
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->trackers.find(id);
    if (it == impl_->trackers.end()) return;
    rt = std::move(it->second);
    impl_->trackers.erase(it);
  }
  llvm::consumeError(rt->remove());
}

extern "C" Compiler* brisk_tier2_create(const Compiler::Options& opt) { return new LlvmCompiler(opt); }

}  // namespace brisk::tier2
