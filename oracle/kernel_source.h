// Kernel text to extract from: a kernel tree (a directory), a
// linux-source-*.tar.xz tarball, and optionally a patch applied on top.
//
// Only the files the oracle needs are read.  From a tarball they are
// unpacked with tar(1) into a private temporary directory that is removed
// again, whatever happens.  Every failure is an extract_error whose message
// names the source, the file and the reason:
//   - a directory without kernel/sched: not a kernel tree;
//   - a tarball tar cannot read, or one without kernel/sched;
//   - a patch that holds no diff, or a hunk that does not apply to the
//     tree's text (patch.h).
#pragma once
#include <string>
#include <vector>

#include "oracle/patch.h"

namespace sc::oracle {

struct KernelSource {
    std::string origin;  // the directory or tarball as given
    std::string version; // "6.1.192" from the top-level Makefile, or "" when it has none
    Image image;         // the files read, each one fragment from line 1, all in image.whole
};

// The files an oracle reads, relative to the tree's top.
const std::vector<std::string> &oracle_files();

// Reads `files` from a directory or a tarball.  A file the source lacks is
// simply absent from the image; the lack of kernel/sched is an error.
KernelSource read_kernel(const std::string &path, const std::vector<std::string> &files = oracle_files());

// The image after applying every patch of the series in `patch_file` to
// the source's text.
Image apply_patch_file(const KernelSource &src, const std::string &patch_file);

// "6.1" from "6.1.192"; "" stays "".
std::string major_minor(const std::string &version);

} // namespace sc::oracle
