// Share (issue 46, docs/share.md): one self-contained interactive HTML file per result or per run. The page's
// script and style (resources/share/) are compiled into the library; the data is embedded as the JSON a
// reader can extract (<script type="application/json" id="ascviz-data">). Nothing is read at run time and the
// page fetches nothing. Plain C++: the caller builds the JSON document (docs/share.md: `eval --json`'s
// document for a snippet, {"kind": "run", ...} for a run).
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>

namespace ascviz {

enum class SharePage { Snippet, Run };

// The largest page written (a snippet of the editor's longest text with every layer fits; docs/share.md).
inline constexpr std::size_t kMaxShareBytes = std::size_t{256} << 20;

// The JSON text of `doc` for a <script type="application/json"> element: UTF-8, every '<' written as \u003c (so
// neither "</script>" nor "<!--" can end or change the element), U+2028 and U+2029 as \u2028 and \u2029. JSON.parse
// of the element's text gives `doc` back.
std::string shareJsonText(const nlohmann::json& doc);

// How a shared page names a file it came from (its source, a run's model folder and corpus): the file's name only
// unless `fullPath` — a page sent to a colleague must not reveal the sender's folders (issue 54). "" stays "".
std::string sharedPathName(const std::string& path, bool fullPath = false);

// The page's "share" object (docs/share.md): {"ascviz_version", "model_fingerprint" (null when empty), "source"}.
nlohmann::json shareSourceJson(const std::string& modelFingerprint, const std::string& source);

// The whole page. `title` is the page's title (escaped here).
std::string shareHtml(const nlohmann::json& doc, SharePage page, const std::string& title);

// Writes the page to `out` through a temporary file in the same folder, renamed over `out` when complete: a
// failure leaves no half-written page (and no temporary file). Throws InputError naming the path when the
// folder does not exist or cannot be written, or when the page would exceed kMaxShareBytes.
void writeShareHtml(const std::filesystem::path& out, const nlohmann::json& doc, SharePage page,
                    const std::string& title);

// The page's assets as compiled in (for tests and the docs): "page.html", "page.css", "page.js".
const std::string& shareAsset(const std::string& name);

} // namespace ascviz
