#include <string>
#include <vector>

#include "nbody_init.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::nbody_init(args);
}
