// The invariants written against the kernel-shaped interface (pelt,
// utilest) and the subjects beyond the reference variants that they run on:
// the built-in kernel oracles, listed as "kernel" subjects (linux-6.1,
// linux-6.12) so that the verdict table has a row for each.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "proofs/invariant.h"
#include "ref/variants.h"

namespace sc::proofs {

const std::vector<Variant> &kernel_subjects();
// A reference variant, a built-in kernel subject or a plug-in subject.
const Variant *find_subject(std::string_view id);
// The oracle NAME made by `oracle build` into oracle_dir, loaded as a
// subject of the kernel invariants (a built-in one is returned as is).
// Throws input_error when it cannot be loaded.
const Variant &add_plugin_subject(const std::string &name, const std::string &oracle_dir);
bool is_plugin_subject(const Variant &v);
// The built-in kernel subject of a plug-in's release: "linux-6.1" for an
// oracle built from a 6.1.x tree, "linux-6.12" for 6.12.x, else "".
std::string plugin_release(const Variant &v);
// Invariant `id` on a plug-in subject, run inside the plug-in on its own
// code: whether it applies there, its proof, the replay of a reproducer.
// The last two throw input_error when it does not apply or the input is
// bad, and internal_error when the plug-in fails.
bool plugin_applies(const Variant &v, const char *id);
ProofResult plugin_prove(const Variant &v, const char *id, Arch a, const ProveOptions &o);
ReplayResult plugin_replay(const Variant &v, const char *id, Arch a, const nlohmann::json &doc);
// From now on find_subject() also loads DIR/NAME.so for an unknown NAME.
void set_plugin_dir(const std::string &dir);

void register_kernel_invariants(std::vector<InvariantInfo> &out);

} // namespace sc::proofs
