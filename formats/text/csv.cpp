// CSV both ways (SPEC.md §4): a header row, one row per particle, vector columns as
// name_x, name_y, name_z; reals in shortest round-trip form so that text round trips are exact.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/system.hpp"
#include "base/error.hpp"
#include "formats/encodings.hpp"
#include "formats/openpmd/openpmd.hpp"
#include "formats/text/single_file.hpp"

namespace partikel::fmt {
namespace {

bool is_well_known_as(const Column& column) {
    const auto known = well_known_column(column.name());
    return known && known->type == column.type() && known->components == column.components();
}

void append_value(std::string& line, const Column& column, std::uint64_t row, std::uint32_t k) {
    char buf[64];
    const std::size_t i = static_cast<std::size_t>(row) * column.components() + k;
    const std::byte* p = column.raw().data() + i * scalar_size(column.type());
    auto emit = [&](auto v) {
        std::memcpy(&v, p, sizeof v);
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        line.append(buf, end);
    };
    switch (column.type()) {
    case ScalarType::u8: emit(std::uint8_t{}); break;
    case ScalarType::i32: emit(std::int32_t{}); break;
    case ScalarType::u32: emit(std::uint32_t{}); break;
    case ScalarType::i64: emit(std::int64_t{}); break;
    case ScalarType::u64: emit(std::uint64_t{}); break;
    case ScalarType::f32: emit(float{}); break;
    case ScalarType::f64: emit(double{}); break;
    }
}

class CsvWriter final : public SingleGroupWriter {
public:
    CsvWriter(const std::string& path, const WriterOptions& options)
        : SingleGroupWriter(path, "CSV", false, options.force), metadata_(options.csv_metadata) {}

protected:
    void write_group(OutputStream& out, const Frame& frame, const Group& group) override {
        std::string text;
        if (metadata_)
            text = "# step: " + std::to_string(frame.step) + "\n# time: " + shortest_text(frame.time) +
                   "\n# dt: " + shortest_text(frame.dt) + "\n# time_unit_si: " + shortest_text(frame.time_unit_si) +
                   "\n# group: " + group.name() + "\n";
        std::string header;
        for (const auto& column : group.columns()) {
            if (column.name().find_first_of(",:#\n\r\" ") != std::string::npos)
                throw UsageError(out.name() + ": column name " + quoted_excerpt(column.name()) + " cannot be a CSV field name");
            const bool plain = is_well_known_as(column);
            const Unit default_unit = plain ? well_known_column(column.name())->unit : Unit{};
            if (metadata_ && column.unit() != default_unit) {
                text += "# unit: " + column.name();
                for (double p : column.unit().dimension) text += " " + shortest_text(p);
                text += " " + shortest_text(column.unit().si_factor) + "\n";
            }
            for (const auto& field : field_names(column)) {
                if (!header.empty()) header += ',';
                header += field;
                if (metadata_ && !plain) header += ":" + std::string(scalar_name(column.type()));
            }
        }
        text += header + "\n";
        out.write(text.data(), text.size());
        std::string line;
        for (std::uint64_t row = 0; row < group.count(); ++row) {
            line.clear();
            for (const auto& column : group.columns())
                for (std::uint32_t k = 0; k < column.components(); ++k) {
                    if (!line.empty()) line += ',';
                    append_value(line, column, row, k);
                }
            line += '\n';
            out.write(line.data(), line.size());
        }
    }

private:
    bool metadata_;
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const auto comma = line.find(',', start);
        out.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) return out;
        start = comma + 1;
    }
}

template <class T> bool parse_number(std::string_view text, T& v) {
    const char* first = text.data();
    if (!text.empty() && text.front() == '+') ++first;
    auto [end, ec] = std::from_chars(first, text.data() + text.size(), v);
    return ec == std::errc() && end == text.data() + text.size() && first != end;
}

bool store_value(ScalarType type, std::string_view text, std::byte* dst) {
    auto go = [&](auto v) {
        if (!parse_number(text, v)) return false;
        std::memcpy(dst, &v, sizeof v);
        return true;
    };
    switch (type) {
    case ScalarType::u8: return go(std::uint8_t{});
    case ScalarType::i32: return go(std::int32_t{});
    case ScalarType::u32: return go(std::uint32_t{});
    case ScalarType::i64: return go(std::int64_t{});
    case ScalarType::u64: return go(std::uint64_t{});
    case ScalarType::f32: return go(float{});
    case ScalarType::f64: return go(double{});
    }
    return false;
}

struct Field {
    std::string name;                  // without the type suffix
    std::optional<ScalarType> type;    // from the suffix
};

struct CsvColumn {
    std::string name;
    std::uint32_t components;
    std::optional<ScalarType> type;
    std::size_t first_field;
};

// Groups header fields into columns: runs of name_x, name_y, name_z (or any component set of
// SPEC.md §1) become one column; a bare x, y, z run becomes `position`.
std::vector<CsvColumn> group_fields(const std::vector<Field>& fields) {
    std::vector<CsvColumn> columns;
    std::size_t i = 0;
    while (i < fields.size()) {
        bool matched = false;
        for (std::uint32_t c : {9u, 6u, 3u, 2u}) {
            const auto names = component_names(c);
            if (i + c > fields.size()) continue;
            const std::string& first = fields[i].name;
            const std::string suffix = "_" + names[0];
            if (first == "x" && c == 3 && fields[i + 1].name == "y" && fields[i + 2].name == "z" &&
                fields[i].type == fields[i + 1].type && fields[i].type == fields[i + 2].type) {
                columns.push_back({"position", 3, fields[i].type, i});
                i += 3;
                matched = true;
                break;
            }
            if (first.size() <= suffix.size() || first.compare(first.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
            const std::string base = first.substr(0, first.size() - suffix.size());
            bool all = true;
            for (std::uint32_t k = 0; k < c && all; ++k)
                all = fields[i + k].name == base + "_" + names[k] && fields[i + k].type == fields[i].type;
            if (all) {
                columns.push_back({base, c, fields[i].type, i});
                i += c;
                matched = true;
                break;
            }
        }
        if (matched) continue;
        // name_0, name_1, ... (component counts without names)
        const std::string& first = fields[i].name;
        if (first.size() > 2 && first.compare(first.size() - 2, 2, "_0") == 0) {
            const std::string base = first.substr(0, first.size() - 2);
            std::uint32_t c = 0;
            while (i + c < fields.size() && fields[i + c].name == base + "_" + std::to_string(c) && fields[i + c].type == fields[i].type) ++c;
            if (c >= 2) {
                columns.push_back({base, c, fields[i].type, i});
                i += c;
                continue;
            }
        }
        columns.push_back({fields[i].name, 1, fields[i].type, i});
        ++i;
    }
    return columns;
}

class CsvReader final : public FrameReader {
public:
    CsvReader(std::unique_ptr<InputStream> in, std::shared_ptr<ColumnMemory> memory)
        : in_(std::move(in)), memory_(std::move(memory)) {}

    std::optional<Frame> next() override {
        if (done_) return std::nullopt;
        done_ = true;
        return read();
    }
    std::optional<std::uint64_t> frame_count() const override { return 1; }
    Encoding encoding() const override { return Encoding::csv; }
    const std::string& name() const override { return in_->name(); }

private:
    [[noreturn]] void fail(std::size_t line, const std::string& what) const {
        throw FormatError(in_->name() + ": frame 0, line " + std::to_string(line) + ": " + what);
    }

    Frame read() {
        const std::string text = read_text(*in_, text_table_limit_bytes(), "CSV particle data");
        Frame frame;
        std::string group_name = "particles";
        std::map<std::string, Unit> units;
        std::vector<std::string_view> rows;
        std::vector<Field> fields;
        std::size_t header_line = 0, line_no = 0;
        std::size_t pos = 0;
        while (pos < text.size()) {
            auto end = text.find('\n', pos);
            if (end == std::string::npos) end = text.size();
            std::string_view line = trim(std::string_view(text).substr(pos, end - pos));
            pos = end + 1;
            ++line_no;
            if (line.empty()) continue;
            if (line.front() == '#') {
                if (header_line == 0) parse_comment(line, line_no, frame, group_name, units);
                continue;
            }
            if (header_line == 0) {
                header_line = line_no;
                for (auto f : split(line)) {
                    Field field;
                    const auto colon = f.find(':');
                    field.name = std::string(trim(f.substr(0, colon)));
                    if (colon != std::string_view::npos) {
                        field.type = parse_scalar_type(trim(f.substr(colon + 1)));
                        if (!field.type) fail(line_no, "unknown type in header field " + quoted_excerpt(f));
                    }
                    if (field.name.empty()) fail(line_no, "empty header field");
                    fields.push_back(std::move(field));
                }
                continue;
            }
            rows.push_back(line);
        }
        if (header_line == 0) fail(line_no, "no header row");
        const auto columns = group_fields(fields);
        Group& group = frame.add_group(group_name, rows.size());
        // Split every row once; keep the fields for the typed pass.
        std::vector<std::vector<std::string_view>> cells(rows.size());
        for (std::size_t r = 0; r < rows.size(); ++r) {
            cells[r] = split(rows[r]);
            if (cells[r].size() != fields.size())
                fail(line_of(text, rows[r]), std::to_string(cells[r].size()) + " fields, header has " + std::to_string(fields.size()));
        }
        for (const auto& c : columns) {
            ScalarType type;
            Unit unit;
            const auto known = well_known_column(c.name);
            if (c.type) type = *c.type;
            else if (known && known->components == c.components) type = known->type;
            else type = infer_type(cells, c);
            if (known && known->components == c.components) unit = known->unit;
            if (auto u = units.find(c.name); u != units.end()) unit = u->second;
            if (group.find(c.name)) fail(header_line, "column \"" + c.name + "\" appears twice");
            Column& column =
                group.add_column(Column(c.name, type, c.components, group.count(), unit, memory_for(memory_, group.name(), c.name)));
            const std::size_t w = scalar_size(type);
            for (std::size_t r = 0; r < rows.size(); ++r)
                for (std::uint32_t k = 0; k < c.components; ++k) {
                    const auto cell = cells[r][c.first_field + k];
                    if (!store_value(type, cell, column.raw().data() + (r * c.components + k) * w))
                        fail(line_of(text, rows[r]), quoted_excerpt(cell) + " is not a " + std::string(scalar_name(type)) +
                                                         " value for " + quoted_excerpt(fields[c.first_field + k].name));
                }
        }
        return frame;
    }

    static std::size_t line_of(const std::string& text, std::string_view row) {
        return 1 + static_cast<std::size_t>(std::count(text.data(), row.data(), '\n'));
    }

    static ScalarType infer_type(const std::vector<std::vector<std::string_view>>& cells, const CsvColumn& c) {
        for (const auto& row : cells)
            for (std::uint32_t k = 0; k < c.components; ++k)
                if (row[c.first_field + k].find_first_of(".eEnNiI") != std::string_view::npos) return ScalarType::f64;
        return ScalarType::i64;
    }

    void parse_comment(std::string_view line, std::size_t line_no, Frame& frame, std::string& group, std::map<std::string, Unit>& units) {
        line.remove_prefix(1);
        line = trim(line);
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) return;
        const std::string key(trim(line.substr(0, colon)));
        const std::string_view value = trim(line.substr(colon + 1));
        auto number = [&](auto& out) {
            if (!parse_number(value, out)) fail(line_no, "bad value for " + quoted_excerpt(key) + ": " + quoted_excerpt(value));
        };
        if (key == "step") number(frame.step);
        else if (key == "time") number(frame.time);
        else if (key == "dt") number(frame.dt);
        else if (key == "time_unit_si") number(frame.time_unit_si);
        else if (key == "group") group = std::string(value);
        else if (key == "unit") {
            std::vector<std::string_view> parts;
            std::size_t start = 0;
            while (start < value.size()) {
                auto sp = value.find(' ', start);
                if (sp == std::string_view::npos) sp = value.size();
                if (sp > start) parts.push_back(value.substr(start, sp - start));
                start = sp + 1;
            }
            if (parts.size() != 9) fail(line_no, "a unit comment is: # unit: <column> <7 dimension powers> <unitSI>");
            Unit unit;
            for (int i = 0; i < 7; ++i)
                if (!parse_number(parts[1 + i], unit.dimension[i])) fail(line_no, "bad unit dimension");
            if (!parse_number(parts[8], unit.si_factor)) fail(line_no, "bad unitSI");
            units[std::string(parts[0])] = unit;
        }
    }

    std::unique_ptr<InputStream> in_;
    std::shared_ptr<ColumnMemory> memory_;  // where wanted columns are parsed (reader.hpp)
    bool done_ = false;
};

}  // namespace

std::unique_ptr<FrameReader> make_csv_reader(std::unique_ptr<InputStream> in, std::shared_ptr<ColumnMemory> memory) {
    return std::make_unique<CsvReader>(std::move(in), std::move(memory));
}
std::unique_ptr<FrameWriter> make_csv_writer(const std::string& path, const WriterOptions& options) {
    return std::make_unique<CsvWriter>(path, options);
}

}  // namespace partikel::fmt
