#include <string>
#include <vector>

#include "pic_track.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return partikel::tools::pic_track(args);
}
