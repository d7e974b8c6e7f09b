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
    std::uint64_t vertices = 0;  // length of the file's xdmf_vertices_path() dataset (0: none)
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

// XDMF text for ParaView's three XDMF readers (XDMF 2's "XDMF Reader", Xdmf3ReaderS and
// Xdmf3ReaderT): a temporal collection of Polyvertex grids (SPEC.md §3.5).
std::string xdmf_document(const std::vector<XdmfFrame>& frames);

// A record's component names in the order of the XDMF AttributeType for its component count
// (Vector x y z; Tensor6 xx xy xz yy yz zz; Tensor row-major); empty where XDMF has no type.
std::vector<std::string> xdmf_component_order(std::uint32_t components);
// The HDF5 path of the N x C virtual dataset that joins a record's component datasets in that
// order, for XDMF readers that take a vector only as one 2-D dataset (the Xdmf3 readers read
// neither X_Y_Z geometry nor JOIN functions). A virtual dataset maps, it copies no data.
std::string xdmf_joined_path(std::int64_t step, const std::string& species, const std::string& record);
// The HDF5 path of the vertex indices 0, 1, ..., V - 1 (one dataset per file, V the largest group
// of its frames): each grid's Polyvertex topology takes its first N as a hyperslab, because the
// Xdmf3 readers make no cells of a Polyvertex topology without connectivity (points, but
// nothing that renders), while the indices are the same for every grid.
inline constexpr const char* kXdmfVerticesPath = "/xdmf/vertices";
// Its type: u32 while the indices fit, else u64 (declared signed 64-bit to XDMF, as ids are).
ScalarType xdmf_vertex_type(std::uint64_t vertices);

}  // namespace partikel::fmt
