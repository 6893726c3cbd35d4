// The partial file of a resumable or sharded `analyze heads` run (docs/cli.md): JSON Lines, a header line
// with the run's settings, then one line per text (its TextRecord). A run continues after the texts it holds
// (--resume); the partial files of shards are tallied together (--from), as batch's shards are merged.
#pragma once
#include "ascviz/attention/headreport.h"

#include <filesystem>
#include <istream>
#include <set>
#include <string>

namespace ascviz {

struct HeadRunSettings {
    std::string model, language, metric, corpus; // corpus: Corpus::fingerprint()
    int layers = 0, maxK = 0;
    std::string shard; // "I/N" or ""
    bool operator==(const HeadRunSettings&) const = default;
};

nlohmann::json headRunSettingsJson(const HeadRunSettings& s);
nlohmann::json textRecordJson(const TextRecord& t);
// Throws InputError naming `where` ("file:line") for a line that is not a text record.
TextRecord textRecordFromJson(const nlohmann::json& j, const std::string& where);

// Reads a partial file into `tally` (when not null) and returns its settings and the ids it holds. Throws
// InputError naming the file and line for a malformed line, a missing header, or a truncated last line (which
// a killed run may leave: it is reported, not skipped silently).
struct PartialContents {
    HeadRunSettings settings;
    std::set<std::string> ids;
};
PartialContents readHeadPartial(const std::filesystem::path& file, HeadTally* tally);
// The same from a stream (`file` names it in messages).
PartialContents readHeadPartial(std::istream& in, const std::filesystem::path& file, HeadTally* tally);

} // namespace ascviz
