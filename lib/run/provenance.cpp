#include "run/provenance.hpp"

#include "base/system.hpp"
#include "partikel_config.hpp"

namespace partikel::run {

Provenance make_provenance(std::string program, std::string command_line, std::string device,
                           std::optional<std::uint64_t> seed) {
    Provenance p{std::move(program), std::move(command_line), std::move(device), seed, {}, 0, {}};
    p.utc_start = output_time_utc("%Y-%m-%dT%H:%M:%SZ");
    return p;
}

void add_provenance(const Provenance& p, fmt::Frame& frame) {
    frame.attributes["program"] = p.program;
    frame.attributes["version"] = std::string(PARTIKEL_VERSION);
    frame.attributes["commit"] = std::string(PARTIKEL_GIT_COMMIT);
    frame.attributes["command_line"] = p.command_line;
    frame.attributes["utc_time"] = p.utc_start;
    frame.attributes["device"] = p.device;
    if (p.seed) frame.attributes["seed"] = static_cast<std::int64_t>(*p.seed);
    if (p.ranks > 0) {
        frame.attributes["ranks"] = static_cast<std::int64_t>(p.ranks);
        frame.attributes["transport"] = p.transport;
    }
}

}  // namespace partikel::run
