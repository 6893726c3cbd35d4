// Attention heads vs relations over a corpus (method.md §11): per relation type, the rank histogram of every
// (layer, head) and the offset and keyword hits of every edge, gathered text by text; the best head per
// relation, the greedy offset/keyword/combined baselines, Diff and the model's score; JSON and the paper's
// Tables 3 and 6 as LaTeX. No torch.
#pragma once
#include "ascviz/attention/headscore.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz {

// One baseline prediction: the token `offset` positions before the query, or the nearest earlier token whose
// text is `keyword`.
struct BaselineChoice {
    bool isKeyword = false;
    int offset = 0;
    std::string keyword;
    bool operator<(const BaselineChoice& o) const; // offsets (ascending) before keywords (by text)
    bool operator==(const BaselineChoice& o) const = default;
    std::string label() const; // "2" or "if"
};

// The edge data a baseline needs: the choices that would hit it.
using BaselineHits = std::vector<BaselineChoice>;

// Greedy max coverage (the paper's rule): up to `maxK` choices, each the one adding the most edges not yet
// hit (ties: BaselineChoice order); stops early when nothing adds any. `coverage[i]` = edges hit by the first
// i + 1 choices.
struct GreedyResult {
    std::vector<BaselineChoice> choices;
    std::vector<int> coverage;
    // Fraction of `count` hit by the first k choices (all chosen ones when fewer).
    double score(int k, int count) const;
};
GreedyResult greedyBaseline(const std::vector<BaselineHits>& edges, int maxK, bool offsets, bool keywords);

struct HeadPick {
    int layer = 0, head = 0;
    double score = 0; // fraction
};

struct RelationHeads {
    std::string type;
    int count = 0;                          // edges scored
    int outsideWindow = 0;                  // edges left out: their query's window did not reach the head
    double meanOffset = 0;                  // mean token offset (dependent's first token − head's first token)
    HeadPick best;                          // chosen by the first k, then the next ...
    std::vector<double> bestScores;         // that head's score at each k
    std::vector<HeadPick> bestPerK;         // the best head at each k (the relation's score at that k)
    GreedyResult offset, keyword, combined; // baselines
    std::vector<double> offsetScores, keywordScores, combinedScores, diff; // per k; diff = bestPerK − best baseline
};

struct HeadReport {
    std::string model, language, metric;
    // "codesyntax" (the paper's relations over words, method.md §11) or "fields" (the generic relations over
    // tokens); table6: the paper's Table 6 relation types (paper mode), in its order.
    std::string relationSet = "fields";
    std::vector<std::string> table6;
    std::vector<int> topK;
    int minCount = 0, texts = 0, layers = 0, heads = 0;
    std::vector<RelationHeads> relations;          // count >= minCount, by type
    std::vector<std::pair<std::string, int>> rare; // types under minCount, with their counts
    // Means over the relations kept, per k: the model (best head per relation), the offset, keyword and combined
    // baselines and the best baseline per relation.
    std::vector<double> modelScore, offsetScore, keywordScore, combinedScore, baselineScore;
    // What the reader should know about the texts it covers (a shard missing, a run cut short), set by the
    // caller that tallied them; JSON "warnings".
    std::vector<std::string> warnings;
};

// What one text adds to a tally: per edge its type, offset, ranks [layer * heads + head] and baseline hits; per
// type the edges left out by the window rule. A resumable or sharded run stores these (headpartial.h).
struct EdgeRecord {
    std::string type;
    int offset = 0;
    std::vector<uint8_t> ranks;
    BaselineHits hits;
};
struct TextRecord {
    std::string id;
    std::vector<EdgeRecord> edges;
    std::map<std::string, int> outside;
};

// The corpus-wide tally, filled text by text.
class HeadTally {
public:
    // Bounds on what a tally holds, since partial files are input (a crafted header or record must not make it
    // allocate without limit): the ranks of one edge (layers x heads; the largest models have about 10,000),
    // and the histogram cells of the whole tally (relation types x layers x heads x max k, 4 bytes each:
    // 512 MiB).
    static constexpr std::size_t kMaxHeadCells = 16384;
    static constexpr std::size_t kMaxHistogramCells = std::size_t{1} << 27;

    // `maxK`: the largest k to be asked for (ranks at or above it count as misses); `keywords`: the words of
    // the keyword baseline (the language's keywords).
    HeadTally(int layers, int maxK, std::vector<std::string> keywords);

    // One scored text: its relations (tokens attached), the texts of its tokens and the scorer that observed
    // its attention. Edges the scorer left out count in outsideWindow only.
    void add(const std::vector<Relation>& relations, const std::vector<std::string>& tokenTexts,
             const HeadScorer& scored);
    // The same in two steps: the text's record (kept by resumable runs), then its addition. Throws InputError
    // for ranks that do not fit the tally's layers and heads, more than kMaxHeadCells ranks, a negative count
    // of edges left out or a tally that would pass kMaxHistogramCells (the tally is then unchanged).
    TextRecord record(std::string id, const std::vector<Relation>& relations,
                      const std::vector<std::string>& tokenTexts, const HeadScorer& scored) const;
    void add(const TextRecord& text);
    int texts() const { return m_texts; }
    int heads() const { return m_heads; }
    int layers() const { return m_layers; }
    // Every relation type seen, sorted, with its edge count.
    std::vector<std::pair<std::string, int>> typeCounts() const;
    // The score of every head for one type at top-k: [layer * heads + head] (empty for an unknown type).
    std::vector<double> headScores(const std::string& type, int k) const;
    HeadReport report(const std::vector<int>& topK, int minCount) const;

private:
    struct TypeTally {
        int count = 0, outside = 0;
        double offsetSum = 0;
        std::vector<int> histogram; // [layer][head][rank < maxK]
        std::vector<BaselineHits> hits;
    };
    int m_layers = 0, m_heads = 0, m_maxK = 0, m_texts = 0;
    std::size_t m_cells = 0;             // histogram cells allocated, over all types
    std::vector<std::string> m_keywords; // sorted
    std::map<std::string, TypeTally> m_types;
};

// The hits of the offset and keyword baselines for one edge: offsets query − t and the keywords of targets t
// that are the nearest earlier token with their (whitespace-trimmed) text.
BaselineHits baselineHits(const HeadEdge& edge, const std::vector<std::string>& tokenTexts,
                          const std::vector<std::string>& sortedKeywords);

// analyze heads --json (docs/cli.md).
nlohmann::json headReportJson(const HeadReport& r);
// The paper's Table 3 (baselines, model and Diff per k) and Table 6 (per relation: the model's top-1 score, the
// best offset's score and that offset, Diff), booktabs.
std::string headTable3Latex(const HeadReport& r);
std::string headTable6Latex(const HeadReport& r);
// The paper's Tables 3, 5 and 6 in its layout (Table 5: Table 3 under the any-token metric; Table 6: per
// relation the model's and the best offset's top-1 score, that offset and the difference, sorted by the
// difference; in paper mode the paper's seven relation types, else every type kept). Markdown or LaTeX;
// InputError for another table number.
std::string headPaperTable(const HeadReport& r, int table, bool latex);
// A plain-text table for the terminal.
std::string headReportText(const HeadReport& r);

} // namespace ascviz
