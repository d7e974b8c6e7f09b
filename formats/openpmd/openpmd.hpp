// openPMD 1.1.0 layout details shared by the HDF5 reader, writer and the XDMF side file
// (SPEC.md §3).
#pragma once

#include <string>
#include <vector>

#include "formats/frame.hpp"

namespace partikel::fmt {

// What the XDMF side file needs to know about one written frame.
struct XdmfFrame {
    std::string file;   // HDF5 file name relative to the XDMF file
    std::int64_t step;
    double time_s;      // time in seconds
    struct Species {
        std::string name;
        std::uint64_t count;
        struct Record {
            std::string name;
            ScalarType type;
            std::uint32_t components;
        };
        std::vector<Record> records;
    };
    std::vector<Species> species;
};

// XDMF 2 text for ParaView: a temporal collection of Polyvertex grids.
std::string xdmf_document(const std::vector<XdmfFrame>& frames);

}  // namespace partikel::fmt
