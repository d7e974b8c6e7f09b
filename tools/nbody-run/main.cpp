#include <string>
#include <vector>

#include "nbody_run.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::nbody_run(args);
}
