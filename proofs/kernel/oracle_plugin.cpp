#include "proofs/kernel/oracle_plugin.h"
#include "proofs/report/input_file.h"
#include "proofs/kernel/oracle_manifest.h"
#include "oracle/header_stamp.h"

#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

namespace sc::proofs {

bool valid_oracle_name(const std::string &name) {
    if (name.empty() || name.size() > 200 || name[0] == '.')
        return false;
    for (unsigned char c : name)
        if (!std::isalnum(c) && c != '.' && c != '_' && c != '+' && c != '-')
            return false;
    return true;
}

void check_oracle_name(const std::string &name, const std::string &what) {
    if (valid_oracle_name(name))
        return;
    std::string shown;
    for (unsigned char c : name.substr(0, 80))
        shown += std::isprint(c) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
    throw input_error(fmt::format("oracle name \"{}\"{} ({}) is not allowed: use letters, digits, '.', '_', '+' "
                                  "and '-' only, not starting with '.', at most 200 characters",
                                  shown, name.size() > 80 ? "..." : "", what));
}

std::string file_fnv1a64(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw input_error("cannot read " + path);
    oracle::Fnv1a64 h;
    char buf[1 << 16];
    while (in) {
        in.read(buf, sizeof buf);
        h.add(buf, static_cast<std::size_t>(in.gcount()));
    }
    return fmt::format("{:016x}", h.h);
}

const Plugin &load_plugin(const std::string &so_path, const std::string &oracle) {
    namespace fs = std::filesystem;
    static std::mutex mu;
    static std::map<std::string, Plugin> loaded; // by path; never unloaded
    std::lock_guard<std::mutex> g(mu);
    if (auto it = loaded.find(so_path); it != loaded.end())
        return it->second;
    if (!fs::exists(so_path))
        throw input_error("unknown oracle \"" + oracle + "\": not built in, and no " + so_path +
                          " (build one with `schedcheck oracle build`)");
    // The manifest's record of the plug-in, checked before dlopen().
    const std::string mpath = fs::path(so_path).replace_extension(".json").string();
    std::error_code ec;
    if (!fs::is_regular_file(mpath, ec))
        throw input_error("cannot load oracle plug-in " + so_path + ": no manifest " + mpath +
                          " beside it (rebuild it with `schedcheck oracle build`)");
    std::optional<OracleManifest> m;
    try {
        m = parse_oracle_manifest(read_input_file(mpath, InputKind::manifest), mpath);
    } catch (const input_error &e) {
        throw input_error("cannot load oracle plug-in " + so_path + ": its manifest is unusable: " + e.what());
    }
    if (!m || !m->plugin_size || !m->plugin_fnv1a64)
        throw input_error("cannot load oracle plug-in " + so_path + ": its manifest " + mpath +
                          " records no size and checksum (made by an older schedcheck?); rebuild it with "
                          "`schedcheck oracle build`");
    const std::uint64_t size = fs::file_size(so_path, ec);
    const std::string sum = file_fnv1a64(so_path);
    if (ec || size != *m->plugin_size || sum != *m->plugin_fnv1a64)
        throw input_error(fmt::format("cannot load oracle plug-in {}: it does not match its manifest ({} bytes, "
                                      "checksum {}; the manifest says {} bytes, checksum {}): truncated or changed "
                                      "since `oracle build` made it; rebuild it",
                                      so_path, size, sum, *m->plugin_size, *m->plugin_fnv1a64));
    // Kept loaded for the life of the process: unloading code whose
    // thread-local shims may still be referenced is not worth the risk.
    void *h = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
        throw input_error("cannot load oracle plug-in " + so_path + ": " + dlerror());
    auto abi = reinterpret_cast<plugin_abi_fn>(dlsym(h, plugin_abi_symbol));
    Plugin pl;
    pl.path = so_path;
    pl.oracle = oracle;
    pl.version = m->version.value_or("");
    pl.equiv = reinterpret_cast<plugin_equiv_fn>(dlsym(h, plugin_equiv_symbol));
    pl.applies = reinterpret_cast<plugin_applies_fn>(dlsym(h, plugin_applies_symbol));
    pl.prove = reinterpret_cast<plugin_prove_fn>(dlsym(h, plugin_prove_symbol));
    pl.replay = reinterpret_cast<plugin_replay_fn>(dlsym(h, plugin_replay_symbol));
    pl.run = reinterpret_cast<plugin_run_fn>(dlsym(h, plugin_run_symbol));
    pl.simulate = reinterpret_cast<plugin_simulate_fn>(dlsym(h, plugin_simulate_symbol));
    if (!abi || !pl.equiv)
        throw input_error(so_path + " is not a schedcheck oracle plug-in (no " + plugin_equiv_symbol + ")");
    // Sizes first (a plug-in older than the stamp has only them), then the
    // headers' text.
    auto headers = reinterpret_cast<const char *(*)()>(dlsym(h, oracle::plugin_headers_symbol));
    if (abi() != plugin_abi() || !headers || !pl.applies || !pl.prove || !pl.replay || !pl.run || !pl.simulate)
        throw input_error(so_path + " was built from other schedcheck headers than this binary; rebuild it "
                                    "with `schedcheck oracle build`");
    if (std::string(headers()) != oracle::built_header_stamp())
        throw input_error(fmt::format("{} was built from other schedcheck headers (stamp {}) than this binary "
                                      "(stamp {}); rebuild it with `schedcheck oracle build`",
                                      so_path, headers(), oracle::built_header_stamp()));
    return loaded.emplace(so_path, pl).first->second;
}

EquivResult prove_with_plugin(const std::string &so_path, const Variant &v, const std::string &oracle, Arch a,
                              unsigned timeout_ms) {
    auto fn = load_plugin(so_path, oracle).equiv;
    EquivResult res;
    res.variant = v.id;
    res.oracle = oracle;
    res.arch = a;
    std::string error;
    auto t0 = std::chrono::steady_clock::now();
    int rc = fn(&res, &v, timeout_ms, &error);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rc == 2)
        throw input_error(error);
    if (rc != 0)
        throw internal_error(oracle + " plug-in: " + error);
    return res;
}

std::vector<TaskSnapshot> run_with_plugin(const Plugin &pl, const TaskRun &run) {
    std::vector<TaskSnapshot> out;
    std::string error;
    int rc = pl.run(&run, &out, &error);
    if (rc == 2)
        throw input_error(error);
    if (rc != 0)
        throw internal_error(pl.oracle + " plug-in: " + error);
    return out;
}

} // namespace sc::proofs
