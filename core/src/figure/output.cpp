// A Figure written as SVG (text as <text>, no raster) and as PDF through Cairo (figure.h).
#include "ascviz/base/error.h"
#include "ascviz/figure/figure.h"
#include "ascviz/render/svg.h"

#include <cairo-pdf.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace ascviz {
namespace {

std::string num(double x)
{
    return svgNumber(x); // render/svg.h
}

std::string colour(Rgb c)
{
    return svgColour(c);
}

std::string escape(const std::string& s)
{
    return xmlEscape(s); // render/svg.h
}

std::string paint(const char* attr, const std::optional<Rgb>& c)
{
    return std::string(" ") + attr + "=\"" + (c ? colour(*c) : std::string("none")) + "\"";
}

struct SvgWriter {
    std::ostringstream& s;
    bool groupOpen = false;
    int gradients = 0; // ids ascviz-scale, ascviz-scale-2, ... (unique in the document)
    void operator()(const FigText& t)
    {
        s << "<text x=\"" << num(t.x) << "\" y=\"" << num(t.y) << "\" font-size=\"" << num(t.sizePt) << "\"";
        if (t.mono)
            s << " font-family=\"DejaVu Sans Mono, monospace\" xml:space=\"preserve\"";
        if (t.bold)
            s << " font-weight=\"bold\"";
        if (t.anchor != TextAnchor::Start)
            s << " text-anchor=\"" << (t.anchor == TextAnchor::Middle ? "middle" : "end") << "\"";
        if (t.color.r != 0 || t.color.g != 0 || t.color.b != 0)
            s << " fill=\"" << colour(t.color) << "\"";
        if (t.rotate != 0)
            s << " transform=\"rotate(" << num(t.rotate) << ' ' << num(t.x) << ' ' << num(t.y) << ")\"";
        s << '>' << escape(t.text) << "</text>\n";
    }
    void operator()(const FigRect& r)
    {
        std::string gradientId;
        if (!r.gradient.empty()) { // its definition just before the rect that fills with it
            gradientId = "ascviz-scale" + (gradients ? "-" + std::to_string(gradients + 1) : std::string());
            ++gradients;
            s << "<defs><linearGradient id=\"" << gradientId << "\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"0\">";
            const std::size_t n = r.gradient.size();
            for (std::size_t k = 0; k < n; ++k)
                s << "<stop offset=\"" << num(n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0.0)
                  << "\" stop-color=\"" << colour(r.gradient[k]) << "\"/>";
            s << "</linearGradient></defs>\n";
        }
        s << "<rect x=\"" << num(r.x) << "\" y=\"" << num(r.y) << "\" width=\"" << num(std::max(r.w, 0.0))
          << "\" height=\"" << num(std::max(r.h, 0.0)) << "\"";
        if (r.radius > 0)
            s << " rx=\"" << num(r.radius) << "\"";
        if (gradientId.empty())
            s << paint("fill", r.fill);
        else
            s << " fill=\"url(#" << gradientId << ")\"";
        if (r.stroke)
            s << paint("stroke", r.stroke) << " stroke-width=\"" << num(r.strokeWidth) << "\"";
        if (r.dashed)
            s << " stroke-dasharray=\"" << num(r.strokeWidth * 2) << ' ' << num(r.strokeWidth) << "\"";
        if (r.tooltip.empty())
            s << "/>\n";
        else
            s << "><title>" << escape(r.tooltip) << "</title></rect>\n";
    }
    void operator()(const FigLine& l)
    {
        s << "<line x1=\"" << num(l.x1) << "\" y1=\"" << num(l.y1) << "\" x2=\"" << num(l.x2) << "\" y2=\"" << num(l.y2)
          << "\" stroke=\"" << colour(l.stroke) << "\" stroke-width=\"" << num(l.width) << "\"";
        if (l.dashed)
            s << " stroke-dasharray=\"" << num(l.width * 3) << ' ' << num(l.width * 2) << "\"";
        s << "/>\n";
    }
    void operator()(const FigPath& p)
    {
        s << "<path d=\"";
        for (const auto& op : p.ops) {
            s << op.op;
            for (std::size_t k = 0; k < op.xy.size(); ++k)
                s << (k ? " " : "") << num(op.xy[k]);
            s << ' ';
        }
        s << "\"" << paint("fill", p.fill);
        if (p.stroke)
            s << paint("stroke", p.stroke) << " stroke-width=\"" << num(p.width) << "\"";
        if (p.dashed)
            s << " stroke-dasharray=\"" << num(p.width * 3) << ' ' << num(p.width * 2) << "\"";
        s << "/>\n";
    }
    void operator()(const FigGroup& g)
    {
        if (groupOpen)
            s << "</g>\n";
        groupOpen = !g.attributes.empty();
        if (groupOpen) {
            s << "<g";
            for (const auto& [k, v] : g.attributes)
                s << ' ' << k << "=\"" << escape(v) << "\"";
            s << ">";
            if (!g.tooltip.empty())
                s << "<title>" << escape(g.tooltip) << "</title>";
            s << "\n";
        }
    }
};

void setColour(cairo_t* cr, Rgb c)
{
    cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void fillAndStroke(cairo_t* cr, const std::optional<Rgb>& fill, const std::optional<Rgb>& stroke, double width,
                   bool dashed)
{
    if (fill) {
        setColour(cr, *fill);
        if (stroke)
            cairo_fill_preserve(cr);
        else
            cairo_fill(cr);
    }
    if (stroke) {
        setColour(cr, *stroke);
        cairo_set_line_width(cr, width);
        if (dashed) {
            const double d[2] = {width * 2, width};
            cairo_set_dash(cr, d, 2, 0);
        }
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
    }
    cairo_new_path(cr);
}

struct PdfPainter {
    cairo_t* cr;
    void operator()(const FigText& t)
    {
        cairo_save(cr);
        cairo_select_font_face(cr, t.mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                               t.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_font_size(cr, t.sizePt);
        const double w = measureText(t.text, t.sizePt, t.bold, t.mono);
        const double dx = t.anchor == TextAnchor::Start ? 0 : (t.anchor == TextAnchor::Middle ? -w / 2 : -w);
        cairo_translate(cr, t.x, t.y);
        if (t.rotate != 0)
            cairo_rotate(cr, t.rotate * M_PI / 180.0);
        cairo_move_to(cr, dx, 0);
        setColour(cr, t.color);
        cairo_show_text(cr, t.text.c_str());
        cairo_restore(cr);
    }
    void operator()(const FigRect& r)
    {
        if (r.radius > 0) {
            const double rad = std::min({r.radius, r.w / 2, r.h / 2});
            cairo_new_sub_path(cr);
            cairo_arc(cr, r.x + r.w - rad, r.y + rad, rad, -M_PI / 2, 0);
            cairo_arc(cr, r.x + r.w - rad, r.y + r.h - rad, rad, 0, M_PI / 2);
            cairo_arc(cr, r.x + rad, r.y + r.h - rad, rad, M_PI / 2, M_PI);
            cairo_arc(cr, r.x + rad, r.y + rad, rad, M_PI, 3 * M_PI / 2);
            cairo_close_path(cr);
        } else {
            cairo_rectangle(cr, r.x, r.y, std::max(r.w, 0.0), std::max(r.h, 0.0));
        }
        if (!r.gradient.empty()) {
            std::unique_ptr<cairo_pattern_t, decltype(&cairo_pattern_destroy)> g(
                cairo_pattern_create_linear(r.x, 0, r.x + r.w, 0), cairo_pattern_destroy);
            const std::size_t n = r.gradient.size();
            for (std::size_t k = 0; k < n; ++k)
                cairo_pattern_add_color_stop_rgb(
                    g.get(), n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0.0, r.gradient[k].r / 255.0,
                    r.gradient[k].g / 255.0, r.gradient[k].b / 255.0);
            cairo_set_source(cr, g.get());
            cairo_fill_preserve(cr);
            fillAndStroke(cr, std::nullopt, r.stroke, r.strokeWidth, r.dashed);
            return;
        }
        fillAndStroke(cr, r.fill, r.stroke, r.strokeWidth, r.dashed);
    }
    void operator()(const FigLine& l)
    {
        cairo_move_to(cr, l.x1, l.y1);
        cairo_line_to(cr, l.x2, l.y2);
        fillAndStroke(cr, std::nullopt, l.stroke, l.width, l.dashed);
    }
    void operator()(const FigPath& p)
    {
        for (const auto& op : p.ops) {
            if (op.op == 'M' && op.xy.size() >= 2)
                cairo_move_to(cr, op.xy[0], op.xy[1]);
            else if (op.op == 'L' && op.xy.size() >= 2)
                cairo_line_to(cr, op.xy[0], op.xy[1]);
            else if (op.op == 'C' && op.xy.size() >= 6)
                cairo_curve_to(cr, op.xy[0], op.xy[1], op.xy[2], op.xy[3], op.xy[4], op.xy[5]);
            else if (op.op == 'Z')
                cairo_close_path(cr);
        }
        fillAndStroke(cr, p.fill, p.stroke, p.width, p.dashed);
    }
    void operator()(const FigGroup&) {}
};

cairo_status_t appendBytes(void* closure, const unsigned char* data, unsigned int length)
{
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

} // namespace

std::string figureToSvg(const Figure& f)
{
    std::ostringstream s;
    s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\""
      << (f.pixelUnits ? num(f.widthPt) : num(f.widthPt / kPointsPerMm) + "mm") << "\" height=\""
      << (f.pixelUnits ? num(f.heightPt) : num(f.heightPt / kPointsPerMm) + "mm") << "\" viewBox=\"0 0 "
      << num(f.widthPt) << ' ' << num(f.heightPt)
      << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" fill=\"#111111\">\n"
      << "<title>" << escape(f.title) << "</title>\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << num(f.widthPt) << "\" height=\"" << num(f.heightPt)
      << "\" fill=\"#ffffff\"/>\n";
    SvgWriter w{s};
    for (const auto& item : f.items)
        std::visit(w, item);
    if (w.groupOpen)
        s << "</g>\n";
    s << "</svg>\n";
    return s.str();
}

std::string figureToPdf(const Figure& f)
{
    std::string out;
    std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
        cairo_pdf_surface_create_for_stream(appendBytes, &out, f.widthPt, f.heightPt), cairo_surface_destroy);
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        throw Error(std::string("Cairo: cannot create a PDF surface: ") +
                    cairo_status_to_string(cairo_surface_status(surface.get())));
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, f.title.c_str());
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "AsC-Viz");
    {
        std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(cairo_create(surface.get()), cairo_destroy);
        cairo_set_source_rgb(cr.get(), 1, 1, 1);
        cairo_paint(cr.get());
        PdfPainter p{cr.get()};
        for (const auto& item : f.items)
            std::visit(p, item);
        cairo_show_page(cr.get());
        if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
            throw Error(std::string("Cairo: drawing the PDF failed: ") +
                        cairo_status_to_string(cairo_status(cr.get())));
    }
    cairo_surface_finish(surface.get());
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        throw Error(std::string("Cairo: writing the PDF failed: ") +
                    cairo_status_to_string(cairo_surface_status(surface.get())));
    return out;
}

std::string figureToPng(const Figure& f, double dpi)
{
    // The same painter as the PDF on an image surface: what the page looks like printed at `dpi`.
    const double scale = dpi / 72.0;
    const int w = std::max(1, static_cast<int>(std::ceil(f.widthPt * scale)));
    const int h = std::max(1, static_cast<int>(std::ceil(f.heightPt * scale)));
    std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h), cairo_surface_destroy);
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        throw Error(std::string("Cairo: cannot create an image surface: ") +
                    cairo_status_to_string(cairo_surface_status(surface.get())));
    {
        std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(cairo_create(surface.get()), cairo_destroy);
        cairo_set_source_rgb(cr.get(), 1, 1, 1);
        cairo_paint(cr.get());
        cairo_scale(cr.get(), scale, scale);
        PdfPainter p{cr.get()};
        for (const auto& item : f.items)
            std::visit(p, item);
    }
    std::string out;
    if (cairo_surface_write_to_png_stream(surface.get(), appendBytes, &out) != CAIRO_STATUS_SUCCESS)
        throw Error("Cairo: writing the PNG failed");
    return out;
}

void writeFigure(const Figure& f, const std::filesystem::path& file, bool pdf)
{
    const std::string bytes = pdf ? figureToPdf(f) : figureToSvg(f);
    std::ofstream o(file, std::ios::binary | std::ios::trunc);
    o.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    o.close();
    if (!o)
        throw InputError("cannot write the figure " + file.string(), ErrorContext(file.string()));
}

} // namespace ascviz
