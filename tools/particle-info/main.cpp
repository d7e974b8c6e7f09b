#include <string>
#include <vector>

#include "particle_info.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::particle_info(args);
}
