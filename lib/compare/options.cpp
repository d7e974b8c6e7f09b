#include "compare/options.hpp"

#include <algorithm>
#include <string>

#include "base/error.hpp"

namespace partikel::compare {

bool CompareOptions::selected(std::string_view column) const {
    const auto named = [&](const std::vector<std::string>& names) {
        return std::find(names.begin(), names.end(), column) != names.end();
    };
    return (only_columns.empty() || named(only_columns)) && !named(ignore_columns);
}

void CompareOptions::check_names(const std::set<std::string>& names, std::string_view kind) const {
    const auto known = [&](const std::string& name) { return names.count(name) != 0; };
    const auto refuse = [&](const std::string& flag, const std::string& name) {
        std::string listed;
        std::size_t shown = 0;
        for (const std::string& n : names) {
            if (kind == "particles" && n.find('/') != std::string::npos) continue;  // GROUP/NAME: listed plain
            if (shown++ == 12) {
                listed += ", ...";
                break;
            }
            listed += (listed.empty() ? "" : ", ") + n;
        }
        const char* what = kind == "image" ? "channel" : "column";
        throw UsageError(flag + " " + name + ": no " + what + " of that name in A or B (" +
                         (listed.empty() ? std::string("they have none") : "they have " + listed) + ")");
    };
    for (const std::string& name : only_columns)
        if (!known(name)) refuse("--columns", name);
    for (const std::string& name : ignore_columns)
        if (!known(name)) refuse("--ignore", name);
    for (const std::string& name : tolerances.names())
        if (!known(name)) refuse("--tol", name);
    if (id_column_given) {
        if (kind != "particles") throw UsageError("--id-column pairs particles; " + std::string(kind) + "s pair " +
                                                  (kind == "table" ? "rows by --key" : "pixels by position"));
        if (!known(id_column)) refuse("--id-column", id_column);
    }
}

}  // namespace partikel::compare
