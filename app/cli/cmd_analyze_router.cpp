// analyze: the one router of its subcommands and the table it routes by, from which both help texts are
// generated — a subcommand added here is routed and listed in `ascviz-cli --help` and `analyze --help` at once.
#include "commands.h"

#include <algorithm>
#include <sstream>

namespace ascviz::cli {

namespace {

int analyzeTreatments(Args& args)
{
    return analyzeTreatmentsCommand(args, args.value("--out"));
}

// Writes `text` with every line after the first indented by `indent` spaces.
std::string continued(const std::string& text, std::size_t indent)
{
    std::string out;
    for (const char c : text) {
        out += c;
        if (c == '\n')
            out += std::string(indent, ' ');
    }
    return out;
}

} // namespace

const std::vector<AnalyzeSubcommand>& analyzeSubcommands()
{
    static const std::vector<AnalyzeSubcommand> table = {
        {"causal", "--db RESULTS [--by global|category|concept] [--confounders a,b]",
         "AsC-Causal (method.md 7): rho of T = AsC-Eval with Y = cross-entropy and the confounders,\n"
         "             the effect of T by OLS back-door adjustment (se, 95% CI), refutations\n"
         "    --db A.db[,B.db]   --by global|category|concept   T per category / concept too (absent: excluded);\n"
         "                       default global\n"
         "    --min-snippets N   groups with fewer snippets get rho only (default 10)   --seed S   refutation draws\n"
         "    --confounders a,b  adjust for these only (tokens, ast_nodes, ast_levels, cyclomatic; default all)\n"
         "    --simulations N    simulations per refuter, with p-values (default 100; 0 = one draw each)\n"
         "    --json             the JSON of docs/cli.md (default: a text table)   --latex FILE   Table II (booktabs)\n"
         "    --concepts paper|T1,T2   --names N1,N2   with several --db: the paper's Table II layout (--latex)\n",
         false, cmdAnalyzeCausal},
        {"perplexed", "--db RESULTS [--min-count K]",
         "PERPLEXED (method.md 10): CE per token text and AST label, worst and best, calls, ERROR\n"
         "    --db RESULTS   --min-count K (default 5)   --top N (default 20)   --json; the unfiltered top 10 and\n"
         "    Spearman rho\n"
         "    --corpus FILE|DIR  the snippets' repositories and files for Table 1 (default: the run's corpus)\n"
         "    --no-call-table    leave Table 1 out\n",
         false, cmdAnalyzePerplexed},
        {"heatmap", "--db A.db[,B.db...] --svg OUT [--latex OUT] [--allow-different-corpus]",
         "categories x result databases, coloured by the bootstrapped median\n"
         "    --db A.db,B.db   --names N1,N2   --svg FILE   --latex FILE (the comparison, Table I layout)\n"
         "    --table1 FILE [--types T1,T2]   the paper's Table I, a row per model (grouped by type)\n"
         "    each database is labelled with its model and the settings that differ (θ, dtype, categories,\n"
         "    corpus; a one-line warning names them); databases of different corpora are refused unless\n"
         "    --allow-different-corpus\n",
         false, cmdAnalyzeHeatmap},
        {"experts",
         "(--db R | --corpus C --model M) [--language L] [--limit N] [--json] [--out F] [--svg OUT] [--pdf OUT]",
         "a mixture-of-experts model's routing by category (method.md 15): per category, sparse\n"
         "             layer and expert the share of the category's tokens routed there, and each category's\n"
         "             specialisation (KL divergence from the corpus-wide routing, bits)\n"
         "    --db RESULTS | --corpus C --model M   --language L   --limit N   --json   --out FILE\n"
         "    --svg OUT | --pdf OUT: the category x expert heat map per sparse layer (small multiples), or\n"
         "                 --layer L alone; --width-mm W --font-pt P --no-title --legend right|bottom|none\n",
         true, cmdAnalyzeExperts},
        {"heads",
         "--model M --corpus C [--relations codesyntax|fields] [--top-k 1,3,10,20] [--metric first|last|any]\n"
         "[--min-count N] [--json | --table 3|5|6 | --latex OUT] [--partial P.db [--resume]] [--shard I/N]\n"
         "| heads --from P1,P2",
         "attention heads vs syntax relations (method.md 11): best head per relation, offset and\n"
         "             keyword baselines (greedy for k >= 2), Diff, the model's score\n"
         "    --model M --corpus C|default   --top-k 1,3,10,20   --metric first|last|any   --min-count N (20)\n"
         "    --relations codesyntax: the paper's 43 relation types + children over words, the metric on\n"
         "                 the dependent block (the default for Python); fields: the grammar's field pairs\n"
         "                 over tokens (the default for other languages)\n"
         "    --table 3|5|6: the paper's table in its layout (5: --metric any)   --json\n"
         "    --latex FILE (Tables 3 and 6; with --table that table)   --limit N   --shard I/N   --language L\n"
         "    --partial P.db [--resume]: the run's heads database (one row per snippet), continued by\n"
         "                 --resume; merge --out ALL.db P0.db P1.db joins shards; --from P1,P2: tally the\n"
         "                 databases (or old JSON Lines partial files) without a model\n"
         "    --svg OUT | --pdf OUT [--relation TYPE]: the layer x head heat map (default: the model score),\n"
         "                 with --width-mm W --font-pt P --no-title --legend right|bottom|none\n",
         true, cmdAnalyzeHeads},
        {"treatments", "--db RUNS [--outcome Y] [--confounders a,b] [--json] [--latex OUT]",
         "Galeras (method.md 12): per treatment vs control, the ATE by OLS Y ~ 1 + D + Z (se, 95% CI)\n"
         "             and refutations with p-values, and the descriptive table, over a `galeras run` database\n"
         "    --db RUNS   --outcome Y  levenshtein (default), bleu4, exact_match, ast_match, codebleu,\n"
         "                          asc_eval\n"
         "    --confounders a,b  of prompt_size, n_whitespaces, token_count, nloc, ast_nodes, ast_levels,\n"
         "                 cyclomatic (default the paper's four: prompt_size, n_whitespaces, token_count, nloc),\n"
         "                 or a numeric field of the records   --simulations N (0: no refuters)   --seed S\n"
         "    --json   --latex FILE\n"
         "    --svg OUT | --pdf OUT   the outcomes' distributions per treatment (box plots), with the figure\n"
         "                 options --width-mm W --font-pt P --no-title --legend right|bottom|none\n",
         false, analyzeTreatments},
        {"calibration",
         "--db RESULTS [--confidence p1|ntp|entropy|topk-entropy|margin] [--by global|category] [--bins N]\n"
         "[--json] [--svg OUT | --pdf OUT] [--latex FILE]",
         "is the model right when it is sure (method.md 17): per group (all tokens; --by category: each\n"
         "             category's tokens) ECE (equal width and equal mass), MCE, Brier, AUROC and AUPRC of the\n"
         "             confidence as a predictor of an error (teacher-forced: the actual token is not the top-1)\n"
         "    --db RESULTS (a batch run of schema 5 or later: the tokens' uncertainty)\n"
         "    --confidence p1 (default; ECE, MCE and Brier apply to p1 only), ntp, entropy, topk-entropy, margin\n"
         "    --by global|category   --bins N (default 15, equal width)   --json (default: a text table)\n"
         "    --resamples N (default 500)   --seed S   --resample snippets|tokens: the bootstrap's unit\n"
         "    --svg OUT | --pdf OUT   the reliability diagrams (p1), one panel per group, with the figure\n"
         "                 options --width-mm W --font-pt P --no-title --legend right|bottom|none\n"
         "    --latex FILE   the groups as a booktabs table\n",
         false, cmdAnalyzeCalibration},
        {"layers", "(--db RESULTS | --corpus C --model M) [--json] [--latex OUT] [--svg OUT] [--pdf OUT]",
         "(--db RESULTS | --corpus C [--model M]): the layer lens (method.md 13) on every snippet, AsC-Eval\n"
         "             per category and concept at every layer (bootstrapped medians) and the first layer reaching\n"
         "             --fraction F of the final value (default 0.9), and the median commitment layer (method.md\n"
         "             14.3: \"commit\"); --limit N  --resamples N  --seed S\n"
         "             --aggregation A  --language L  --quiet\n"
         "             --json  --latex FILE  --svg FILE | --pdf FILE (category x layer heat map; --width-mm W\n"
         "             --font-pt P --no-title --legend right|bottom|none)\n",
         true, cmdAnalyzeLayers},
    };
    return table;
}

std::string analyzeSubcommandList()
{
    const auto& table = analyzeSubcommands();
    std::string out;
    for (std::size_t i = 0; i < table.size(); ++i)
        out += std::string(i == 0 ? "" : i + 1 == table.size() ? " or " : ", ") + table[i].name;
    return out;
}

std::string analyzeUsageLines()
{
    std::ostringstream o;
    bool first = true;
    for (const auto& s : analyzeSubcommands()) {
        o << (first ? "  analyze  " : "           | ") << s.name << ' ' << continued(s.synopsis, 13) << '\n';
        first = false;
    }
    return o.str();
}

std::string analyzeHelp()
{
    std::ostringstream o;
    o << "usage: ascviz-cli analyze ";
    for (const auto& s : analyzeSubcommands())
        o << s.name << (&s == &analyzeSubcommands().back() ? "" : "|");
    o << " [options]\n";
    for (const auto& s : analyzeSubcommands()) {
        std::string name = s.name;
        name.resize(std::max<std::size_t>(name.size() + 1, 11), ' ');
        o << "  " << name << s.help;
    }
    o << "  --out FILE         write the JSON / text there instead of stdout\n";
    return o.str();
}

int cmdAnalyzeAll(Args& args)
{
    const auto sub = args.subcommand();
    if (!sub)
        throw UsageError("analyze needs a subcommand: " + analyzeSubcommandList());
    for (const auto& s : analyzeSubcommands())
        if (*sub == s.name)
            return s.run(args);
    throw UsageError("unknown analyze subcommand '" + *sub + "' (" + analyzeSubcommandList() + ")");
}

} // namespace ascviz::cli
