// Tolerances of compare-results: a global absolute/relative pair and per-name overrides.
//
// Two values a and b agree when |a - b| <= atol + rtol * max(|a|, |b|). The magnitude is the
// larger of the two so that comparing A with B and B with A give the same answer (numpy's
// isclose uses |b| and is not symmetric). For vectors |.| is the Euclidean norm.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace partikel::compare {

struct Tolerance {
    double atol = 0.0;   // absolute, in the column's stored unit
    double rtol = 0.0;   // relative to max(|a|, |b|)

    bool accepts(double difference, double magnitude) const { return difference <= atol + rtol * magnitude; }
    bool is_exact() const { return atol == 0.0 && rtol == 0.0; }
};

class ToleranceTable {
public:
    Tolerance global;

    // "name=atol:rtol", "name=atol" or "name=:rtol"; throws UsageError on anything else.
    void add_spec(std::string_view spec);
    void set(std::string name, Tolerance tolerance);

    // The tolerance for a column: "<group>/<name>" first, then "<name>", then the global pair.
    Tolerance lookup(std::string_view name, std::string_view group = {}) const;
    // The names given their own tolerance.
    std::vector<std::string> names() const;

private:
    std::map<std::string, Tolerance, std::less<>> by_name_;
};

}  // namespace partikel::compare
