// Reading back what a figure wrote: every font-size of an SVG, the page size of a PDF.
#pragma once
#include <regex>
#include <string>
#include <vector>

namespace figtest {

inline std::vector<double> svgFontSizes(const std::string& svg)
{
    std::vector<double> out;
    const std::regex re("font-size=\"([0-9.]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
        out.push_back(std::stod((*it)[1]));
    return out;
}

// The first number of width="..mm" in the <svg> element; -1 when absent.
inline double svgWidthMm(const std::string& svg)
{
    std::smatch m;
    if (std::regex_search(svg, m, std::regex("<svg[^>]* width=\"([0-9.]+)mm\"")))
        return std::stod(m[1]);
    return -1;
}

// The MediaBox width and height in points (Cairo writes "/MediaBox [ 0 0 W H ]"); {-1, -1} when absent.
inline std::pair<double, double> pdfMediaBox(const std::string& pdf)
{
    std::smatch m;
    if (std::regex_search(pdf, m, std::regex("/MediaBox \\[ *0 +0 +([0-9.]+) +([0-9.]+) *\\]")))
        return {std::stod(m[1]), std::stod(m[2])};
    return {-1, -1};
}

} // namespace figtest
