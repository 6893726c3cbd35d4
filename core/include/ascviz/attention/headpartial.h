// The partial file of a resumable or sharded `analyze heads` run (docs/cli.md): JSON Lines, a header line
// with the run's settings, then one line per text (its TextRecord). A run continues after the texts it holds
// (--resume); the partial files of shards are tallied together (--from), as batch's shards are merged.
#pragma once
#include "ascviz/attention/headreport.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

struct HeadRunSettings {
    std::string model, language, metric, corpus; // corpus: Corpus::fingerprint()
    int layers = 0, maxK = 0;
    std::string shard;                // "I/N" or ""
    std::string relations = "fields"; // "codesyntax" or "fields" (a header without it: fields)
    bool operator==(const HeadRunSettings&) const = default;
};

// The header line; `plannedTexts` (when > 0) is how many texts the run (its shard) set out to analyze, which
// lets `--from` say when a partial file holds fewer.
nlohmann::json headRunSettingsJson(const HeadRunSettings& s, int plannedTexts = 0);
nlohmann::json textRecordJson(const TextRecord& t);
// Throws InputError naming `where` ("file:line") for a line that is not a text record.
TextRecord textRecordFromJson(const nlohmann::json& j, const std::string& where);

// The longest line a partial file may have: one text's record (its edges x layers x heads ranks, two hex
// digits each); a 32 KiB text scored by a model of 5,000 heads is some 80 MB.
inline constexpr std::size_t kMaxPartialLineBytes = std::size_t{256} << 20;

// Reads a partial file into `tally` (when not null) and returns its settings and the ids it holds. Throws
// InputError naming the file and line for a malformed line, a missing header, a line over
// kMaxPartialLineBytes, or a record the tally refuses (HeadTally::add). A record is written with its line
// break in one write, so a last line without a line break that is not JSON is a record a killed run (or a full
// disk) cut short: it is dropped, and `warning` says so (the caller shows it; a resumed run truncates the file
// to `completeBytes` before it appends).
struct PartialContents {
    HeadRunSettings settings;
    std::set<std::string> ids;
    std::string warning;              // "" or what was dropped (file:line)
    std::size_t tornLine = 0;         // the line dropped (0: none)
    std::uintmax_t completeBytes = 0; // the bytes of the file up to the end of its last whole line
    bool endsWithNewline = true;      // false: the last kept line has no line break (append one first)
    int plannedTexts = 0;             // the header's "texts" (0: not recorded)
};
PartialContents readHeadPartial(const std::filesystem::path& file, HeadTally* tally);
// The same from a stream (`file` names it in messages), lines limited to `maxLineBytes`.
PartialContents readHeadPartial(std::istream& in, const std::filesystem::path& file, HeadTally* tally,
                                std::size_t maxLineBytes = kMaxPartialLineBytes);

// The partial files of one run or of its shards tallied together (`analyze heads --from`, Python's heads): the
// tally, the first file's settings (every file's model, metric, corpus, layers and max k must be the same) and the
// warnings of a report over part of the corpus (a cut last line, a run that holds fewer texts than it planned,
// shards missing). InputError for a file of other settings, a shard or a text given twice, shards of different
// splits, or no file.
struct HeadPartialsTally {
    std::optional<HeadTally> tally;
    HeadRunSettings settings;
    std::vector<std::string> warnings;
};
HeadPartialsTally tallyHeadPartials(const std::vector<std::string>& files);
// The report of tallied partial files (`analyze heads --from`): the tally's report at `topK` / `minCount` with the
// runs' model, language, metric, relation set (and the paper's Table 6 types in paper mode) and the tally's
// warnings. The caller checks that no k exceeds settings.maxK.
HeadReport headPartialsReport(HeadPartialsTally& tallied, const std::vector<int>& topK, int minCount);

// Appends the lines of a partial file, each with its line break in one write(2), so that a run killed at any
// moment leaves whole lines and at most one cut last line (which the reader drops); a short write is
// continued. A write that fails (a full disk, a file size limit) throws InputError naming the file and the
// system's reason: the run must not go on as if its records were kept.
class HeadPartialWriter {
public:
    // Opens `file` for appending (creating it). `resumed`: what readHeadPartial() read of it; a cut last line
    // is cut off (the file truncated to its completeBytes) and a missing final line break added.
    HeadPartialWriter(const std::filesystem::path& file, const PartialContents* resumed);
    ~HeadPartialWriter();
    HeadPartialWriter(const HeadPartialWriter&) = delete;
    HeadPartialWriter& operator=(const HeadPartialWriter&) = delete;
    void append(const nlohmann::json& line);

private:
    void writeAll(const std::string& bytes);
    std::filesystem::path m_file;
    int m_fd = -1;
};

} // namespace ascviz
