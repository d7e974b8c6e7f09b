// The XDMF side file (SPEC.md §3): lets ParaView's XDMF reader open openPMD particle data.
#include <charconv>
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
    // XDMF 2 readers (ParaView's among them) know no 64-bit unsigned type; ids below 2^63 read
    // the same as signed.
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

std::string shortest(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
}

void data_item(std::ostringstream& x, const std::string& indent, const std::string& path, ScalarType type, std::uint64_t n) {
    x << indent << "<DataItem Format=\"HDF\" Dimensions=\"" << n << "\" " << number_type(type) << ">"
      << xml_escape(path) << "</DataItem>\n";
}

}  // namespace

std::string xdmf_document(const std::vector<XdmfFrame>& frames) {
    std::ostringstream x;
    x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"2.0\">\n <Domain>\n"
      << "  <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (const auto& f : frames) {
        x << "   <Grid Name=\"step_" << f.step << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
          << "    <Time Value=\"" << shortest(f.time_s) << "\"/>\n";
        for (const auto& s : f.species) {
            const auto* position = [&]() -> const XdmfFrame::Species::Record* {
                for (const auto& r : s.records)
                    if (r.name == "position" && r.components == 3) return &r;
                return nullptr;
            }();
            if (!position) continue;  // XDMF grids need 3-D point coordinates
            const std::string base = f.file + ":/data/" + std::to_string(f.step) + "/particles/" + s.name + "/";
            x << "    <Grid Name=\"" << xml_escape(s.name) << "\" GridType=\"Uniform\">\n"
              << "     <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << s.count << "\" NodesPerElement=\"1\"/>\n"
              << "     <Geometry GeometryType=\"X_Y_Z\">\n";
            for (const char* c : {"x", "y", "z"}) data_item(x, "      ", base + "position/" + c, position->type, s.count);
            x << "     </Geometry>\n";
            for (const auto& r : s.records) {
                if (&r == position) continue;
                const auto names = component_names(r.components);
                if (r.components == 1) {
                    x << "     <Attribute Name=\"" << xml_escape(r.name) << "\" AttributeType=\"Scalar\" Center=\"Node\">\n";
                    data_item(x, "      ", base + r.name, r.type, s.count);
                    x << "     </Attribute>\n";
                    continue;
                }
                // XDMF's own component orders: Vector x y z; Tensor6 xx xy xz yy yz zz; Tensor row-major.
                std::vector<std::string> order;
                std::string kind;
                if (r.components == 3) { kind = "Vector"; order = names; }
                else if (r.components == 6) { kind = "Tensor6"; order = {"xx", "xy", "xz", "yy", "yz", "zz"}; }
                else if (r.components == 9) { kind = "Tensor"; order = names; }
                if (kind.empty()) {
                    for (const auto& c : names) {
                        x << "     <Attribute Name=\"" << xml_escape(r.name + "_" + c) << "\" AttributeType=\"Scalar\" Center=\"Node\">\n";
                        data_item(x, "      ", base + r.name + "/" + c, r.type, s.count);
                        x << "     </Attribute>\n";
                    }
                    continue;
                }
                std::string args;
                for (std::size_t k = 0; k < order.size(); ++k) args += (k ? ", $" : "$") + std::to_string(k);
                x << "     <Attribute Name=\"" << xml_escape(r.name) << "\" AttributeType=\"" << kind << "\" Center=\"Node\">\n"
                  << "      <DataItem ItemType=\"Function\" Function=\"JOIN(" << args << ")\" Dimensions=\"" << s.count
                  << " " << order.size() << "\">\n";
                for (const auto& c : order) data_item(x, "       ", base + r.name + "/" + c, r.type, s.count);
                x << "      </DataItem>\n     </Attribute>\n";
            }
            x << "    </Grid>\n";
        }
        x << "   </Grid>\n";
    }
    x << "  </Grid>\n </Domain>\n</Xdmf>\n";
    return x.str();
}

}  // namespace partikel::fmt
