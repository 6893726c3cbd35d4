// The stored runs of `analyze heads` over a corpus (docs/cli.md): a heads run database (results/headsdb.h: the
// run's settings, then one record per text), written by the corpus-run engine (corpusrun/engine.h) one text per
// transaction; a run continues after the texts it holds (--resume) and the databases of shards are tallied
// together (--from) or merged (`ascviz-cli merge`). The JSON Lines partial files of earlier builds (format
// "ascviz-heads-partial", version 1: a header line, then one line per text) are still read, read-only.
#pragma once
#include "ascviz/attention/headreport.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
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

// The settings as the heads run database's meta (results/headsdb.h); `plannedTexts` (when > 0) is how many texts
// the run (its shard) set out to analyze, which lets `--from` say when a run holds fewer.
std::map<std::string, std::string> headRunMeta(const HeadRunSettings& s, int plannedTexts = 0);
nlohmann::json textRecordJson(const TextRecord& t);
// Throws InputError naming `where` ("file:line") for a line that is not a text record.
TextRecord textRecordFromJson(const nlohmann::json& j, const std::string& where);

// The longest line a partial file may have: one text's record (its edges x layers x heads ranks, two hex
// digits each); a 32 KiB text scored by a model of 5,000 heads is some 80 MB.
inline constexpr std::size_t kMaxPartialLineBytes = std::size_t{256} << 20;

// Reads a heads run database (or a JSON Lines partial file of an earlier build) into `tally` (when not null) and
// returns its settings and the ids it holds. For a database, InputError naming the file (and the text) for
// settings or a record that are not a run's or a record the tally refuses. For a JSON Lines file: throws
// InputError naming the file and line for a malformed line, a missing header, a line over
// kMaxPartialLineBytes, or a record the tally refuses (HeadTally::add). A record is written with its line
// break in one write, so a last line without a line break that is not JSON is a record a killed run (or a full
// disk) cut short: it is dropped, and `warning` says so (the caller shows it).
struct PartialContents {
    HeadRunSettings settings;
    std::set<std::string> ids;
    std::string warning;              // "" or what was dropped (file:line)
    std::size_t tornLine = 0;         // the line dropped (0: none)
    std::uintmax_t completeBytes = 0; // JSON Lines: the bytes of the file up to the end of its last whole line
    bool endsWithNewline = true;      // JSON Lines: false when the last kept line has no line break
    int plannedTexts = 0;             // the texts the run set out to analyze (0: not recorded)
    bool database = false;            // a heads run database (false: a JSON Lines partial file)
};
PartialContents readHeadPartial(const std::filesystem::path& file, HeadTally* tally);
// A JSON Lines partial file from a stream (`file` names it in messages), lines limited to `maxLineBytes`.
PartialContents readHeadPartial(std::istream& in, const std::filesystem::path& file, HeadTally* tally,
                                std::size_t maxLineBytes = kMaxPartialLineBytes);

// The run databases (or partial files) of one run or of its shards tallied together (`analyze heads --from`, Python's
// heads): the tally, the first file's settings (every file's model, metric, corpus, layers and max k must be the same)
// and the warnings of a report over part of the corpus (a cut last line, a run that holds fewer texts than it planned,
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

} // namespace ascviz
