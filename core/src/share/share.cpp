// Share (docs/share.md): the self-contained HTML page. The markup, style and script are the files of
// resources/share/, compiled in by cmake/AscvizEmbed.cmake; this file fills the page's slots and writes it.
#include "ascviz/share/share.h"

#include "ascviz/base/error.h"
#include "ascviz/base/version.h"
#include "ascviz/base/xml.h"

#include "share_assets.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <system_error>

namespace ascviz {

namespace fs = std::filesystem;

namespace {

std::string bytes(const unsigned char* data, std::size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

// Replaces the one occurrence of `slot` in `page` by `value` (the slots are the page template's; a missing one
// is a build error of the template, reported as such).
void fill(std::string& page, const std::string& slot, const std::string& value)
{
    const auto at = page.find(slot);
    if (at == std::string::npos)
        throw Error("resources/share/page.html has no slot " + slot);
    page.replace(at, slot.size(), value);
}

} // namespace

const std::string& shareAsset(const std::string& name)
{
    static const std::map<std::string, std::string> assets = {
        {"page.html", bytes(kPageHtml, kPageHtmlSize)},
        {"page.css", bytes(kPageCss, kPageCssSize)},
        {"page.js", bytes(kPageJs, kPageJsSize)},
    };
    const auto it = assets.find(name);
    if (it == assets.end())
        throw Error("no share asset " + name);
    return it->second;
}

std::string shareJsonText(const nlohmann::json& doc)
{
    // ensure_ascii off keeps CJK and emoji as UTF-8 (a third of the size of \u escapes); invalid UTF-8 in a
    // string is refused by dump (type_error 316) rather than written.
    const std::string raw = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    std::string out;
    out.reserve(raw.size() + raw.size() / 32);
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == '<') {
            out += "\\u003c"; // only inside strings: JSON has no '<' elsewhere
        } else if (c == '\xE2' && i + 2 < raw.size() && raw[i + 1] == '\x80' &&
                   (raw[i + 2] == '\xA8' || raw[i + 2] == '\xA9')) {
            out += raw[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

std::string shareHtml(const nlohmann::json& doc, SharePage page, const std::string& title)
{
    std::string html = shareAsset("page.html");
    fill(html, "@ASCVIZ_TITLE@", xmlEscape(title));
    fill(html, "@ASCVIZ_KIND@", page == SharePage::Run ? "run" : "snippet");
    fill(html, "/*@ASCVIZ_CSS@*/", shareAsset("page.css"));
    // The data before the script, so that the script finds it when it runs.
    fill(html, "@ASCVIZ_DATA@", shareJsonText(doc));
    fill(html, "/*@ASCVIZ_JS@*/", shareAsset("page.js"));
    return html;
}

void writeShareHtml(const fs::path& out, const nlohmann::json& doc, SharePage page, const std::string& title)
{
    std::error_code ec;
    const fs::path target = fs::absolute(out, ec);
    const fs::path dir = target.parent_path();
    if (ec || !fs::is_directory(dir, ec)) {
        ErrorContext c(out.string());
        c.remedy = Remedy::NewOutput;
        throw InputError("cannot write " + out.string() + ": the folder " + dir.string() + " does not exist", c);
    }
    if (fs::is_directory(target, ec)) {
        ErrorContext c(out.string());
        c.remedy = Remedy::NewOutput;
        throw InputError("cannot write " + out.string() + ": it is a folder", c);
    }
    std::string html;
    try {
        html = shareHtml(doc, page, title);
    } catch (const nlohmann::json::exception& e) {
        throw InputError("cannot write " + out.string() + ": the data is not valid UTF-8 JSON (" + e.what() + ")",
                         ErrorContext(out.string()));
    }
    if (html.size() > kMaxShareBytes)
        throw InputError("cannot write " + out.string() + ": the page would be " + std::to_string(html.size() >> 20) +
                             " MiB, over the limit of " + std::to_string(kMaxShareBytes >> 20) +
                             " MiB (docs/share.md: fewer layers or snippets)",
                         ErrorContext(out.string()));

    std::random_device rd;
    const fs::path tmp = dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd() % 1000000));
    auto fail = [&](const std::string& why) {
        fs::remove(tmp, ec);
        ErrorContext c(out.string());
        c.remedy = Remedy::NewOutput;
        throw InputError("cannot write " + out.string() + ": " + why, c);
    };
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f)
            fail("the folder " + dir.string() + " is not writable");
        f.write(html.data(), static_cast<std::streamsize>(html.size()));
        f.close();
        if (!f)
            fail("writing failed (disk full or a file size limit?)");
    }
    fs::rename(tmp, target, ec);
    if (ec)
        fail("renaming the temporary file failed: " + ec.message());
}

std::string sharedPathName(const std::string& path, bool fullPath)
{
    if (fullPath || path.empty())
        return path;
    fs::path p(path);
    while (!p.empty() && p.filename().empty()) // "dir/": the folder's own name
        p = p.parent_path();
    const std::string name = p.filename().string();
    return name.empty() ? path : name;
}

nlohmann::json shareSourceJson(const std::string& modelFingerprint, const std::string& source)
{
    return {
        {"ascviz_version", ascvizVersion()},
        {"model_fingerprint", modelFingerprint.empty() ? nlohmann::json(nullptr) : nlohmann::json(modelFingerprint)},
        {"source", source}};
}

} // namespace ascviz
