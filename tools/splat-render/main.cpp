#include <string>
#include <vector>

#include "splat_render.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::splat_render(args);
}
