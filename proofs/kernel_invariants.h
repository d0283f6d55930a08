// The invariants written against the kernel-shaped interface (pelt,
// utilest) and the subjects beyond the reference variants that they run on:
// the built-in kernel oracles, listed as "kernel" subjects (linux-6.1,
// linux-6.12) so that the verdict table has a row for each.
#pragma once
#include <string_view>
#include <vector>

#include "proofs/invariant.h"
#include "ref/variants.h"

namespace sc::proofs {

const std::vector<Variant> &kernel_subjects();
// A reference variant or a kernel subject.
const Variant *find_subject(std::string_view id);

void register_kernel_invariants(std::vector<InvariantInfo> &out);

} // namespace sc::proofs
