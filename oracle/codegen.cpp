#include "oracle/codegen.h"

#include <set>
#include <sstream>

#include "oracle/rewrite.h"
#include "oracle/tokens.h"

namespace sc::oracle {

namespace {
// Replace the token at index k of text (tokenized as toks) by repl.
std::string replace_token(const std::string &text, const std::vector<Token> &toks, std::size_t k,
                          const std::string &repl) {
    return text.substr(0, toks[k].offset) + repl + text.substr(toks[k].end);
}
} // namespace

std::string as_member(const Definition &d, const RewriteOptions &opt) {
    std::string t = rewrite_types(d.text, opt);
    std::vector<Token> toks = tokenize(t);
    if (toks.empty())
        return t;
    if (d.kind == DefKind::function) {
        if (!toks[0].is_ident("static"))
            t = "static " + t;
        return t;
    }
    if (d.kind == DefKind::table || d.kind == DefKind::object) {
        for (std::size_t k = 0; k < toks.size() && !toks[k].is("="); ++k)
            if (toks[k].is_ident("const"))
                return replace_token(t, toks, k, "constexpr");
        return "constexpr " + t;
    }
    return t; // macros
}

const std::vector<Wanted> &cpuload_wanted() {
    static const std::vector<Wanted> w = {
        {"kernel/sched/sched.h", "CPU_LOAD_IDX_MAX"},   {"kernel/sched/proc.c", "DEGRADE_SHIFT"},
        {"kernel/sched/proc.c", "degrade_zero_ticks"},  {"kernel/sched/proc.c", "degrade_factor"},
        {"kernel/sched/proc.c", "decay_load_missed"},   {"kernel/sched/proc.c", "__update_cpu_load"},
        {"kernel/sched/fair.c", "source_load"},         {"kernel/sched/fair.c", "target_load"},
    };
    return w;
}

namespace {

// Does the image's struct rq still hold an array cpu_load[]?  (Patch 2/4
// of seed 000 turns it into one value.)
bool rq_has_load_array(const Image &img) {
    const auto *frags = img.file("kernel/sched/sched.h");
    if (!frags)
        return true;
    for (const Fragment &f : *frags) {
        std::vector<Token> toks = tokenize(f.text());
        for (std::size_t k = 0; k + 1 < toks.size(); ++k)
            if (toks[k].is_ident("cpu_load"))
                return toks[k + 1].is("[");
    }
    return true;
}

} // namespace

std::string generate_cpuload(const std::vector<OracleSpec> &specs, std::vector<std::vector<std::string>> &found) {
    std::ostringstream o;
    found.assign(specs.size(), {});
    for (std::size_t s = 0; s < specs.size(); ++s) {
        const OracleSpec &sp = specs[s];
        std::vector<Definition> macros, tables, functions;
        for (const Wanted &w : cpuload_wanted()) {
            auto d = find_definition(sp.image, w.path, w.name);
            if (!d)
                continue;
            found[s].push_back(w.name);
            (d->kind == DefKind::macro ? macros : d->kind == DefKind::function ? functions : tables).push_back(*d);
        }
        bool array = rq_has_load_array(sp.image);
        // What target_load()'s second parameter means: none (1 = cpu only),
        // the load type, or sd->imbalance_pct (the seed's follow-up patch).
        int target_arg = 0;
        for (const auto &d : functions)
            if (d.name == "target_load") {
                std::vector<Token> toks = tokenize(d.text);
                target_arg = 1;
                for (std::size_t k = 0; k < toks.size() && !toks[k].is(")"); ++k) {
                    if (toks[k].is_ident("type"))
                        target_arg = 2;
                    if (toks[k].is_ident("imbalance_pct"))
                        target_arg = 3;
                }
            }
        o << "// " << sp.id << ": " << sp.description << "\n";
        o << "template <class A> struct " << sp.name << " {\n"
          << "    using sc_ulong = typename A::ulong;\n"
          << "    using sc_uint = typename A::uint;\n"
          << "    using sc_u64 = typename A::u64;\n"
          << "    static constexpr bool has_load_array = " << (array ? "true" : "false") << ";\n"
          << "    // target_load(): 0 absent, 1 (cpu), 2 (cpu, type), 3 (cpu, imbalance_pct)\n"
          << "    static constexpr int target_arg = " << target_arg << ";\n"
          << "    // A statistics counter nobody on these paths reads.\n"
          << "    struct stat_counter {\n"
          << "        void operator++(int) {}\n"
          << "        void operator++() {}\n"
          << "    };\n"
          << "    struct rq {\n"
          << (array ? "        sc_ulong cpu_load[5];\n" : "        sc_ulong cpu_load;\n")
          << "        sc_ulong last_load_update_tick;\n"
          << "        stat_counter nr_load_updates;\n"
          << "        struct {\n"
          << "            sc_ulong runnable_load_avg;\n"
          << "            sc_uint h_nr_running;\n"
          << "        } cfs;\n"
          << "    };\n"
          << "    // The runqueue cpu_rq() returns and the LB_BIAS feature bit: inputs\n"
          << "    // the caller sets before each call.\n"
          << "    static inline thread_local rq *shim_rq = nullptr;\n"
          << "    static inline thread_local bool shim_feat_LB_BIAS = true;\n"
          << "    static rq *cpu_rq(int) { return shim_rq; }\n"
          << "    static sc_ulong weighted_cpuload(int) { return shim_rq->cfs.runnable_load_avg; }\n"
          << "    static void sched_avg_update(rq *) {}\n"
          << "    template <class T> static T shim_min(const T &a, const T &b) { return a < b ? a : b; }\n"
          << "    template <class T> static T shim_max(const T &a, const T &b) { return a > b ? a : b; }\n"
          << "#define sched_feat(x) shim_feat_##x\n"
          << "#define min(a, b) shim_min<sc_ulong>(a, b)\n"
          << "#define max(a, b) shim_max<sc_ulong>(a, b)\n";
        for (const auto &d : macros)
            o << as_member(d, {});
        for (const auto &d : tables)
            o << "    " << as_member(d, {});
        for (const auto &d : functions)
            o << as_member(d, {}) << "\n";
        o << "#undef sched_feat\n#undef min\n#undef max\n";
        for (const auto &d : macros)
            o << "#undef " << d.name << "\n";
        o << "};\n";
        o << "inline constexpr const char *" << sp.name << "_has[] = {";
        for (const auto &n : found[s])
            o << "\"" << n << "\", ";
        o << "nullptr};\n\n";
    }
    return o.str();
}

} // namespace sc::oracle
