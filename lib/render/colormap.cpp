#include "render/colormap.hpp"

#include <algorithm>
#include <cmath>

#include "base/error.hpp"

namespace partikel::render {

namespace {

// sRGB values at t = k / 32, k = 0..32. viridis, magma and inferno are sampled (linear
// interpolation) from the 256-entry tables of matplotlib's _cm_listed.py, which their authors
// released under CC0; interpolating these 33 entries stays within 1.7/255 of the full tables.
// coolwarm is Moreland's (2009) interpolation in his Msh space from (59, 76, 192) through
// (221, 221, 221) to (180, 4, 38), the 33 entries of that paper's table.
constexpr float kViridis[33][3] = {
    {0.2670f, 0.0049f, 0.3294f}, {0.2770f, 0.0502f, 0.3755f}, {0.2823f, 0.0946f, 0.4170f},
    {0.2829f, 0.1354f, 0.4530f}, {0.2789f, 0.1749f, 0.4830f}, {0.2708f, 0.2133f, 0.5066f},
    {0.2593f, 0.2507f, 0.5244f}, {0.2454f, 0.2867f, 0.5370f}, {0.2302f, 0.3213f, 0.5455f},
    {0.2148f, 0.3545f, 0.5510f}, {0.2000f, 0.3864f, 0.5545f}, {0.1861f, 0.4173f, 0.5567f},
    {0.1733f, 0.4474f, 0.5579f}, {0.1613f, 0.4770f, 0.5581f}, {0.1497f, 0.5064f, 0.5573f},
    {0.1384f, 0.5358f, 0.5551f}, {0.1281f, 0.5651f, 0.5509f}, {0.1209f, 0.5945f, 0.5442f},
    {0.1203f, 0.6238f, 0.5343f}, {0.1310f, 0.6529f, 0.5208f}, {0.1554f, 0.6815f, 0.5032f},
    {0.1930f, 0.7096f, 0.4812f}, {0.2415f, 0.7366f, 0.4545f}, {0.2986f, 0.7624f, 0.4230f},
    {0.3629f, 0.7867f, 0.3866f}, {0.4330f, 0.8091f, 0.3453f}, {0.5081f, 0.8292f, 0.2992f},
    {0.5873f, 0.8470f, 0.2489f}, {0.6694f, 0.8622f, 0.1954f}, {0.7529f, 0.8751f, 0.1427f},
    {0.8359f, 0.8861f, 0.1025f}, {0.9166f, 0.8961f, 0.1008f}, {0.9932f, 0.9062f, 0.1439f},
};
constexpr float kMagma[33][3] = {
    {0.0015f, 0.0005f, 0.0139f}, {0.0136f, 0.0117f, 0.0684f}, {0.0394f, 0.0309f, 0.1330f},
    {0.0738f, 0.0518f, 0.2018f}, {0.1124f, 0.0653f, 0.2756f}, {0.1581f, 0.0684f, 0.3512f},
    {0.2104f, 0.0622f, 0.4173f}, {0.2640f, 0.0601f, 0.4609f}, {0.3151f, 0.0712f, 0.4848f},
    {0.3643f, 0.0896f, 0.4976f}, {0.4128f, 0.1096f, 0.5045f}, {0.4614f, 0.1291f, 0.5076f},
    {0.5105f, 0.1473f, 0.5077f}, {0.5603f, 0.1645f, 0.5049f}, {0.6108f, 0.1809f, 0.4990f},
    {0.6619f, 0.1971f, 0.4895f}, {0.7132f, 0.2139f, 0.4762f}, {0.7640f, 0.2324f, 0.4590f},
    {0.8135f, 0.2542f, 0.4381f}, {0.8600f, 0.2814f, 0.4142f}, {0.9013f, 0.3165f, 0.3899f},
    {0.9348f, 0.3609f, 0.3699f}, {0.9592f, 0.4135f, 0.3599f}, {0.9755f, 0.4709f, 0.3635f},
    {0.9859f, 0.5300f, 0.3801f}, {0.9923f, 0.5891f, 0.4072f}, {0.9959f, 0.6477f, 0.4423f},
    {0.9973f, 0.7057f, 0.4835f}, {0.9970f, 0.7633f, 0.5296f}, {0.9954f, 0.8205f, 0.5798f},
    {0.9928f, 0.8776f, 0.6335f}, {0.9898f, 0.9346f, 0.6904f}, {0.9871f, 0.9914f, 0.7495f},
};
constexpr float kInferno[33][3] = {
    {0.0015f, 0.0005f, 0.0139f}, {0.0139f, 0.0112f, 0.0716f}, {0.0420f, 0.0280f, 0.1406f},
    {0.0815f, 0.0432f, 0.2144f}, {0.1285f, 0.0473f, 0.2896f}, {0.1823f, 0.0405f, 0.3539f},
    {0.2370f, 0.0366f, 0.3956f}, {0.2894f, 0.0453f, 0.4182f}, {0.3399f, 0.0618f, 0.4292f},
    {0.3897f, 0.0803f, 0.4331f}, {0.4393f, 0.0986f, 0.4317f}, {0.4889f, 0.1164f, 0.4259f},
    {0.5386f, 0.1339f, 0.4157f}, {0.5882f, 0.1516f, 0.4011f}, {0.6375f, 0.1704f, 0.3822f},
    {0.6858f, 0.1910f, 0.3591f}, {0.7328f, 0.2143f, 0.3321f}, {0.7776f, 0.2414f, 0.3016f},
    {0.8195f, 0.2728f, 0.2685f}, {0.8578f, 0.3090f, 0.2333f}, {0.8918f, 0.3500f, 0.1965f},
    {0.9210f, 0.3954f, 0.1584f}, {0.9451f, 0.4448f, 0.1188f}, {0.9640f, 0.4974f, 0.0776f},
    {0.9774f, 0.5526f, 0.0380f}, {0.9855f, 0.6100f, 0.0245f}, {0.9879f, 0.6692f, 0.0596f},
    {0.9847f, 0.7296f, 0.1222f}, {0.9759f, 0.7909f, 0.1973f}, {0.9623f, 0.8522f, 0.2867f},
    {0.9486f, 0.9109f, 0.3962f}, {0.9518f, 0.9608f, 0.5247f}, {0.9884f, 0.9984f, 0.6449f},
};
constexpr float kCoolwarm[33][3] = {
    {0.2314f, 0.2980f, 0.7529f}, {0.2676f, 0.3525f, 0.8008f}, {0.3050f, 0.4060f, 0.8444f},
    {0.3438f, 0.4582f, 0.8832f}, {0.3838f, 0.5089f, 0.9169f}, {0.4250f, 0.5577f, 0.9452f},
    {0.4672f, 0.6042f, 0.9679f}, {0.5101f, 0.6479f, 0.9845f}, {0.5533f, 0.6886f, 0.9952f},
    {0.5965f, 0.7259f, 0.9997f}, {0.6394f, 0.7594f, 0.9981f}, {0.6814f, 0.7888f, 0.9903f},
    {0.7223f, 0.8138f, 0.9765f}, {0.7615f, 0.8342f, 0.9569f}, {0.7987f, 0.8497f, 0.9317f},
    {0.8335f, 0.8602f, 0.9011f}, {0.8654f, 0.8654f, 0.8654f}, {0.8979f, 0.8490f, 0.8209f},
    {0.9243f, 0.8274f, 0.7746f}, {0.9447f, 0.8010f, 0.7268f}, {0.9591f, 0.7699f, 0.6781f},
    {0.9676f, 0.7343f, 0.6288f}, {0.9703f, 0.6945f, 0.5794f}, {0.9671f, 0.6506f, 0.5302f},
    {0.9583f, 0.6031f, 0.4817f}, {0.9440f, 0.5520f, 0.4340f}, {0.9243f, 0.4976f, 0.3876f},
    {0.8994f, 0.4398f, 0.3428f}, {0.8695f, 0.3786f, 0.2997f}, {0.8349f, 0.3131f, 0.2585f},
    {0.7959f, 0.2415f, 0.2196f}, {0.7528f, 0.1574f, 0.1830f}, {0.7059f, 0.0157f, 0.1490f},
};

}  // namespace

ColourMap parse_colour_map(const std::string& name) {
    if (name == "viridis") return ColourMap::viridis;
    if (name == "magma") return ColourMap::magma;
    if (name == "inferno") return ColourMap::inferno;
    if (name == "coolwarm") return ColourMap::coolwarm;
    if (name == "grey" || name == "gray") return ColourMap::grey;
    throw UsageError("unknown colour map '" + name + "' (viridis, magma, inferno, coolwarm or grey)");
}

const char* colour_map_name(ColourMap map) {
    switch (map) {
        case ColourMap::viridis: return "viridis";
        case ColourMap::magma: return "magma";
        case ColourMap::inferno: return "inferno";
        case ColourMap::coolwarm: return "coolwarm";
        case ColourMap::grey: return "grey";
    }
    return "?";
}

float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : float(std::pow((double(c) + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float c) {
    if (!(c > 0.0f)) return 0.0f;
    if (c >= 1.0f) return 1.0f;
    return c <= 0.0031308f ? 12.92f * c : float(1.055 * std::pow(double(c), 1.0 / 2.4) - 0.055);
}

ColourTable make_colour_table(ColourMap map, float lo, float hi) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
        throw UsageError("colour range must be finite with min <= max, got " + std::to_string(lo) + ".." +
                         std::to_string(hi));
    const float(*srgb)[3] = map == ColourMap::viridis   ? kViridis
                            : map == ColourMap::magma   ? kMagma
                            : map == ColourMap::inferno ? kInferno
                            : map == ColourMap::coolwarm ? kCoolwarm
                                                         : nullptr;
    ColourTable table;
    for (int k = 0; k < ColourTable::kEntries; ++k)
        for (int c = 0; c < 3; ++c) {
            const float s = srgb ? srgb[k][c] : float(k) / float(ColourTable::kEntries - 1);
            table.rgb[k][c] = srgb_to_linear(s);
        }
    table.lo = lo;
    table.scale = hi > lo ? float(double(ColourTable::kEntries - 1) / (double(hi) - double(lo))) : 0.0f;
    return table;
}

std::pair<float, float> percentile_range(std::span<const float> values, double lo_fraction, double hi_fraction,
                                         std::vector<float>& scratch) {
    if (!(lo_fraction >= 0.0 && lo_fraction <= hi_fraction && hi_fraction <= 1.0))
        throw UsageError("percentiles must satisfy 0 <= low <= high <= 100");
    scratch.clear();
    for (const float v : values)
        if (std::isfinite(v)) scratch.push_back(v);
    if (scratch.empty()) return {0.0f, 1.0f};
    const auto rank = [&](double fraction) {
        return std::min(scratch.size() - 1, std::size_t(std::llround(fraction * double(scratch.size() - 1))));
    };
    const std::size_t i_lo = rank(lo_fraction), i_hi = rank(hi_fraction);
    std::nth_element(scratch.begin(), scratch.begin() + std::ptrdiff_t(i_lo), scratch.end());
    const float lo = scratch[i_lo];
    std::nth_element(scratch.begin() + std::ptrdiff_t(i_lo), scratch.begin() + std::ptrdiff_t(i_hi), scratch.end());
    return {lo, scratch[i_hi]};
}

}  // namespace partikel::render
