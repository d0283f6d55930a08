// Plain SVG line plots: stacked panels sharing one x axis, one polyline
// per series, ticks and labels on both axes.  No scripts, no external
// resources: a browser opens the file as it is.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sc::sim {

struct Series {
    std::string label;
    std::vector<std::pair<double, double>> points; // (x, y), x ascending
    bool dashed = false;
    // Points, not a line: one dot per point, each with its label (for
    // values that are not a time series, such as a trace's named values).
    bool markers_only = false;
    std::vector<std::string> labels;
};

struct Panel {
    std::string title;
    std::vector<Series> series;
    // A vertical marker (e.g. the failed step), when marker_label is set.
    double marker_x = 0;
    std::string marker_label;
};

struct Plot {
    std::string title;
    std::string x_label;
    std::vector<Panel> panels;
};

std::string render_svg(const Plot &p);

// A line of millions of points drawn in a few hundred pixels: per bucket
// (1/buckets of [lo, hi] in x) only its first, lowest, highest and last
// points are kept, in x order, so every spike still shows and the SVG
// stays small.  Points must come in ascending x.
class LineThinner {
  public:
    LineThinner(double lo, double hi, std::size_t buckets = 2000);
    void add(double x, double y);
    // The kept points; the thinner is empty afterwards.
    std::vector<std::pair<double, double>> take();

  private:
    void close_bucket();
    using Pt = std::pair<double, double>;
    double lo_, width_;
    long bucket_ = 0;
    bool open_ = false;
    Pt first_{}, low_{}, high_{}, last_{};
    std::vector<Pt> out_;
};

} // namespace sc::sim
