// `schedcheck simulate` (cli/simulate.cpp).  Exit codes as for the other
// commands: 0 ok, 1 --check found kernel values outside the simulated
// interval, 2 bad usage or input (nothing written), 3 internal error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sc::cli {

struct SimulateArgs {
    std::string input; // workload JSON or trace-cmd report text
    std::vector<std::string> variants, oracles;
    std::string oracle_dir = "oracles"; // where `oracle build` put the oracles not built in
    std::string arch = "lp64";
    std::string csv, svg;
    bool json = false;
    double every_ms = 0;
    std::vector<std::int64_t> pids;
    std::vector<std::string> comms;
    bool check = false;
};

int cmd_simulate(const SimulateArgs &a);

} // namespace sc::cli
