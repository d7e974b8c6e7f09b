// The XDMF side file (SPEC.md §3.5): lets ParaView's XDMF readers open openPMD particle data.
#include <algorithm>
#include <sstream>

#include "formats/openpmd/openpmd.hpp"

namespace partikel::fmt {

namespace {

std::string number_type(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return R"(NumberType="UChar" Precision="1")";
    case ScalarType::i32: return R"(NumberType="Int" Precision="4")";
    case ScalarType::u32: return R"(NumberType="UInt" Precision="4")";
    case ScalarType::i64: return R"(NumberType="Int" Precision="8")";
    // Declared signed: ParaView 5.11's XDMF readers (XDMF 2 and Xdmf3 alike) read "UInt" of
    // Precision 8 as 32-bit unsigned and clip every id above 2^32 - 1 (measured by
    // tests/cli/particle-convert/check_paraview.py), while as signed 64-bit the ids below 2^63 arrive exact.
    case ScalarType::u64: return R"(NumberType="Int" Precision="8")";
    case ScalarType::f32: return R"(NumberType="Float" Precision="4")";
    case ScalarType::f64: return R"(NumberType="Float" Precision="8")";
    }
    return {};
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

void data_item(std::ostringstream& x, const std::string& indent, const std::string& path, ScalarType type,
               const std::string& dimensions) {
    x << indent << "<DataItem Format=\"HDF\" Dimensions=\"" << dimensions << "\" " << number_type(type) << ">"
      << xml_escape(path) << "</DataItem>\n";
}

void attribute(std::ostringstream& x, const std::string& name, const char* kind, const std::string& path, ScalarType type,
               const std::string& dimensions) {
    x << "     <Attribute Name=\"" << xml_escape(name) << "\" AttributeType=\"" << kind << "\" Center=\"Node\">\n";
    data_item(x, "      ", path, type, dimensions);
    x << "     </Attribute>\n";
}

const char* attribute_type(std::uint32_t components) {
    switch (components) {
    case 3: return "Vector";
    case 6: return "Tensor6";
    case 9: return "Tensor";
    default: return nullptr;
    }
}

void uniform_grid(std::ostringstream& x, const XdmfFrame& f, const XdmfFrame::Species& s) {
    const auto* position = [&]() -> const XdmfFrame::Species::Record* {
        for (const auto& r : s.records)
            if (r.name == "position" && r.components == 3) return &r;
        return nullptr;
    }();
    if (!position) return;  // XDMF grids need 3-D point coordinates
    const std::string n = std::to_string(s.count);
    const std::string file = f.file + ":";
    const std::string base = file + "/data/" + std::to_string(f.step) + "/particles/" + s.name + "/";
    x << "    <Grid Name=\"" << xml_escape(s.name) << "\" GridType=\"Uniform\">\n"
      << "     <Time Value=\"" << shortest_text(f.time_s) << "\"/>\n"
      << "     <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n << "\" NodesPerElement=\"1\"";
    if (s.count > 0 && s.count <= f.vertices) {
        // Cells 0 .. N-1: the first N of the file's vertex indices.
        x << ">\n      <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << n << "\">\n"
          << "       <DataItem Dimensions=\"3 1\" Format=\"XML\">0 1 " << n << "</DataItem>\n";
        data_item(x, "       ", file + kXdmfVerticesPath, xdmf_vertex_type(f.vertices), std::to_string(f.vertices));
        x << "      </DataItem>\n     </Topology>\n";
    } else {
        x << "/>\n";
    }
    x << "     <Geometry GeometryType=\"XYZ\">\n";
    data_item(x, "      ", file + xdmf_joined_path(f.step, s.name, "position"), position->type, n + " 3");
    x << "     </Geometry>\n";
    for (const auto& r : s.records) {
        if (&r == position) continue;
        if (r.components == 1) {
            attribute(x, r.name, "Scalar", base + r.name, r.type, n);
        } else if (const char* kind = attribute_type(r.components)) {
            attribute(x, r.name, kind, file + xdmf_joined_path(f.step, s.name, r.name), r.type,
                      n + " " + std::to_string(r.components));
        } else {
            for (const auto& c : component_names(r.components))
                attribute(x, r.name + "_" + c, "Scalar", base + r.name + "/" + c, r.type, n);
        }
    }
    x << "    </Grid>\n";
}

}  // namespace

std::vector<std::string> xdmf_component_order(std::uint32_t components) {
    if (!attribute_type(components)) return {};
    if (components == 6) return {"xx", "xy", "xz", "yy", "yz", "zz"};
    return component_names(components);  // x y z; xx xy xz yx ... row-major
}

ScalarType xdmf_vertex_type(std::uint64_t vertices) {
    return vertices <= (std::uint64_t(1) << 32) ? ScalarType::u32 : ScalarType::u64;
}

std::string xdmf_joined_path(std::int64_t step, const std::string& species, const std::string& record) {
    return "/xdmf/" + std::to_string(step) + "/" + species + "/" + record;
}

// One temporal collection per particle group inside a spatial collection, so that the XDMF 2
// reader names each group's block by the group at every time (a temporal collection of spatial
// collections repeats each grid name per step, and both XDMF 2 and Xdmf3 readers then rename
// the repeats "fluid[1]", "fluid[2]", ...).
std::string xdmf_document(const std::vector<XdmfFrame>& frames) {
    std::vector<std::string> groups;  // in order of first appearance
    for (const auto& f : frames)
        for (const auto& s : f.species)
            if (std::find(groups.begin(), groups.end(), s.name) == groups.end()) groups.push_back(s.name);
    std::ostringstream x;
    x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"3.0\">\n <Domain>\n"
      << "  <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
    for (const auto& group : groups) {
        x << "   <Grid Name=\"" << xml_escape(group) << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
        for (const auto& f : frames)
            for (const auto& s : f.species)
                if (s.name == group) uniform_grid(x, f, s);
        x << "   </Grid>\n";
    }
    x << "  </Grid>\n </Domain>\n</Xdmf>\n";
    return x.str();
}

}  // namespace partikel::fmt
