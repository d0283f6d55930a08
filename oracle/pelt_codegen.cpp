#include "oracle/pelt_codegen.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "oracle/codegen.h"
#include "oracle/extract.h"
#include "oracle/rewrite.h"
#include "oracle/tokens.h"

namespace sc::oracle {

const std::vector<KernelWanted> &pelt_wanted() {
    // Where each has lived: the capacity constants in include/linux/sched.h
    // (kernel/sched/sched.h in older trees); util_est's flag and weight in
    // include/linux/sched.h or kernel/sched/pelt.h; the decay table and its
    // constants in the generated sched-pelt.h, before that in fair.c (then
    // pelt.c); PELT's functions in pelt.c, fair.c before 4.19, and its
    // inline helpers in pelt.h or sched.h; util_est in fair.c.
    static const std::vector<std::string> sched_h = {"include/linux/sched.h", "kernel/sched/sched.h"};
    static const std::vector<std::string> flag_h = {"include/linux/sched.h", "kernel/sched/pelt.h",
                                                    "kernel/sched/sched.h"};
    static const std::vector<std::string> table_h = {"kernel/sched/sched-pelt.h", "kernel/sched/pelt.c",
                                                     "kernel/sched/fair.c", "kernel/sched/sched.h"};
    static const std::vector<std::string> pelt_h = {"kernel/sched/pelt.h", "kernel/sched/sched.h",
                                                    "kernel/sched/pelt.c", "kernel/sched/fair.c"};
    static const std::vector<std::string> pelt_c = {"kernel/sched/pelt.c", "kernel/sched/fair.c",
                                                    "kernel/sched/pelt.h", "kernel/sched/sched.h"};
    static const std::vector<std::string> fair_c = {"kernel/sched/fair.c", "kernel/sched/sched.h",
                                                    "kernel/sched/pelt.h", "kernel/sched/pelt.c"};
    static const std::vector<std::string> sched_h_first = {"kernel/sched/sched.h", "kernel/sched/fair.c",
                                                           "include/linux/sched.h"};
    // An optional part (cfs_moves, idlebal) is left out whole when a
    // required piece of it is missing; the oracle still holds the rest.
    using P = PeltPart;
    static const std::vector<KernelWanted> w = {
        {sched_h, "SCHED_FIXEDPOINT_SHIFT", P::pelt, true, false},
        {sched_h, "SCHED_CAPACITY_SHIFT", P::pelt, true, false},
        {sched_h, "SCHED_CAPACITY_SCALE", P::pelt, true, false},
        {flag_h, "UTIL_EST_WEIGHT_SHIFT", P::util_est, true, false},
        {flag_h, "UTIL_AVG_UNCHANGED", P::util_est, true, false},
        {table_h, "LOAD_AVG_PERIOD", P::pelt, true, false},
        {table_h, "LOAD_AVG_MAX", P::pelt, true, false},
        {table_h, "runnable_avg_yN_inv", P::pelt, true, false},
        {pelt_h, "PELT_MIN_DIVIDER", P::pelt, true, false},
        {pelt_h, "get_pelt_divider", P::pelt, true, true},
        {pelt_h, "cfs_se_util_change", P::util_est, true, true},
        {pelt_c, "decay_load", P::pelt, true, true},
        {pelt_c, "__accumulate_pelt_segments", P::pelt, true, true},
        {pelt_c, "accumulate_sum", P::pelt, true, true},
        {pelt_c, "___update_load_sum", P::pelt, true, true},
        {pelt_c, "___update_load_avg", P::pelt, true, true},
        {fair_c, "task_util", P::util_est, true, true},
        {fair_c, "task_runnable", P::util_est, false, true}, // 6.12's util_est reads it
        {fair_c, "_task_util_est", P::util_est, true, true},
        {fair_c, "task_util_est", P::util_est, true, true},
        {fair_c, "util_est_enqueue", P::util_est, true, true},
        {fair_c, "util_est_dequeue", P::util_est, true, true},
        {fair_c, "UTIL_EST_MARGIN", P::util_est, true, false},
        {fair_c, "within_margin", P::util_est, false, true}, // gone by 6.12
        {fair_c, "util_est_update", P::util_est, true, true},
        {sched_h_first, "se_weight", P::cfs_moves, true, true},
        {fair_c, "add_positive", P::cfs_moves, true, false},
        {fair_c, "sub_positive", P::cfs_moves, true, false},
        {fair_c, "lsub_positive", P::cfs_moves, true, false},
        {fair_c, "enqueue_load_avg", P::cfs_moves, true, true},
        {fair_c, "dequeue_load_avg", P::cfs_moves, true, true},
        {fair_c, "attach_entity_load_avg", P::cfs_moves, true, true},
        {fair_c, "detach_entity_load_avg", P::cfs_moves, true, true},
        {pelt_c, "__update_load_avg_cfs_rq", P::cfs_moves, true, true},
        {fair_c, "update_cfs_rq_load_avg", P::cfs_moves, true, true},
        {fair_c, "init_entity_runnable_average", P::cfs_moves, true, true},
        {fair_c, "post_init_entity_util_avg", P::cfs_moves, true, true},
        // The idle-time average (sched.h in 6.x, core.c before) and the
        // domain's newidle cost; the success statistics are a backport in
        // Debian's trees, absent upstream.
        {sched_h_first, "update_avg", P::idlebal, true, true},
        {fair_c, "update_newidle_stats", P::idlebal, false, true},
        {fair_c, "update_newidle_cost", P::idlebal, true, true},
        // The wake-up placement: the 6.x wake_affine() and what it reads.
        // task_h_load() has a second, one-line form for kernels without
        // group scheduling; the longer (group) form is the one taken.
        // cfs_h_nr_delayed() comes with 6.12's delayed dequeue.
        {fair_c, "cfs_rq_load_avg", P::wakeaffine, true, true},
        {fair_c, "cpu_load", P::wakeaffine, true, true},
        {fair_c, "capacity_of", P::wakeaffine, true, true},
        {fair_c, "task_h_load", P::wakeaffine, true, true},
        {fair_c, "cfs_h_nr_delayed", P::wakeaffine, false, true},
        {fair_c, "wake_affine_idle", P::wakeaffine, true, true},
        {fair_c, "wake_affine_weight", P::wakeaffine, true, true},
        {fair_c, "wake_affine", P::wakeaffine, true, true},
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

std::string join(const std::vector<std::string> &v, const char *sep = ", ") {
    std::string o;
    for (const auto &x : v)
        o += (o.empty() ? "" : sep) + x;
    return o;
}

// "linux-6.1.192 (6.1.192)", or the id alone when there is no version.
std::string who(const KernelOracleSpec &spec) {
    return spec.version.empty() ? spec.id : spec.id + " (" + spec.version + ")";
}

// What was looked for, and where it was found.
struct Search {
    const KernelWanted *w;
    std::optional<Definition> def;
    std::string path; // where def was found
};

std::vector<Search> search_all(const KernelOracleSpec &spec) {
    // Each file's definitions, computed once for all the names.
    std::map<std::string, std::vector<Definition>> defs_of;
    auto defs = [&](const std::string &path) -> const std::vector<Definition> * {
        const std::vector<Fragment> *frs = spec.image.file(path);
        if (!frs)
            return nullptr;
        auto it = defs_of.find(path);
        if (it == defs_of.end()) {
            std::vector<Definition> all;
            for (const Fragment &f : *frs)
                for (Definition &d : definitions(f))
                    all.push_back(std::move(d));
            it = defs_of.emplace(path, std::move(all)).first;
        }
        return &it->second;
    };
    std::vector<Search> out;
    for (const KernelWanted &w : pelt_wanted()) {
        Search s{&w, std::nullopt, {}};
        for (const std::string &path : w.paths) {
            const std::vector<Definition> *ds = defs(path);
            if (!ds)
                continue;
            // fair.c also holds empty stubs of the util_est functions for
            // !CONFIG_SMP builds.  A stub is not the function: of the
            // definitions with a body, take the longest.
            for (const Definition &x : *ds)
                if (x.name == w.name && !empty_body(x) && (!s.def || x.text.size() > s.def->text.size()))
                    s.def = x;
            if (s.def) {
                s.path = path;
                break;
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

// "NAME not found in A, B (not in the source: C)".
std::string not_found(const KernelOracleSpec &spec, const KernelWanted &w) {
    std::vector<std::string> present, absent;
    for (const auto &p : w.paths)
        (spec.image.file(p) ? present : absent).push_back(p);
    if (present.empty())
        return w.name + " not found: none of " + join(absent) + " is in the source";
    std::string m = w.name + " not found in " + join(present);
    if (!absent.empty())
        m += " (not in the source: " + join(absent) + ")";
    return m;
}

// One line with everything a source lacks.
std::string lacks_message(const KernelOracleSpec &spec, const std::vector<std::string> &lacking) {
    return who(spec) + ": the source lacks " + std::to_string(lacking.size()) +
           (lacking.size() == 1 ? " definition" : " definitions") + " the oracle needs: " + join(lacking, "; ") +
           " (renamed, removed, or no longer a whole definition)";
}

// The definitions of the code that some invariants read: those that
// `is_root` picks (the ones the invariants call) and, transitively, every
// definition of the code that one of them names.  As "name: tokens" lines
// in the code's order, token by token, so that a change to a comment or to
// white space is no change.  Two images with the same text run the same
// code under those invariants (the rest of the oracle is fixed shim code).
template <class Root> std::string reads_of(const std::vector<const Search *> &in_code, Root is_root) {
    std::map<std::string, std::vector<Token>> tokens;
    for (const Search *s : in_code)
        tokens[s->w->name] = tokenize(s->def->text);
    std::set<std::string> read;
    std::vector<std::string> todo;
    for (const Search *s : in_code)
        if (is_root(*s->w) && read.insert(s->w->name).second)
            todo.push_back(s->w->name);
    while (!todo.empty()) {
        const std::string n = todo.back();
        todo.pop_back();
        for (const Token &t : tokens[n]) {
            if (t.kind != TokKind::identifier && t.kind != TokKind::directive)
                continue;
            // A directive (#define X ...) is one token: look for names in it.
            for (const Token &u : t.kind == TokKind::directive ? tokenize(t.text.substr(1)) : std::vector<Token>{t})
                if (u.kind == TokKind::identifier && tokens.count(u.text) && read.insert(u.text).second)
                    todo.push_back(u.text);
        }
    }
    std::string out;
    for (const Search *s : in_code)
        if (read.count(s->w->name)) {
            out += s->w->name + ":";
            for (const Token &t : tokens[s->w->name])
                out += " " + t.text;
            out += "\n";
        }
    return out;
}

} // namespace

PeltOracle generate_pelt_oracle(const KernelOracleSpec &spec, bool partial, const std::string &origin) {
    const RewriteOptions opt{true, true};
    const std::vector<Search> found_defs = search_all(spec);
    PeltOracle res;

    // What is missing, all of it at once.
    std::vector<std::string> lacking_pelt, lacking_ue, names_pelt, names_ue, wanted_functions, lacking_cfs,
        lacking_idlebal, lacking_wa;
    bool any_function = false;
    for (const Search &s : found_defs) {
        const bool optional = s.w->part == PeltPart::cfs_moves || s.w->part == PeltPart::idlebal ||
                              s.w->part == PeltPart::wakeaffine;
        if (s.w->function && !optional) // the optional parts are not asked for
            wanted_functions.push_back(s.w->name);
        if (s.def && s.w->function)
            any_function = true;
        if (s.def || !s.w->required)
            continue;
        if (optional) {
            (s.w->part == PeltPart::cfs_moves  ? lacking_cfs
             : s.w->part == PeltPart::idlebal ? lacking_idlebal
                                              : lacking_wa)
                .push_back(s.w->name);
            continue;
        }
        (s.w->part == PeltPart::pelt ? lacking_pelt : lacking_ue).push_back(not_found(spec, *s.w));
        (s.w->part == PeltPart::pelt ? names_pelt : names_ue).push_back(s.w->name);
    }
    const std::string from = origin.empty() ? who(spec) : origin;
    if (partial && !any_function)
        throw extract_error(from + ": the hunks hold no whole definition of any function the oracle needs (" +
                            join(wanted_functions) + "); give the tree with --kernel");
    res.lacking = lacking_pelt;
    res.lacking.insert(res.lacking.end(), lacking_ue.begin(), lacking_ue.end());
    if (!lacking_pelt.empty()) {
        std::vector<std::string> names = names_pelt;
        names.insert(names.end(), names_ue.begin(), names_ue.end());
        if (partial)
            throw extract_error(from + ": the hunks hold only part of what the oracle needs; not whole in them: " +
                                join(names) + "; give the tree with --kernel");
        throw extract_error(lacks_message(spec, res.lacking));
    }
    res.has_util_est = lacking_ue.empty();
    res.has_cfs_moves = lacking_cfs.empty();
    res.has_idlebal = lacking_idlebal.empty();
    res.has_wakeaffine = lacking_wa.empty();
    // Whether s's part is in the code.
    auto left_out_part = [&](const Search &s) {
        return (s.w->part == PeltPart::util_est && !res.has_util_est) ||
               (s.w->part == PeltPart::cfs_moves && !res.has_cfs_moves) ||
               (s.w->part == PeltPart::idlebal && !res.has_idlebal) ||
               (s.w->part == PeltPart::wakeaffine && !res.has_wakeaffine);
    };
    if (!res.has_util_est)
        res.note = from + ": util_est left out, the oracle holds PELT only; " +
                   (partial ? "not whole in the hunks: " + join(names_ue) : "the source lacks: " + join(lacking_ue, "; "));

    std::vector<const Search *> in_code; // the definitions in the code, in order
    std::vector<Definition> macros, functions;
    std::string table;
    std::set<std::string> hooks;
    bool split_util_est = false; // util_est as {enqueued, ewma}
    for (const Search &s : found_defs) {
        if (!s.def)
            continue;
        const Definition &d = *s.def;
        // The layout of util_est shows in its functions, even in those left out.
        if (d.kind == DefKind::function) {
            std::vector<Token> t = tokenize(d.text);
            for (std::size_t k = 0; k + 2 < t.size(); ++k)
                if (t[k].is_ident("util_est") && t[k + 1].is(".") && t[k + 2].is_ident("enqueued"))
                    split_util_est = true;
        }
        if (left_out_part(s))
            continue;
        res.found.push_back(s.w->name);
        res.found_in.push_back(s.path);
        in_code.push_back(&s);
        if (d.kind == DefKind::macro) {
            macros.push_back(d);
        } else if (d.kind == DefKind::table) {
            table = as_ktable(d, spec, s.path);
        } else if (d.kind == DefKind::function) {
            functions.push_back(d);
            std::vector<Token> t = tokenize(d.text);
            for (std::size_t k = 0; k + 1 < t.size(); ++k)
                if (t[k].kind == TokKind::identifier && t[k].text.rfind("trace_", 0) == 0 && t[k + 1].is("("))
                    hooks.insert(t[k].text);
        } else {
            throw extract_error(who(spec) + ": " + s.path + ": " + d.name +
                                " is not a function, table or macro any more");
        }
    }
    res.reads["pelt"] = reads_of(in_code, [](const KernelWanted &w) {
        return w.part == PeltPart::pelt || w.part == PeltPart::cfs_moves;
    });
    res.reads["utilest"] = reads_of(in_code, [](const KernelWanted &w) { return w.part == PeltPart::util_est; });
    res.reads["idlebal"] = reads_of(in_code, [](const KernelWanted &w) { return w.part == PeltPart::idlebal; });
    res.reads["wakeaffine"] = reads_of(in_code, [](const KernelWanted &w) { return w.part == PeltPart::wakeaffine; });
    res.reads["pelt.decay_monotone"] = reads_of(in_code, [](const KernelWanted &w) { return w.name == "decay_load"; });
    std::vector<std::string> left_out;
    for (const Search &s : found_defs)
        if (left_out_part(s))
            left_out.push_back(s.w->name);

    std::ostringstream o;
    o << "// " << spec.id << " (" << spec.version << "): " << spec.description << "\n"
      << "namespace " << spec.name << " {\n"
      << "inline constexpr const char *id = \"" << spec.id << "\";\n"
      << "inline constexpr const char *version = \"" << spec.version << "\";\n"
      << "inline constexpr bool split_util_est = " << (split_util_est ? "true" : "false") << ";\n"
      << "inline constexpr bool has_util_est = " << (res.has_util_est ? "true" : "false") << ";\n"
      << "template <class A> struct kernel {\n"
      << "    using sc_ulong = typename A::ulong;\n"
      << "    using sc_slong = typename A::slong;\n"
      << "    using sc_uint = typename A::uint;\n"
      << "    using sc_sint = typename A::sint;\n"
      << "    using sc_u32 = typename A::uint;\n"
      << "    using sc_u64 = typename A::u64;\n"
      << "    using sc_s64 = typename A::s64;\n"
      << "    using sc_bool = typename A::boolean;\n"
      << "    static constexpr bool shim_has_util_est = " << (res.has_util_est ? "true" : "false") << ";\n";
    if (split_util_est)
        o << "    struct util_est {\n        sc_uint enqueued{};\n        sc_uint ewma{};\n    };\n";
    o << "    struct sched_avg {\n"
      << "        sc_u64 last_update_time{}, load_sum{}, runnable_sum{};\n"
      << "        sc_u32 util_sum{}, period_contrib{};\n"
      << "        sc_ulong load_avg{}, runnable_avg{}, util_avg{};\n"
      << (split_util_est ? "        struct util_est util_est{};\n" : "        sc_uint util_est{};\n")
      << "    };\n"
      << "    struct load_weight {\n        sc_ulong weight{};\n        sc_u32 inv_weight{};\n    };\n"
      << "    struct sched_entity {\n        sched_avg avg;\n        load_weight load;\n"
      << "        bool shim_is_task = true;\n    };\n"
      << "    static inline const int fair_sched_class = 0;\n"
      << "    struct cfs_rq;\n"
      << "    struct task_struct {\n        sched_entity se;\n"
      << "        const int *sched_class = &fair_sched_class;\n"
      << "        cfs_rq *shim_cfs_rq = nullptr; // task_cfs_rq()\n    };\n"
      << "    struct cfs_rq {\n        sched_avg avg;\n"
      << "        struct {\n            int lock;\n            sc_sint nr{};\n"
      << "            sc_ulong load_avg{}, util_avg{}, runnable_avg{};\n        } removed{};\n"
      << "        load_weight load;\n"
      << "        sc_uint h_nr_running{}, h_nr_queued{}, h_nr_delayed{}, h_nr_runnable{};\n"
      << "        sc_ulong h_load{};\n"
      << "        sched_entity *curr = nullptr;\n"
      << "        sc_u64 last_update_time_copy{};\n    };\n"
      << "    static constexpr bool shim_has_cfs_moves = " << (res.has_cfs_moves ? "true" : "false") << ";\n"
      << "    // The runqueue a new task is placed on (post_init_entity_util_avg()).\n"
      << "    static inline thread_local cfs_rq *shim_cfs_rq = nullptr;\n"
      << "    static cfs_rq *cfs_rq_of(sched_entity *) { return shim_cfs_rq; }\n"
      << "    static sc_u64 cfs_rq_clock_pelt(cfs_rq *) { return sc_u64(0); }\n"
      << "    // Task groups are not modelled: nothing to propagate.\n"
      << "    template <class... T> static void add_tg_cfs_propagate(T &&...) {}\n"
      << "    template <class... T> static void cfs_rq_util_change(T &&...) {}\n"
      << "    template <class T> static void shim_swap(T &a, T &b) {\n        T t = a;\n        a = b;\n"
      << "        b = t;\n    }\n"
      << "    template <class T> static void shim_zero(T *p) { *p = T{}; }\n"
      << "    // The weight in the nice table's resolution: 64-bit kernels keep 10\n"
      << "    // more bits and scale down to at least 2; 32-bit kernels keep none.\n"
      << "    static sc_ulong scale_load_down(sc_ulong w) {\n"
      << "        if constexpr (A::long_bits == 64) {\n"
      << "            if (w != sc_ulong(0))\n"
      << "                w = shim_max<sc_ulong>(sc_ulong(2), sc_ulong(w >> 10));\n"
      << "        }\n        return w;\n    }\n"
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
    o << "    static constexpr bool shim_has_idlebal = " << (res.has_idlebal ? "true" : "false") << ";\n"
      << "    // The fields of a sched_domain that the newidle cost helpers use.\n"
      << "    struct sched_domain {\n        sc_uint newidle_call{}, newidle_success{}, newidle_ratio{};\n"
      << "        sc_u64 max_newidle_lb_cost{};\n        sc_ulong last_decay_max_lb_cost{};\n"
      << "        sc_uint imbalance_pct{};\n    };\n"
      << "    // Inputs: the tick counter (pointed to, as the capacity) and its rate.\n"
      << "    static inline thread_local const sc_ulong *shim_jiffies = nullptr;\n"
      << "    static inline thread_local int shim_HZ = 250;\n";
    o << "    static constexpr bool shim_has_wakeaffine = " << (res.has_wakeaffine ? "true" : "false") << ";\n"
      << "    // The two CPUs of a wake-up, this_cpu and prev_cpu, each a runqueue\n"
      << "    // with the fields the placement reads; the caller points to them.\n"
      << "    struct rq {\n        cfs_rq cfs;\n        sc_uint nr_running{};\n        sc_ulong cpu_capacity{};\n"
      << "        bool shim_idle = false; // available_idle_cpu()\n    };\n"
      << "    static inline thread_local int shim_this_cpu = 0;\n"
      << "    static inline thread_local rq *shim_this_rq = nullptr, *shim_prev_rq = nullptr;\n"
      << "    static inline thread_local bool shim_share_cache = true;\n"
      << "    static inline thread_local int shim_nr_cpumask_bits = 64;\n"
      << "    static inline thread_local task_struct *shim_current = nullptr;\n"
      << "    template <class I> static rq *cpu_rq(const I &cpu) {\n"
      << "        return bool(cpu == I(shim_this_cpu)) ? shim_this_rq : shim_prev_rq;\n    }\n"
      << "    template <class I> static bool available_idle_cpu(const I &cpu) { return cpu_rq(cpu)->shim_idle; }\n"
      << "    template <class I> static bool cpus_share_cache(const I &, const I &) { return shim_share_cache; }\n"
      << "    static cfs_rq *task_cfs_rq(task_struct *p) { return p->shim_cfs_rq; }\n"
      << "    // h_load is an input: nothing to bring up to date.\n"
      << "    static void update_cfs_rq_h_load(cfs_rq *) {}\n"
      << "    // div64_ul(): u64 by unsigned long (div_u64() on 32-bit kernels).\n"
      << "    static sc_u64 div64_ul(sc_u64 a, sc_ulong b) { return a / sc_u64(b); }\n"
      << "    static inline thread_local bool shim_feat_WA_IDLE = true;\n"
      << "    static inline thread_local bool shim_feat_WA_WEIGHT = true;\n"
      << "    static inline thread_local bool shim_feat_WA_BIAS = true;\n";
    for (const auto &h : hooks)
        o << "    template <class... T> static void " << h << "(T &&...) {}\n";
    static const char *shim_macros[] = {"READ_ONCE",      "WRITE_ONCE",     "likely",  "unlikely", "__always_inline",
                                        "__maybe_unused", "sched_feat",     "min",     "max",      "min_t",
                                        "max_t",          "typeof",         "swap",    "memset",   "entity_is_task",
                                        "raw_spin_lock",  "raw_spin_unlock", "u64_u32_store_copy",
                                        "jiffies",        "HZ",             "time_after",
                                        "current",        "nr_cpumask_bits", "schedstat_inc"};
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
      << "// sc_bool: a feature bit meets symbolic conditions in && and ||\n"
      << "#define sched_feat(x) sc_bool(shim_feat_##x)\n"
      << "#define min(a, b) shim_min<sc_ulong>(a, b)\n"
      << "#define max(a, b) shim_max<sc_ulong>(a, b)\n"
      << "#define min_t(t, a, b) shim_min<t>(t(a), t(b))\n"
      << "#define max_t(t, a, b) shim_max<t>(t(a), t(b))\n"
      << "#define typeof(x) std::remove_cvref_t<decltype(x)>\n"
      << "#define swap(a, b) shim_swap(a, b)\n"
      << "#define memset(p, v, n) shim_zero(p)\n"
      << "#define entity_is_task(se) ((se)->shim_is_task)\n"
      << "#define raw_spin_lock(l) ((void)0)\n"
      << "#define raw_spin_unlock(l) ((void)0)\n"
      << "#define u64_u32_store_copy(var, copy, val) ((var) = (val))\n"
      << "#define jiffies (*shim_jiffies)\n"
      << "#define HZ sc_ulong(shim_HZ)\n"
      << "// after b: the wrapped difference b - a read as a signed long is negative\n"
      << "#define time_after(a, b) (sc_slong(sc_ulong(b) - sc_ulong(a)) < sc_slong(0))\n"
      << "#define current shim_current\n"
      << "#define nr_cpumask_bits sc_sint(shim_nr_cpumask_bits)\n"
      << "#define schedstat_inc(x) ((void)0)\n";
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
    for (const auto &n : res.found)
        o << "\"" << n << "\", ";
    o << "nullptr};\n";
    o << "inline constexpr const char *lacks[] = {";
    for (const auto &n : left_out)
        o << "\"" << n << "\", ";
    o << "nullptr};\n} // namespace " << spec.name << "\n\n";
    res.code = o.str();
    return res;
}

std::string generate_pelt(const KernelOracleSpec &spec, std::vector<std::string> &found, bool partial) {
    PeltOracle r = generate_pelt_oracle(spec, partial);
    if (!partial && !r.lacking.empty())
        throw extract_error(lacks_message(spec, r.lacking));
    found = r.found;
    return r.code;
}

std::string neutral_code(KernelOracleSpec spec, bool partial, const std::string &origin) {
    spec.name = spec.id = "x";
    spec.description.clear();
    return generate_pelt_oracle(spec, partial, origin).code;
}

} // namespace sc::oracle
