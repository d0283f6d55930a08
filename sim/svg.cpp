#include "sim/svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sc::sim {

namespace {

std::string esc(const std::string &s) {
    std::string o;
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default: o += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
        }
    }
    return o;
}

// Tick positions: a step of 1, 2 or 5 times a power of ten giving about
// `want` ticks over [lo, hi].
std::vector<double> ticks(double lo, double hi, int want) {
    std::vector<double> t;
    if (!(hi > lo))
        return {lo};
    double raw = (hi - lo) / want;
    double p = std::pow(10.0, std::floor(std::log10(raw)));
    double step = p;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) {
            step = m * p;
            break;
        }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return t;
}

std::string num(double v) {
    if (v != 0 && (std::abs(v) >= 1e7 || std::abs(v) < 1e-3))
        return fmt::format("{:.3g}", v);
    return fmt::format("{:.6g}", v);
}

const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

} // namespace

std::string render_svg(const Plot &p) {
    const double W = 960, left = 80, right = 200, top = 40, ph = 180, gap = 50;
    const double pw = W - left - right;
    const double H = top + p.panels.size() * (ph + gap) + 20;
    double xlo = 0, xhi = 0;
    bool any = false;
    for (const auto &pn : p.panels)
        for (const auto &s : pn.series)
            for (const auto &pt : s.points) {
                if (!any)
                    xlo = xhi = pt.first, any = true;
                xlo = std::min(xlo, pt.first);
                xhi = std::max(xhi, pt.first);
            }
    if (xhi <= xlo)
        xhi = xlo + 1;
    std::string o = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"sans-serif\" font-size=\"11\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"{2}\" y=\"20\" font-size=\"14\">{3}</text>\n",
        W, H, left, esc(p.title));
    for (std::size_t k = 0; k < p.panels.size(); ++k) {
        const Panel &pn = p.panels[k];
        double y0 = top + k * (ph + gap);
        double ylo = 0, yhi = 0;
        bool first = true;
        for (const auto &s : pn.series)
            for (const auto &pt : s.points) {
                if (first)
                    ylo = yhi = pt.second, first = false;
                ylo = std::min(ylo, pt.second);
                yhi = std::max(yhi, pt.second);
            }
        ylo = std::min(ylo, 0.0);
        if (yhi <= ylo)
            yhi = ylo + 1;
        yhi += (yhi - ylo) * 0.05;
        auto X = [&](double x) { return left + (x - xlo) / (xhi - xlo) * pw; };
        auto Y = [&](double y) { return y0 + ph - (y - ylo) / (yhi - ylo) * ph; };
        o += fmt::format("<g>\n<text x=\"{}\" y=\"{}\" font-size=\"12\" font-weight=\"bold\">{}</text>\n", left,
                         y0 - 6, esc(pn.title));
        o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", left,
                         y0, pw, ph);
        for (double t : ticks(ylo, yhi, 5)) {
            double y = Y(t);
            o += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                             "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                             left, y, left + pw, y, left - 4, y + 4, num(t));
        }
        for (double t : ticks(xlo, xhi, 8)) {
            double x = X(t);
            o += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#444\"/>"
                             "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                             x, y0 + ph, x, y0 + ph + 4, x, y0 + ph + 16, num(t));
        }
        o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#444\">{}</text>\n", left + pw,
                         y0 + ph + 30, esc(p.x_label));
        for (std::size_t i = 0; i < pn.series.size(); ++i) {
            const Series &s = pn.series[i];
            const char *c = colors[i % 8];
            if (s.markers_only) {
                for (std::size_t q = 0; q < s.points.size(); ++q) {
                    double x = X(s.points[q].first), y = Y(s.points[q].second);
                    o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>", x, y, c);
                    if (q < s.labels.size())
                        o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" transform=\"rotate(-30 {:.1f} {:.1f})\">{}</text>",
                                         x + 5, y - 5, x + 5, y - 5, esc(s.labels[q].substr(0, 60)));
                    o += "\n";
                }
                o += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                                 left + pw + 20, y0 + 14 + 16 * i, c, left + pw + 34, y0 + 18 + 16 * i,
                                 esc(s.label.substr(0, 28)));
                continue;
            }
            // At most ~4 points per horizontal pixel: keep each bucket's
            // first, min, max and last, so no spike is lost.
            std::string pts;
            std::size_t n = s.points.size();
            double bucket = (xhi - xlo) / pw;
            std::size_t j = 0;
            while (j < n) {
                std::size_t e = j;
                double b = std::floor((s.points[j].first - xlo) / bucket);
                std::size_t mn = j, mx = j;
                while (e < n && std::floor((s.points[e].first - xlo) / bucket) == b) {
                    if (s.points[e].second < s.points[mn].second)
                        mn = e;
                    if (s.points[e].second > s.points[mx].second)
                        mx = e;
                    ++e;
                }
                std::size_t keep[4] = {j, std::min(mn, mx), std::max(mn, mx), e - 1};
                std::size_t last = n;
                for (std::size_t q : keep)
                    if (q != last) {
                        pts += fmt::format("{:.1f},{:.1f} ", X(s.points[q].first), Y(s.points[q].second));
                        last = q;
                    }
                j = e;
            }
            o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.3\"{} points=\"{}\"/>\n", c,
                             s.dashed || i > 0 ? " stroke-dasharray=\"6,3\"" : "", pts);
            o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>"
                             "<text x=\"{}\" y=\"{}\">{}</text>\n",
                             left + pw + 10, y0 + 14 + 16 * i, left + pw + 30, y0 + 14 + 16 * i, c, left + pw + 34,
                             y0 + 18 + 16 * i, esc(s.label.substr(0, 28)));
        }
        if (!pn.marker_label.empty()) {
            double x = X(pn.marker_x);
            o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"red\" "
                             "stroke-width=\"1.5\" stroke-dasharray=\"2,2\"/><text x=\"{0:.1f}\" y=\"{3}\" "
                             "fill=\"red\" text-anchor=\"middle\">{4}</text>\n",
                             x, y0, y0 + ph, y0 + 12, esc(pn.marker_label));
        }
        o += "</g>\n";
    }
    o += "</svg>\n";
    return o;
}

LineThinner::LineThinner(double lo, double hi, std::size_t buckets)
    : lo_(lo), width_(hi > lo ? (hi - lo) / double(std::max<std::size_t>(buckets, 1)) : 1.0) {}

void LineThinner::add(double x, double y) {
    long b = long(std::floor((x - lo_) / width_));
    Pt p{x, y};
    if (!open_ || b != bucket_) {
        close_bucket();
        open_ = true;
        bucket_ = b;
        first_ = low_ = high_ = last_ = p;
        return;
    }
    if (y < low_.second)
        low_ = p;
    if (y > high_.second)
        high_ = p;
    last_ = p;
}

void LineThinner::close_bucket() {
    if (!open_)
        return;
    open_ = false;
    std::vector<Pt> four = {first_, low_, high_, last_};
    std::stable_sort(four.begin(), four.end(), [](const Pt &a, const Pt &b) { return a.first < b.first; });
    for (const Pt &p : four)
        if (out_.empty() || out_.back() != p)
            out_.push_back(p);
}

std::vector<std::pair<double, double>> LineThinner::take() {
    close_bucket();
    std::vector<Pt> r;
    r.swap(out_);
    return r;
}

} // namespace sc::sim
