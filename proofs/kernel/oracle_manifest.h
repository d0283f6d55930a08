// The manifest `schedcheck oracle build` writes beside each plug-in
// (DIR/NAME.json): which oracle it is, which file holds its code, and the
// size and checksum that file had, checked before the file is loaded.
//
//   {"id": "fix-post", "plugin": "fix-post.so", "plugin_size": 4227776,
//    "plugin_fnv1a64": "fa6dcefbb2c981b2", "source": "linux-6.1 + fix.patch",
//    "version": "6.1.192", ...}
//
// Other fields (definitions, library, namespace, the fuzzer's name) are
// for people and are not read.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace sc::proofs {

struct OracleManifest {
    std::string id;     // a valid oracle name
    std::string plugin; // a file name in the same directory, a valid oracle name too
    std::optional<std::string> source;
    // The tree's VERSION.PATCHLEVEL.SUBLEVEL from its Makefile ("6.1.158").
    std::optional<std::string> version;
    // Absent in manifests of older releases: such a plug-in is not loaded.
    std::optional<std::uint64_t> plugin_size;
    std::optional<std::string> plugin_fnv1a64; // 16 lower-case hex digits
};

// Parses a manifest's text (at most manifest_max_bytes, JSON under the
// limits of parse_json_document()).  Returns nothing for JSON that is not
// a manifest at all (no "id" and "plugin": some other file in the
// directory).  Throws input_error "ORIGIN: FIELD is X, not Y" for a
// manifest with a field of the wrong kind, and for text that is not JSON.
std::optional<OracleManifest> parse_oracle_manifest(const std::string &text, const std::string &origin);

} // namespace sc::proofs
