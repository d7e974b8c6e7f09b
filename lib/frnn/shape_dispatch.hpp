// Runtime SearchShape -> compile-time template argument, for host code that launches a kernel
// templated on the shape: with_shape(shape, [&](auto s) { run<decltype(s)::value>(...); }).
#pragma once

#include <type_traits>

#include "frnn/cell_grid.hpp"

namespace partikel::frnn {

template <SearchShape S> using ShapeTag = std::integral_constant<SearchShape, S>;

template <class F> void with_shape(SearchShape shape, F&& f) {
    switch (shape) {
        case SearchShape::tight: f(ShapeTag<SearchShape::tight>{}); break;
        case SearchShape::full: f(ShapeTag<SearchShape::full>{}); break;
        case SearchShape::cube: f(ShapeTag<SearchShape::cube>{}); break;
        case SearchShape::sphere: f(ShapeTag<SearchShape::sphere>{}); break;
        case SearchShape::ball: f(ShapeTag<SearchShape::ball>{}); break;
    }
}

}  // namespace partikel::frnn
