// Oracles built at run time (`schedcheck oracle build`) are compiled into a
// plug-in, NAME.so, next to their library.  `schedcheck equiv --oracle
// NAME` loads it and calls its entry point, which runs the same
// equivalence cases as the built-in oracles (proofs/equiv_kernel_cases.h)
// with the plug-in's own kernel class.  The plug-in is compiled from this
// source tree's headers, so both sides share the layout of EquivResult and
// Variant; the ABI stamp catches a plug-in built from other headers.
#pragma once
#include <string>

#include "proofs/equiv.h"
#include "proofs/invariant.h"
#include "ref/variants.h"

namespace sc::proofs {

// Return codes of the entry point: 0 done (res filled), 2 bad input,
// 3 internal error; *error says why.
using plugin_equiv_fn = int (*)(EquivResult *res, const Variant *v, unsigned timeout_ms, std::string *error);
using plugin_abi_fn = unsigned (*)();
inline constexpr const char *plugin_equiv_symbol = "schedcheck_oracle_equiv_v1";
inline constexpr const char *plugin_abi_symbol = "schedcheck_oracle_abi_v1";

inline unsigned plugin_abi() {
    return static_cast<unsigned>(sizeof(EquivResult) ^ (sizeof(Variant) << 12) ^ (sizeof(OracleInfo) << 20));
}

// An oracle name becomes file names (NAME.so, NAME.json) inside the oracle
// directory and an #include in generated code, so it is held to a safe
// alphabet: letters, digits, '.', '_', '+', '-', not starting with '.'.
// Anything else is bad input (exit 2): no "../x", no quotes, no spaces.
bool valid_oracle_name(const std::string &name);
// Throws input_error naming `what` ("--name", "--oracle", "the patch file's
// name") when the name is not valid.
void check_oracle_name(const std::string &name, const std::string &what);

// FNV-1a (64 bits) of a file's bytes, as 16 hex digits: the checksum
// `oracle build` records for its plug-in and checks before loading it.
std::string file_fnv1a64(const std::string &path);

// Runs an equivalence in a plug-in.  The plug-in must match the size and
// checksum its manifest (NAME.json beside NAME.so) records: a truncated or
// altered file is refused before dlopen(), which would otherwise fault
// (SIGBUS) on the missing pages.  Throws input_error when there is no
// such plug-in or it cannot be loaded, and passes on the plug-in's errors.
EquivResult prove_with_plugin(const std::string &so_path, const Variant &v, const std::string &oracle, Arch a,
                              unsigned timeout_ms);

} // namespace sc::proofs
