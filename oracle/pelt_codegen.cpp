#include "oracle/pelt_codegen.h"

#include <optional>
#include <set>
#include <sstream>

#include "oracle/codegen.h"
#include "oracle/extract.h"
#include "oracle/rewrite.h"
#include "oracle/tokens.h"

namespace sc::oracle {

const std::vector<KernelWanted> &pelt_wanted() {
    static const std::vector<KernelWanted> w = {
        {"include/linux/sched.h", "SCHED_FIXEDPOINT_SHIFT", true},
        {"include/linux/sched.h", "SCHED_CAPACITY_SHIFT", true},
        {"include/linux/sched.h", "SCHED_CAPACITY_SCALE", true},
        {"include/linux/sched.h", "UTIL_EST_WEIGHT_SHIFT", true},
        {"include/linux/sched.h", "UTIL_AVG_UNCHANGED", true},
        {"kernel/sched/sched-pelt.h", "LOAD_AVG_PERIOD", true},
        {"kernel/sched/sched-pelt.h", "LOAD_AVG_MAX", true},
        {"kernel/sched/sched-pelt.h", "runnable_avg_yN_inv", true},
        {"kernel/sched/pelt.h", "PELT_MIN_DIVIDER", true},
        {"kernel/sched/pelt.h", "get_pelt_divider", true},
        {"kernel/sched/pelt.h", "cfs_se_util_change", true},
        {"kernel/sched/pelt.c", "decay_load", true},
        {"kernel/sched/pelt.c", "__accumulate_pelt_segments", true},
        {"kernel/sched/pelt.c", "accumulate_sum", true},
        {"kernel/sched/pelt.c", "___update_load_sum", true},
        {"kernel/sched/pelt.c", "___update_load_avg", true},
        {"kernel/sched/fair.c", "task_util", true},
        {"kernel/sched/fair.c", "task_runnable", false}, // 6.12's util_est reads it
        {"kernel/sched/fair.c", "_task_util_est", true},
        {"kernel/sched/fair.c", "task_util_est", true},
        {"kernel/sched/fair.c", "util_est_enqueue", true},
        {"kernel/sched/fair.c", "util_est_dequeue", true},
        {"kernel/sched/fair.c", "UTIL_EST_MARGIN", true},
        {"kernel/sched/fair.c", "within_margin", false}, // gone by 6.12
        {"kernel/sched/fair.c", "util_est_update", true},
    };
    return w;
}

namespace {

// `void f(...) {}`: a function whose body holds no token.
bool empty_body(const Definition &d) {
    if (d.kind != DefKind::function)
        return false;
    std::vector<Token> t = tokenize(d.text);
    for (std::size_t k = 0; k + 1 < t.size(); ++k)
        if (t[k].is("{"))
            return t[k + 1].is("}");
    return false;
}

// A constant u32 table as an sc::ktable, so that a symbolic index works.
std::string as_ktable(const Definition &d, const KernelOracleSpec &spec, const std::string &path) {
    std::vector<Token> t = tokenize(d.text);
    std::size_t eq = 0;
    bool u32 = false;
    while (eq < t.size() && !t[eq].is("=")) {
        u32 |= t[eq].is_ident("u32");
        ++eq;
    }
    if (!u32 || eq == t.size())
        throw extract_error(spec.id + " (" + spec.version + "): " + path + ": table " + d.name +
                            " is no longer a u32 array with an initialiser; the shim expects one");
    std::vector<std::string> values;
    for (std::size_t k = eq; k < t.size(); ++k)
        if (t[k].kind == TokKind::number)
            values.push_back(t[k].text);
    std::string o = "    static constexpr sc::ktable<std::uint32_t, " + std::to_string(values.size()) + "> " + d.name +
                    " = {{";
    for (std::size_t k = 0; k < values.size(); ++k)
        o += (k ? ", " : "") + values[k];
    return o + "}};\n";
}

} // namespace

std::string generate_pelt(const KernelOracleSpec &spec, std::vector<std::string> &found, bool partial) {
    const RewriteOptions opt{true, true};
    std::vector<Definition> macros, functions;
    std::string table;
    std::set<std::string> hooks;
    bool split_util_est = false; // util_est as {enqueued, ewma}
    found.clear();
    for (const KernelWanted &w : pelt_wanted()) {
        if (!spec.image.file(w.path)) {
            if (!w.required || partial)
                continue;
            throw extract_error(spec.id + " (" + spec.version + "): " + w.path + " is missing from the kernel source, "
                                "so " + w.name + " cannot be extracted");
        }
        // fair.c also holds empty stubs of the util_est functions for
        // !CONFIG_SMP builds.  A stub is not the function: of the
        // definitions with a body, take the longest.
        std::optional<Definition> d;
        for (const Fragment &f : *spec.image.file(w.path))
            for (const Definition &x : definitions(f))
                if (x.name == w.name && !empty_body(x) && (!d || x.text.size() > d->text.size()))
                    d = x;
        if (!d) {
            if (!w.required || partial)
                continue;
            throw extract_error(spec.id + " (" + spec.version + "): " + w.name + " not found in " + w.path +
                                " (renamed, removed, or no longer a whole definition)");
        }
        found.push_back(w.name);
        if (d->kind == DefKind::macro) {
            macros.push_back(*d);
        } else if (d->kind == DefKind::table) {
            table = as_ktable(*d, spec, w.path);
        } else if (d->kind == DefKind::function) {
            functions.push_back(*d);
            std::vector<Token> t = tokenize(d->text);
            for (std::size_t k = 0; k + 1 < t.size(); ++k) {
                if (t[k].kind == TokKind::identifier && t[k].text.rfind("trace_", 0) == 0 && t[k + 1].is("("))
                    hooks.insert(t[k].text);
                if (t[k].is_ident("util_est") && t[k + 1].is(".") && k + 2 < t.size() &&
                    t[k + 2].is_ident("enqueued"))
                    split_util_est = true;
            }
        } else {
            throw extract_error(spec.id + " (" + spec.version + "): " + w.path + ": " + w.name +
                                " is not a function, table or macro any more");
        }
    }

    if (found.empty())
        throw extract_error(spec.id + ": none of the PELT or util_est definitions lies wholly inside the text");
    std::ostringstream o;
    o << "// " << spec.id << " (" << spec.version << "): " << spec.description << "\n"
      << "namespace " << spec.name << " {\n"
      << "inline constexpr const char *id = \"" << spec.id << "\";\n"
      << "inline constexpr const char *version = \"" << spec.version << "\";\n"
      << "inline constexpr bool split_util_est = " << (split_util_est ? "true" : "false") << ";\n"
      << "template <class A> struct kernel {\n"
      << "    using sc_ulong = typename A::ulong;\n"
      << "    using sc_slong = typename A::slong;\n"
      << "    using sc_uint = typename A::uint;\n"
      << "    using sc_sint = typename A::sint;\n"
      << "    using sc_u32 = typename A::uint;\n"
      << "    using sc_u64 = typename A::u64;\n"
      << "    using sc_s64 = typename A::s64;\n"
      << "    using sc_bool = typename A::boolean;\n";
    if (split_util_est)
        o << "    struct util_est {\n        sc_uint enqueued{};\n        sc_uint ewma{};\n    };\n";
    o << "    struct sched_avg {\n"
      << "        sc_u64 last_update_time{}, load_sum{}, runnable_sum{};\n"
      << "        sc_u32 util_sum{}, period_contrib{};\n"
      << "        sc_ulong load_avg{}, runnable_avg{}, util_avg{};\n"
      << (split_util_est ? "        struct util_est util_est{};\n" : "        sc_uint util_est{};\n")
      << "    };\n"
      << "    struct sched_entity {\n        sched_avg avg;\n    };\n"
      << "    struct task_struct {\n        sched_entity se;\n    };\n"
      << "    struct cfs_rq {\n        sched_avg avg;\n    };\n"
      << "    // Inputs the caller sets before a call: feature bits and the CPU's capacity.\n"
      << "    static inline thread_local bool shim_feat_UTIL_EST = true;\n"
      << "    static inline thread_local bool shim_feat_UTIL_EST_FASTUP = true;\n"
      << "    // The capacity is pointed to, not held: a symbolic value must not\n"
      << "    // outlive its solver context in a thread-local.\n"
      << "    static inline thread_local const sc_ulong *shim_capacity = nullptr;\n"
      << "    static int rq_of(cfs_rq *) { return 0; }\n"
      << "    static int cpu_of(int cpu) { return cpu; }\n"
      << "    static sc_ulong capacity_orig_of(int) { return shim_capacity ? *shim_capacity : sc_ulong(1024); }\n"
      << "    static sc_ulong arch_scale_cpu_capacity(int) { return capacity_orig_of(0); }\n"
      << "    static sc_u64 mul_u64_u32_shr(sc_u64 a, sc_u32 mul, unsigned shift) {\n"
      << "        return sc::mul_u64_u32_shr(a, mul, shift);\n    }\n"
      << "    static sc_u64 div_u64(sc_u64 a, sc_u32 b) { return sc::div_u64(a, b); }\n"
      << "    template <class T> static T shim_min(const T &a, const T &b) { return a < b ? a : b; }\n"
      << "    template <class T> static T shim_max(const T &a, const T &b) { return a > b ? a : b; }\n";
    for (const auto &h : hooks)
        o << "    template <class... T> static void " << h << "(T &&...) {}\n";
    static const char *shim_macros[] = {"READ_ONCE", "WRITE_ONCE", "likely",  "unlikely", "__always_inline",
                                        "__maybe_unused", "sched_feat", "min", "max", "min_t", "max_t"};
    // The host's own headers may define some of these (glibc has
    // __always_inline): save them and put them back afterwards.
    // The kernel's own idioms (unsigned against int comparisons) are not
    // this project's to warn about.
    o << "#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wsign-compare\"\n";
    for (const char *m : shim_macros)
        o << "#pragma push_macro(\"" << m << "\")\n#undef " << m << "\n";
    o << "#define READ_ONCE(x) (x)\n"
      << "#define WRITE_ONCE(x, v) ((x) = (v))\n"
      << "#define likely(x) (x)\n"
      << "#define unlikely(x) (x)\n"
      << "#define __always_inline\n"
      << "#define __maybe_unused\n"
      << "#define sched_feat(x) shim_feat_##x\n"
      << "#define min(a, b) shim_min<sc_ulong>(a, b)\n"
      << "#define max(a, b) shim_max<sc_ulong>(a, b)\n"
      << "#define min_t(t, a, b) shim_min<t>(t(a), t(b))\n"
      << "#define max_t(t, a, b) shim_max<t>(t(a), t(b))\n";
    for (const auto &d : macros)
        o << as_member(d, opt);
    o << table;
    for (const auto &d : functions)
        o << as_member(d, opt) << "\n";
    o << "    static constexpr std::uint64_t shim_load_avg_max = LOAD_AVG_MAX;\n";
    for (const char *m : shim_macros)
        o << "#undef " << m << "\n#pragma pop_macro(\"" << m << "\")\n";
    for (const auto &d : macros)
        o << "#undef " << d.name << "\n";
    o << "#pragma GCC diagnostic pop\n";
    o << "};\n";
    o << "inline constexpr std::uint64_t load_avg_max = kernel<sc::lp64>::shim_load_avg_max;\n";
    o << "inline constexpr const char *has[] = {";
    for (const auto &n : found)
        o << "\"" << n << "\", ";
    o << "nullptr};\n} // namespace " << spec.name << "\n\n";
    return o.str();
}

} // namespace sc::oracle
