#include <string>
#include <vector>

#include "compare_results.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::compare_results(args);
}
