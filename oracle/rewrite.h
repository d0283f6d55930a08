// Token-based type rewriting for extracted kernel text.
//
// One extracted function is compiled against several integer models (ilp32,
// lp64, the symbolic types).  A typedef cannot retarget `unsigned long`, so
// the builtin type names are rewritten to the project's aliases:
//
//   unsigned long [int]          -> sc_ulong
//   long [int], signed long      -> sc_slong
//   unsigned long long           -> sc_u64
//   long long, signed long long  -> sc_s64
//   unsigned [int]               -> sc_uint
//   u64 / s64 / u32              -> sc_u64 / sc_s64 / sc_u32
//   int, signed, char, short and floating types -> unchanged
//                                   (unsigned char stays unsigned char)
//
// With RewriteOptions, two more rewrites make the text exact on every
// model, for code whose values are all to be symbolic:
//   int, signed [int]            -> sc_sint   (ints)
//   bool                         -> sc_bool   (ints)
//   123L, 0x10UL, 5LL, 7ULL      -> sc_slong(123), sc_ulong(0x10), ...
//                                   (literals: a host `1L` is 64 bits even
//                                   when the model is ilp32)
//
// Casts are type names too, so `(u32)x` becomes `(sc_u32)x`.  Only tokens
// change: comments, string and character literals and all spacing are
// copied verbatim.  Macro bodies (#define lines) are rewritten the same way;
// other directives are left alone.
#pragma once
#include <string>

namespace sc::oracle {

struct RewriteOptions {
    bool ints = false;
    bool literals = false;
};

std::string rewrite_types(const std::string &c_text, const RewriteOptions &opt = {});

} // namespace sc::oracle
