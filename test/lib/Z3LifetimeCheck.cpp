// A test-only LD_PRELOAD library: aborts when a Z3 object is referenced or
// released after its context was deleted. Such a use reads freed memory and
// usually goes unnoticed, until a context is deleted on another thread while
// the stale release runs (a crash in Z3_del_context far from the cause).
// Run kvalidate with KV_NO_CONTEXT_FACTORY=1 so that a context is deleted
// as soon as its lease ends; lit does both with KV_Z3_LIFETIME_CHECK=1.

#include <z3.h>

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <execinfo.h>
#include <mutex>
#include <unordered_set>

namespace {
std::mutex &lock() {
  static std::mutex m;
  return m;
}
std::unordered_set<Z3_context> &deleted() {
  static std::unordered_set<Z3_context> s;
  return s;
}

template <typename F> F real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "z3-lifetime-check: no %s in libz3\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

void checkAlive(Z3_context c, const char *call) {
  std::lock_guard<std::mutex> guard(lock());
  if (!deleted().count(c))
    return;
  std::fprintf(stderr,
               "z3-lifetime-check: %s on context %p after Z3_del_context\n",
               call, static_cast<void *>(c));
  void *frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  std::abort();
}

Z3_context born(Z3_context c) {
  // A new context may reuse a deleted one's address.
  std::lock_guard<std::mutex> guard(lock());
  deleted().erase(c);
  return c;
}
} // namespace

extern "C" {
Z3_context Z3_API Z3_mk_context(Z3_config cfg) {
  static auto f = real<Z3_context (*)(Z3_config)>("Z3_mk_context");
  return born(f(cfg));
}

Z3_context Z3_API Z3_mk_context_rc(Z3_config cfg) {
  static auto f = real<Z3_context (*)(Z3_config)>("Z3_mk_context_rc");
  return born(f(cfg));
}

void Z3_API Z3_del_context(Z3_context c) {
  static auto f = real<void (*)(Z3_context)>("Z3_del_context");
  checkAlive(c, "Z3_del_context");
  f(c);
  std::lock_guard<std::mutex> guard(lock());
  deleted().insert(c);
}

// Every reference count the C++ API keeps.
#define KV_REFCOUNTED(CALL, T)                                                 \
  void Z3_API CALL(Z3_context c, T x) {                                        \
    static auto f = real<void (*)(Z3_context, T)>(#CALL);                      \
    checkAlive(c, #CALL);                                                      \
    f(c, x);                                                                   \
  }
#define KV_BOTH(NAME, T)                                                       \
  KV_REFCOUNTED(Z3_##NAME##inc_ref, T)                                         \
  KV_REFCOUNTED(Z3_##NAME##dec_ref, T)
KV_BOTH(, Z3_ast)
KV_BOTH(solver_, Z3_solver)
KV_BOTH(model_, Z3_model)
KV_BOTH(params_, Z3_params)
KV_BOTH(param_descrs_, Z3_param_descrs)
KV_BOTH(tactic_, Z3_tactic)
KV_BOTH(probe_, Z3_probe)
KV_BOTH(goal_, Z3_goal)
KV_BOTH(apply_result_, Z3_apply_result)
KV_BOTH(func_interp_, Z3_func_interp)
KV_BOTH(func_entry_, Z3_func_entry)
KV_BOTH(ast_vector_, Z3_ast_vector)
KV_BOTH(ast_map_, Z3_ast_map)
KV_BOTH(stats_, Z3_stats)
KV_BOTH(fixedpoint_, Z3_fixedpoint)
KV_BOTH(optimize_, Z3_optimize)
} // extern "C"
