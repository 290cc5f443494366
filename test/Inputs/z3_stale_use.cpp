// For test/cli/z3-lifetime.test: a Z3 term released after its context was
// deleted, the mistake the lifetime check must catch.
#include <z3.h>

int main() {
  Z3_config cfg = Z3_mk_config();
  Z3_context ctx = Z3_mk_context_rc(cfg);
  Z3_del_config(cfg);
  Z3_ast t = Z3_mk_true(ctx);
  Z3_inc_ref(ctx, t);
  Z3_del_context(ctx);
  Z3_dec_ref(ctx, t); // stale
  return 0;
}
