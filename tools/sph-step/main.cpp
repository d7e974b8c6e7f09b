#include <string>
#include <vector>

#include "sph_step.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::sph_step(args);
}
