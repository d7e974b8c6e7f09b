#include "render/raster.hpp"

#include "core/dispatch.hpp"

namespace partikel::render {

TileBinner::TileBinner(const Backend& backend, std::size_t max_splats, const TileGrid& tiles, std::size_t pair_capacity)
    : backend_(backend),
      tiles_(tiles),
      max_splats_(max_splats),
      counts_(backend, max_splats + 1),
      offsets_(backend, max_splats + 1),
      tile_start_(backend, tiles.tiles() + 1) {
    with_exec(backend_, [&](const auto& exec) { reserve_pairs(exec, pair_capacity > 0 ? pair_capacity : 1); });
}

}  // namespace partikel::render
