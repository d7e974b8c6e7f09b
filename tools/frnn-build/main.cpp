#include <string>
#include <vector>

#include "frnn_build.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::frnn_build(args);
}
