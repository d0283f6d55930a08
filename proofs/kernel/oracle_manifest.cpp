#include "proofs/kernel/oracle_manifest.h"

#include <nlohmann/json.hpp>

#include "proofs/report/input_file.h"
#include "proofs/invariant.h"
#include "proofs/kernel/oracle_plugin.h"

namespace sc::proofs {

std::optional<OracleManifest> parse_oracle_manifest(const std::string &text, const std::string &origin) {
    const JsonDocument doc = parse_json_document(text, origin);
    const nlohmann::json &m = doc.value;
    if (!m.is_object() || !m.contains("id") || !m.contains("plugin"))
        return std::nullopt;
    auto bad = [&](const char *k, const char *what) {
        return input_error(origin + ": \"" + k + "\" is " +
                           describe_json_value(m.at(k), std::string("/") + k, &doc.number_text) + ", not " + what);
    };
    auto str = [&](const char *k) -> const std::string * {
        const auto &v = m.at(k);
        return v.is_string() ? v.get_ptr<const std::string *>() : nullptr;
    };
    OracleManifest r;
    if (const std::string *s = str("id"); s && valid_oracle_name(*s))
        r.id = *s;
    else
        throw bad("id", "an oracle name");
    if (const std::string *s = str("plugin"); s && valid_oracle_name(*s))
        r.plugin = *s;
    else
        throw bad("plugin", "a plug-in file name");
    if (m.contains("source")) {
        if (const std::string *s = str("source"))
            r.source = *s;
        else
            throw bad("source", "a string");
    }
    if (m.contains("version") && !m.at("version").is_null()) {
        if (const std::string *s = str("version"))
            r.version = *s;
        else
            throw bad("version", "a string");
    }
    if (m.contains("plugin_size")) {
        if (!m.at("plugin_size").is_number_unsigned())
            throw bad("plugin_size", "a size in bytes");
        r.plugin_size = m.at("plugin_size").get<std::uint64_t>();
    }
    if (m.contains("plugin_fnv1a64")) {
        const std::string *s = str("plugin_fnv1a64");
        if (!s || s->size() != 16 || s->find_first_not_of("0123456789abcdef") != std::string::npos)
            throw bad("plugin_fnv1a64", "16 hex digits");
        r.plugin_fnv1a64 = *s;
    }
    return r;
}

} // namespace sc::proofs
