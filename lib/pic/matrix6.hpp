// 6 x 6 transfer matrices on the coordinates (x, x', y, y', z, delta) (docs/PIC.md, "Coordinates
// and maps"), for building maps and computing optics on the host.
#pragma once

#include <array>

namespace partikel::pic {

struct Matrix6 {
    std::array<std::array<double, 6>, 6> m{};

    static Matrix6 identity() {
        Matrix6 r;
        for (int i = 0; i < 6; ++i) r.m[i][i] = 1.0;
        return r;
    }
    double& operator()(int row, int col) { return m[row][col]; }
    double operator()(int row, int col) const { return m[row][col]; }

    // (a * b) v = a (b v): `b` acts first.
    friend Matrix6 operator*(const Matrix6& a, const Matrix6& b) {
        Matrix6 r;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                double s = 0.0;
                for (int k = 0; k < 6; ++k) s += a.m[i][k] * b.m[k][j];
                r.m[i][j] = s;
            }
        return r;
    }
    std::array<double, 6> apply(const std::array<double, 6>& v) const {
        std::array<double, 6> r{};
        for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 6; ++k) r[i] += m[i][k] * v[k];
        return r;
    }
};

}  // namespace partikel::pic
