// ascviz-cli: the scripting interface of AsC-Viz (docs/cli.md). Exit 0 success, 2 usage error, 1 failure
// with a one-line reason on stderr.
#include "commands.h"
#include "common.h"

#include "ascviz/model/loadoptions.h"

#include <csignal>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

// `ascviz-cli --help`: kUsageHead, the analyze lines (generated from the analyze table), kUsageTail.
const char* kUsageHead =
    "usage: ascviz-cli <command> [options]      (ascviz-cli <command> --help: that command's options)\n"
    "commands:\n"
    "  --version                                   version, libtorch version and build, CUDA availability\n"
    "  models [--json]                             the model families it runs and the options each honours\n"
    "  tokenize (--tokenizer FILE | --model M) --text-file F\n"
    "  score    --model M --text-file F\n"
    "  generate --model M --prompt-file F --max-new-tokens N [--greedy | --temperature T --top-p P --top-k K --seed "
    "S]\n"
    "           [--ignore-eos]\n"
    "  parse    [--language L] --text-file F\n"
    "  node-types [--language L]\n"
    "  extract  --language L --node-types T[,T] --source P[,P] --out FILE [--sample N --seed S]\n"
    "  eval     --model M --text-file F [--prompt-bytes N] [--aggregation median|mean|max|min] [--layers]\n"
    "           [--ablate-heads L.H,... [--ablation zero|mean]]\n"
    "  render   --model M --text-file F --view complete|partial|sequence --svg OUT\n"
    "  batch    --model M --corpus FILE --db RESULTS [--limit N] [--resume] [--batch-size B] [--shard I/N]\n"
    "  merge    --out ALL.db SHARD.db...\n"
    "  slurm    submit --model M --corpus C --shards N --out DIR [--partition P] [--gres G] [--time T]\n"
    "           [--sbatch-extra LINE] [--dry-run] | status DIR [--watch S] | resume DIR\n"
    "  report   --db RESULTS [--json | --csv DIR] [--min-n N]\n"
    "  export-html (--model M --text-file F [--prompt-bytes N] | --scores F | --session S) --out X.html\n"
    "           [--layers] [--attribution NODE] [--heads] [--experts] | --db RESULTS --out run.html [--limit N]\n";
const char* kUsageTail =
    "  relations [--language L] --text-file F [--model M] [--json]\n"
    "  galeras  run --model M --records FILE|default --testbed randomcut|withdocstring|fromdocstring\n"
    "           --treatments F|default --db RUNS [--resume] [--seed S] [--max-new-tokens N] [--stop-at-function-end]\n"
    "           | testbed --records FILE --testbed T [--seed S] | merge --out ALL.db SHARD.db...\n"
    "  ablate   --model M --corpus C (--heads L.H,... | --relation R --top N | --experts L.E,...) [--relation R]\n"
    "           [--control random --draws K] [--json]\n"
    "  probe    --rewrite rename|spacing --model M --corpus C [--json]\n"
    "  attribute --model M --text-file F --prompt-bytes N [--target NODE|all] [--method "
    "occlusion|gradxinput|surrogate]\n"
    "           [--faithfulness]\n"
    "  study    init --corpus FILE --samples N --participants P --out STUDY.json [--conditions C,S1,S2,S3] [--seed S]\n"
    "           | render --study STUDY.json --participant ID --trial K --png OUT\n"
    "           | report --responses FILE [--json | --csv DIR] | export --responses FILE --csv OUT\n"
    "  figure   categories|distribution|treemap|heatmap|likert --db R [--db R2...] --svg OUT | --pdf OUT\n"
    "           [--width-mm W] [--font-pt P] [--no-title] [--legend right|bottom|none]\n";

// The model options, their values listed from core's one table of load options (model/loadoptions.h).
std::string modelOptionsHelp()
{
    using namespace ascviz;
    return "  --model M          a Hugging Face model folder; ORG/NAME = a model in the local Hugging Face cache\n"
           "                     ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; offline);\n"
           "                     default = the bundled ascviz-tiny-code (the default)\n"
           "  --device D         " +
           loadOptionChoices<Device>() +
           " (auto: CUDA when available)\n"
           "  --dtype T          " +
           loadOptionChoices<Dtype>() +
           "\n"
           "                     (auto: float32 on every device; bfloat16-matmul: CPU only, float32 except the\n"
           "                     linear layers' products, faster)\n"
           "  --weights W        " +
           loadOptionChoices<Weights>() +
           ": checkpoint keeps a bfloat16/float16 checkpoint's weights\n"
           "                     in their dtype, memory-mapped, computing in float32 (CPU); auto does so when their\n"
           "                     float32 copy would not fit in the available memory\n"
           "  --threads N        CPU threads for libtorch (0 = all cores)\n";
}

// The usage's closing lines: the common options, their values from the same table.
std::string commonOptionsHelp()
{
    using namespace ascviz;
    const auto bars = [](std::vector<std::string> names) {
        std::string out;
        for (const auto& n : names)
            out += (out.empty() ? "" : "|") + n;
        return out;
    };
    return "common options: --model DIR|ORG/NAME|default, --device " + bars(loadOptionNames<Device>()) + ", --dtype " +
           bars(loadOptionNames<Dtype>()) + ",\n                --weights " + bars(loadOptionNames<Weights>()) +
           ", --threads N, --out FILE; text files must be UTF-8 ('-' = stdin)\n"
           "exit status: 0 success, 2 usage error, 1 any other failure (one line on stderr)\n";
}

const char* kEvalOptions =
    "  --text-file F      the code (UTF-8; '-' = stdin)\n"
    "  --scores F         score JSON (from score/generate) instead of running a model\n"
    "  --prompt-bytes N   the first N bytes are the prompt (the rest counts as generated)\n"
    "  --aggregation A    θ over a node's token NtPs: median (default), mean, max or min\n"
    "  --aggregation-scope tokens|children   θ over a node's own tokens (default) or, as the paper's\n"
    "                     Fig. 2-C, over its children's values (method.md 4)\n"
    "  --language L       a language of the registry (resources/languages); default: the file's\n                     "
    "extension's language, else the registry's default\n"
    "  --categories F     a category table (JSON) instead of the language's own\n"
    "  --max-text-bytes N the most bytes a model scores (default 32768; 0 = no limit): longer text is refused\n"
    "  --max-ast-depth N  the deepest syntax tree evaluated, in levels (default 1000; 0 = no limit)\n"
    "  --max-ast-nodes N  the largest syntax tree evaluated, in nodes (default 200000; 0 = no limit)\n"
    "                     (both checked right after parsing, before a model runs)\n";

struct CommandHelp {
    const char* usage;
    const char* options;
    bool modelOptions;
};

const std::map<std::string, CommandHelp>& commandHelp()
{
    static const std::map<std::string, CommandHelp> help = {
        {"--version",
         {"ascviz-cli --version",
          "  prints the version, the LibTorch version and build, and whether CUDA is available\n", false}},
        {"models",
         {"ascviz-cli models [--json]",
          "  lists the model families (config.json model_type) the decoder runs and the options each honours;\n"
          "  --json: {\"families\": [{\"model_type\", \"honours\"}]}\n",
          false}},
        {"tokenize",
         {"ascviz-cli tokenize (--tokenizer tokenizer.json | --model M) --text-file F [--out FILE]",
          "  encodes without special tokens: {\"ids\", \"offsets\" (UTF-8 bytes), \"tokens\", \"decoded\"}\n"
          "  --tokenizer FILE   a Hugging Face tokenizer.json\n"
          "  --model M          the tokenizer of a model (folder, ORG/NAME or default)\n"
          "  --text-file F      the text (UTF-8; '-' = stdin)\n"
          "  --out FILE         write the JSON there instead of stdout\n",
          false}},
        {"score",
         {"ascviz-cli score --model M --text-file F [--out FILE]",
          "  teacher-forced NtP of every token: {\"model\", \"tokens\":[{\"id\",\"start\",\"end\",\"ntp\"}], "
          "\"cross_entropy\"}\n"
          "  --text-file F      the text (UTF-8; '-' = stdin)\n"
          "  --max-text-bytes N the most bytes scored (default 32768; 0 = no limit): longer text is refused\n"
          "  --out FILE         write the JSON there instead of stdout\n",
          true}},
        {"generate",
         {"ascviz-cli generate --model M --prompt-file F [--max-new-tokens N] [--greedy | --temperature T --top-p P\n"
          "                    --top-k K --seed S] [--ignore-eos] [--out FILE]",
          "  completes a prompt: {\"text\", \"prompt_tokens\", \"tokens\":[{..., \"generated\"}], \"stop\"}; \"stop\" "
          "says why\n"
          "  it stopped: eos (the model ended the text), length (N tokens), cancelled, context (the model's context is "
          "full)\n"
          "  --prompt-file F    the prompt (UTF-8; '-' = stdin)\n"
          "  --prompts F        instead: JSON Lines of {\"id\"?, \"prompt\"}; one JSON line out per prompt, in order,\n"
          "                     generate's JSON with \"id\" (a malformed line: exit 1 naming file:line)\n"
          "  --max-new-tokens N tokens to generate at most (default 64)\n"
          "  --greedy           the most probable token each step (the default when no sampling option is given)\n"
          "  --temperature T    sample with temperature T > 0; --top-p P in (0,1], --top-k K (0 = off), --seed S\n"
          "  --ignore-eos       keep generating past the end-of-text token\n"
          "  --max-text-bytes N a longer prompt is refused (default 32768; 0 = no limit)\n"
          "  --out FILE         write the JSON there instead of stdout\n",
          true}},
        {"parse",
         {"ascviz-cli parse [--language L] --text-file F [--max-ast-nodes N] [--out FILE]",
          "  the tree-sitter AST: "
          "{\"nodes\":[{\"id\",\"type\",\"named\",\"start\",\"end\",\"parent\",\"depth\",\"error\"}]}\n"
          "  --language L       a language of the registry (resources/languages); default: the file's\n                "
          "     extension's language, else the registry's default\n"
          "  --text-file F      the code (UTF-8; '-' = stdin)\n"
          "  --max-ast-nodes N  larger syntax trees are refused (default 200000 nodes; 0 = no limit)\n"
          "  --out FILE         write the JSON there instead of stdout\n",
          false}},
        {"node-types",
         {"ascviz-cli node-types [--language L] [--out FILE]",
          "  a grammar's visible node types (for writing category tables): {\"language\", \"grammar\", \"named\",\n"
          "  \"anonymous\", \"categories\" (type -> category of the bundled table), \"decision_points\"}\n"
          "  --language L       a language of the registry; default: the registry's default\n"
          "  --out FILE         write the JSON there instead of stdout\n",
          false}},
        {"extract",
         {"ascviz-cli extract --language L --node-types T[,T...] --source P[,P...] --out FILE [options]",
          "  cuts a JSON Lines corpus {\"id\", \"language\", \"source\", \"line\", [\"licence\"], \"code\"} out of "
          "source\n"
          "  files: every node of the types given that parses alone without syntax errors and fits the limits\n"
          "  --source P,...      files, or folders (their files with the language's extensions, recursively)\n"
          "  --node-types T,...  e.g. java: method_declaration,constructor_declaration; cpp: function_definition\n"
          "  --min-lines N / --max-lines N / --max-bytes N   limits (default 3 / 40 / 4000)\n"
          "  --sample N --seed S N snippets drawn reproducibly (Fisher-Yates on mt19937_64(S)); 0 = all (default)\n"
          "  --root DIR          paths in \"source\" are relative to DIR (default: the first source's folder)\n"
          "  --id-prefix P       ids P-0000, P-0001, ... (default: the language)\n"
          "  --licence TEXT      recorded in every entry\n"
          "  --prompts           add \"prompt\": the code cut after a line drawn from mt19937_64(S + index)\n"
          "  --repo NAME         the \"repo\" field (default: the root folder's name); \"path\" is the file under it\n",
          false}},
        {"relations",
         {"ascviz-cli relations --text-file F [--language L] [--relations codesyntax|fields] [--model M] [--json] "
          "[--out FILE]",
          "  the CodeSyntax relations of a text (method.md 11). --relations codesyntax (the default where the\n"
          "  language has a mapping, resources/languages/L/codesyntax.json: Python): the paper's relation types\n"
          "  (If:if->else, Call:func->args, ..., children:parent->child), head = one word, dependent = a block.\n"
          "  fields (the default elsewhere): per node, each pair of its children with a field\n"
          "  name or keyword role, earlier one first: {\"relations\":[{\"type\", \"head\":{\"start\",\"end\","
          "\"tokens\"},\n"
          "  \"dependent\":{...}, \"offset\"}]} (bytes; tokens and offset only with --model: its tokenizer)\n",
          false}},
        {"ablate",
         {"ascviz-cli ablate --model M --corpus C (--heads L.H,... | --relation R --top N | --experts L.E,...) "
          "[--relation R] [--ablation zero|mean] [--control random --draws K] [--json]",
          "  dAsC-Eval per category under head or expert ablation (method.md 14.1): ablated - clean per snippet, the\n"
          "  mean over snippets with a bootstrap interval; --control random: as many random other heads (experts)\n"
          "  --heads L.H,...    the heads (0-based block and head, as analyze heads numbers them)\n"
          "  --relation R       count only the nodes that are the dependent end of relation R (method.md 11)\n"
          "  --top N            with --relation R: ablate the N heads that best predict R on these snippets\n"
          "                     (analyze heads' top-1 score, first-token metric)\n"
          "  --experts L.E,...  mixture-of-experts models: mask the router's choice of these experts (block L,\n"
          "                     routed expert E): their router logits become -inf\n"
          "  --ablation zero|mean  zero (default) or each head's mean over the snippet's predicting positions\n"
          "  --draws K          control draws (default 10)   --limit N  snippets (default 50; 0 = all)\n"
          "  --resamples N      bootstrap resamples (default 500)   --seed S   --quiet   --out FILE\n",
          true}},
        {"probe",
         {"ascviz-cli probe --rewrite rename|spacing --model M --corpus C [--limit N] [--resamples N] [--seed S] "
          "[--json]",
          "  the rewrite probe (method.md 14.4): each snippet rewritten without changing its meaning, checked to\n"
          "  parse to the same tree shape, and scored again; dAsC-Eval per category (rewritten - original) with a\n"
          "  bootstrap interval over the rewritten snippets\n"
          "  --rewrite rename   the names the snippet binds in the other case convention (snake_case <-> camelCase)\n"
          "  --rewrite spacing  the gaps next to punctuation toggled (no space <-> one space), strings untouched\n"
          "  --limit N          snippets (default 50; 0 = all)   --resamples N  bootstrap resamples (default 500)\n"
          "  --seed S   --quiet   --out FILE\n",
          true}},
        {"attribute",
         {"ascviz-cli attribute --model M --text-file F --prompt-bytes N [--target NODE|token:K|all] "
          "[--method occlusion|gradxinput|surrogate] [--faithfulness] [--json]",
          "  attribution by AST node (method.md 13): how much the target (a node of the completion, one completion\n"
          "  token, or all of it) relies on each prompt node\n"
          "  --method M         occlusion (default): log P(target) minus log P(target) with the node's tokens hidden\n"
          "                     as attention keys; gradxinput: gradient x input summed over the node's tokens;\n"
          "                     surrogate: Lasso coefficients of log P(target) on random node masks (method.md 14.2)\n"
          "  --budget N         occlusion, surrogate: prompt nodes weighed (default 256; 0 = all)\n"
          "  --order deepest|level  which nodes the budget keeps first\n"
          "  --masks N          surrogate: random masks (default 63; one more copy gives the clean log P)\n"
          "  --faithfulness     deletion/insertion curves over the budget's nodes in attribution order, their AUCs\n"
          "                     and 10 random orders' (method.md 14.2)   --seed S   masks and random orders\n"
          "  --batch-size B     masked copies per forward pass (default 16)\n"
          "  --max-ast-depth N  --max-ast-nodes N   as eval: deeper or larger syntax trees are refused\n"
          "  --language L  --categories F   as eval     --json  the JSON of docs/cli.md (default: a text table)\n"
          "  --quiet            no progress line\n"
          "  --corpus C [--limit N] [--targets K]   instead of --text-file: the category x category reliance matrix\n"
          "                     (method.md 13): each snippet's first half of lines is the prompt, its first K "
          "(default\n"
          "                     8) categorized completion nodes the targets; --method gradxinput by default;\n"
          "                     {\"cells\": {X: {Y: {\"mean\", \"n\"}}}, ...} (first 50 snippets by default)\n",
          true}},
        {"study",
         {"ascviz-cli study init|render|report|export [options]",
          "  user studies of the explanations (method.md 9; docs/study.md)\n"
          "  init     --corpus FILE|DIR|default --samples N --participants P --out STUDY.json [--conditions "
          "C,S1,S2,S3]\n"
          "           [--seed S] [--points 4|5] [--labels L1,L2,...] [--id NAME] [--title T] [--aggregation A]\n"
          "           [--language L] [--model M]: draws N samples (seeded), evaluates them with the model and "
          "stores\n"
          "           the evaluations in the study file with a counterbalanced trial order per participant (N must\n"
          "           be a multiple of the number of conditions); prints the assignment JSON\n"
          "           --design within|between   between: one condition per participant, groups balanced\n"
          "           --background FILE|none    the background questions (default: the paper's four)\n"
          "           --complete [--max-new-tokens N] [--stop-at-function-end]   samples = the model's completion\n"
          "           of each prompt (--stop-at-function-end: cut where the function ends, as galeras run);\n"
          "           without --complete the corpus's code is shown as it is, nothing marked as the model's\n"
          "  render   --study STUDY.json --participant ID --trial K --png OUT [--size WxH]: what that participant\n"
          "           sees in trial K (0-based) as PNG (drawn by the ascviz GUI executable next to ascviz-cli,\n"
          "           or $ASCVIZ_GUI; offscreen)\n"
          "  report   --responses FILE [--study STUDY.json] [--json | --csv DIR] [--out FILE]: per condition and\n"
          "           question n, the Likert distribution and % agreement (answers above the midpoint); FILE is\n"
          "           a responses file (SQLite) or its CSV export (which needs --study for the scales)\n"
          "  export   --responses FILE --csv OUT: one row per answer:\n"
          "           participant,trial,sample,condition,question,answer,seconds\n",
          true}},
        {"figure",
         {"ascviz-cli figure KIND --db R [--db R2 ...] (--svg OUT | --pdf OUT) [style options]",
          "  paper figures as vector SVG (text as text) or PDF (Cairo), docs/figures.md\n"
          "  KIND     categories    AsC-Eval per category, bars with bootstrap 95% CIs, runs side by side\n"
          "           distribution  snippet-level AsC-Eval per category, a box plot per run\n"
          "           treemap       concepts sized by count, coloured by AsC-Eval (one --db)\n"
          "           heatmap       categories x runs (as analyze heatmap)\n"
          "           likert        a study's answers (--db RESPONSES, a responses file or its CSV with --study)\n"
          "  --db R             a results database (repeatable or comma-separated); runs are labelled with the\n"
          "                     model and the settings that differ; other corpora refused unless\n"
          "                     --allow-different-corpus\n"
          "  --svg OUT | --pdf OUT  the file to write\n"
          "  --width-mm W | --width-pt W  page width (default 85 mm, one column)\n"
          "  --font-pt P        label font size (default 8; 6 to 72)\n"
          "  --no-title         no title line\n"
          "  --legend L         right (default), bottom or none\n"
          "  --min-n N          categories: fewer pooled values are drawn hollow as too few (default 10)\n",
          false}},
        {"eval",
         {"ascviz-cli eval (--model M | --scores F) --text-file F [--prompt-bytes N] [--aggregation A] [--out FILE]",
          nullptr, true}},
        {"export-html",
         {"ascviz-cli export-html (--model M --text-file F [--prompt-bytes N] | --scores F --text-file F | --session "
          "S)\n"
          "                       --out X.html [--layers] [--attribution NODE] [--heads] [--experts] [--full-paths]\n"
          "                       [eval's options]\n"
          "       ascviz-cli export-html --db RESULTS --out run.html [--limit N] [--full-paths]",
          "  one self-contained interactive HTML page (docs/share.md): opens from file:// in a browser, fetches\n"
          "  nothing. The code coloured by NtP, the AST (pan, zoom, fold), theta switchable in the page, the\n"
          "  settings; the data embedded as eval's JSON (<script type=\"application/json\" id=\"ascviz-data\">)\n"
          "  --out X.html       the page (written to a temporary file in its folder, then renamed)\n"
          "  --session S        a session file of the GUI (its alternatives shown per token); --aggregation A\n"
          "  --layers           the layer lens (eval --layers): a layer slider in the page\n"
          "  --attribution NODE attribution by AST node to NODE (a node id, token:K or all; occlusion, the\n"
          "                     defaults of attribute; needs --prompt-bytes): signed colours and the list\n"
          "  --experts          a mixture-of-experts model's routing per token (eval --experts)\n"
          "  --db RESULTS       a run's page: the categories table and charts, the snippets sortable, each\n"
          "                     opening its views; at most 1,000 snippets (--limit N: the first N)\n"
          "  --heads            every attention head's arcs (eval --heads): pick a layer and head in the page\n"
          "  eval's options (--aggregation, --aggregation-scope, --language, --categories, the limits) apply\n",
          true}},
        {"render",
         {"ascviz-cli render (--model M | --scores F) --text-file F --view complete|partial|sequence|figure5\n"
          "                  (--svg OUT | --pdf OUT) [figure options]",
          nullptr, true}},
        {"batch",
         {"ascviz-cli batch --model M --corpus FILE|DIR|default --db RESULTS [--limit N] [--resume] [--batch-size B]",
          "  evaluates a corpus into a SQLite results database, one transaction per snippet; Ctrl-C stops after\n"
          "  the current snippet and leaves the database resumable\n"
          "  --corpus C         JSON Lines (a \"code\" field), CSV (a \"code\" column), a folder of source files,\n"
          "                     or default (the bundled 600-function sample)\n"
          "  --db RESULTS       the results database (must not exist unless --resume)\n"
          "  --resume           continue an interrupted run (same corpus, model, aggregation and its scope)\n"
          "  --limit N          the first N snippets only (0 = all)\n"
          "  --batch-size B     snippets scored per model call (default 1): packed without padding on the CPU,\n"
          "                     one padded batch on a GPU; faster for short snippets; NtP equal to one by one\n"
          "                     within ~1e-6 (the default is reproducible bit for bit, also across resumes and\n"
          "                     shards)\n"
          "  --aggregation A    median (default), mean, max or min\n"
          "  --aggregation-scope tokens|children   θ over a node's own tokens (default) or over its children's\n"
          "                     values (the paper's Fig. 2-C); stored with the run: report, causal and the heat\n"
          "                     map use the values so made, compare names a difference like θ's\n"
          "  --language L       a language of the registry (resources/languages); default: the registry's default\n"
          "  --extensions E     file extensions read from a corpus folder, comma-separated (default: the "
          "language's)\n"
          "  --shard I/N        only shard I (0-based) of N: snippet k of the run (file order, after --limit) is\n"
          "                     in shard k mod N; the database records the shard (merge joins them)\n"
          "  --max-text-bytes N longer snippets are stored as error rows, unscored (default 32768; 0 = no limit)\n"
          "  --max-ast-depth N  deeper syntax trees are stored as error rows (default 1000 levels; 0 = no limit)\n"
          "  --max-ast-nodes N  larger syntax trees are stored as error rows (default 200000 nodes; 0 = no limit)\n"
          "  --quiet            no progress line\n",
          true}},
        {"merge",
         {"ascviz-cli merge --out ALL.db SHARD.db... [--quiet]",
          "  joins the shard databases of one run (batch --shard I/N, galeras run --shard I/N or analyze heads\n"
          "  --shard I/N --partial P.db, every I of N\n"
          "  once) into one database equal to a single-machine run; the kind of run is read from the files\n"
          "  (galeras merge is the same for Galeras runs); refuses (exit 1, nothing written) missing, duplicate\n"
          "  or incomplete shards, shards of different kinds, and shards of another corpus, model, language,\n"
          "  aggregation or size (Galeras, heads: another setting of the run)\n"
          "  --out ALL.db       the merged database (must not exist)\n",
          false}},
        {"slurm",
         {"ascviz-cli slurm submit|status|resume ...",
          "  submit --model M --corpus C --shards N --out DIR [options]   writes DIR/batch.sbatch (an array job,\n"
          "         one task per shard: batch --resume --shard I/N) and DIR/merge.sbatch, submits both with sbatch\n"
          "         (merge: --dependency=afterok:<array>) and prints {\"array_job\", \"merge_job\", \"dir\"}\n"
          "    --partition P  --gres G (e.g. gpu:1)  --time T   #SBATCH lines; absent: the site's defaults\n"
          "    --sbatch-extra LINE   one more sbatch option per use (--sbatch-extra --account=abc)\n"
          "    --dry-run      write the scripts only\n"
          "    batch options passed to every shard: --language --extensions --limit --batch-size --aggregation\n"
          "    --aggregation-scope\n"
          "    --device --dtype --threads --max-text-bytes --max-ast-depth --max-ast-nodes\n"
          "  status DIR [--watch S] [--no-queue] [--out FILE]   per-shard progress from the shard databases and\n"
          "         squeue: {\"shards\":[{\"shard\",\"done\",\"planned\",\"status\"}], ...}; --watch repeats every S "
          "s\n"
          "         until merged or nothing queued\n"
          "  resume DIR [--dry-run]   after cancelled, failed or timed-out tasks: resubmits the shards that are\n"
          "         neither complete nor queued, and a new merge job (afterok on every shard task still queued)\n",
          false}},
        {"galeras",
         {"ascviz-cli galeras run|testbed|merge [options]",
          "  Galeras (method.md 12, docs/galeras.md): prompt treatments and their effect on generated code\n"
          "  run      --db RUNS [--resume] --records FILE|default --testbed T --treatments F|default [options]\n"
          "           every testbed item x treatment: generate, store prompt, completion, stop, outcomes, "
          "confounders\n"
          "           (one transaction per row; Ctrl-C stops after the current row; --resume continues)\n"
          "    --records FILE   JSON Lines or CSV (code, signature, docstring, id, language, repo, path, date;\n"
          "                     other numeric fields: precomputed confounders); default: the bundled sample\n"
          "    --fields MAP     other column names: code=body,signature=sig\n"
          "    --testbed T      withdocstring (default: the paper's), randomcut or fromdocstring; --seed S the cut's "
          "draws\n"
          "    --treatments F   the templates (JSON); default: resources/galeras/treatments.json\n"
          "    --max-new-tokens N (default 64)  --greedy | --temperature T --top-p P --top-k K --sample-seed S\n"
          "    --stop-at-function-end   stop when the completion goes past the function, cut it there\n"
          "    --shard I/N      only items k with k mod N = I   --limit N   the first N items   --quiet\n"
          "    --max-text-bytes N   records with longer code are skipped (named), longer prompts stored as error "
          "rows\n"
          "                     (default 32768; 0 = no limit)\n"
          "    --max-ast-nodes N --max-ast-depth N   larger syntax trees: the record skipped, or the row's "
          "AsC-Eval an\n"
          "                     error (defaults 200000 nodes, 1000 levels; 0 = no limit)\n"
          "  testbed  --records FILE|default --testbed T [--seed S] [--max-text-bytes N] [--max-ast-nodes N]\n"
          "           [--out FILE]: the testbed as JSON Lines\n"
          "           {id, language, testbed, partial, ground_truth, signature, docstring, cut_line}\n"
          "  merge    --out ALL.db SHARD.db...: joins the complete shards (run --shard I/N, every I once) of one "
          "run\n",
          true}},
        {"report",
         {"ascviz-cli report --db RESULTS [--json | --csv DIR] [--resamples N] [--seed S] [--min-n N] [--out FILE]",
          "  corpus statistics: bootstrapped medians per concept and category, Global AsC-Eval\n"
          "  --json             JSON on stdout (or --out FILE); without --json/--csv a text table\n"
          "  --csv DIR          concepts.csv, categories.csv and snippets.csv into DIR\n"
          "  --resamples N      bootstrap resamples (default 500); --seed S their seed\n"
          "  --min-n N          a concept or category with fewer than N values is flagged too_few (default 10)\n",
          false}},
    };
    return help;
}

bool wantsHelp(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i)
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

std::string usage()
{
    return std::string(kUsageHead) + ascviz::cli::analyzeUsageLines() + kUsageTail + commonOptionsHelp();
}

void printCommandHelp(const std::string& name)
{
    if (name == "analyze") { // generated from the analyze table: every subcommand the router accepts
        std::string withModel;
        for (const auto& s : ascviz::cli::analyzeSubcommands())
            if (s.modelOptions)
                withModel += std::string(withModel.empty() ? "" : ", ") + s.name;
        std::cout << ascviz::cli::analyzeHelp() << "model options (" << withModel << "):\n" << modelOptionsHelp();
        return;
    }
    const auto& h = commandHelp().at(name == "version" ? "--version" : name);
    std::cout << "usage: " << h.usage << "\n";
    if (h.options)
        std::cout << h.options;
    else
        std::cout << "  score + parse + align + aggregate (AsC-Eval per AST node)\n" << kEvalOptions;
    if (name == "render")
        std::cout
            << "  --view V           complete, partial, sequence or figure5 (the code with the completion marked\n"
               "                     beside the AST view, ASTxplainer Fig. 5)\n"
               "  --svg OUT | --pdf OUT   the file to write (PDF through Cairo; docs/figures.md)\n"
               "  --subtree NODE_ID  only this node and its descendants   --max-depth D  deeper levels collapsed\n"
               "  --fold ID[,ID...]  these subtrees folded into \"…(n)\" (as the GUI's view folds them)\n"
               "  --auto-collapse true|false  whether a tree too wide for 6 pt labels has deep levels collapsed\n"
               "                     (default true; the GUI's exports draw the view as seen: false)\n"
               "  --orientation td|lr  top down or left to right   --whitespace faint|none|full  whitespace tokens\n"
               "  --width-mm W | --width-pt W   --font-pt P   --no-title   --legend right|bottom|none\n"
               "  --max-graphviz-nodes N  AST views with more shown nodes use a linear-time tree layout instead\n"
               "                     of Graphviz dot (default 1500; 0 = always Graphviz)\n";
    else if (name == "eval")
        std::cout
            << "  --out FILE         write the JSON there instead of stdout\n"
               "  --layers           the layer lens (method.md 13): \"ntp_layers\" per token, \"asc_eval_layers\" per\n"
               "                     node (layer 0 = the embeddings ... L = the last block; needs --model), and the\n"
               "                     commitment layer (method.md 14.3): \"commit_layer\" per token, \"asc_commit\" per "
               "node\n"
               "  --experts          a mixture-of-experts model's routing: per token \"experts\": [{\"layer\", "
               "\"ids\",\n"
               "                     \"probs\"}] of every sparse layer (the chosen experts, router order; needs "
               "--model;\n"
               "                     a dense model is refused)\n"
               "  --ablate-heads L.H,...  score with these attention heads ablated (method.md 14.1; block L and head\n"
               "                     H 0-based, as analyze heads numbers them); the JSON gets \"ablation\"\n"
               "  --ablation zero|mean  replace each head's output by zero (default) or by its mean over the text's\n"
               "                     positions that predict a token\n"
               "  --heads            every attention head's heaviest keys per token (\"attention\": {\"layers\", "
               "\"heads\",\n"
               "                     \"keep\", \"min_weight\", \"digits\", \"rows\"}; docs/share.md), from a pass of "
               "its own\n"
               "  every token carries \"straddles\" (method.md 14.4): it crosses an AST leaf boundary\n";
    if (h.modelOptions)
        std::cout << "model options:\n" << modelOptionsHelp();
}

} // namespace

int main(int argc, char** argv)
{
    using namespace ascviz::cli;
    // A file size limit (ulimit -f) makes a write fail with EFBIG, reported with advice, instead of killing
    // the process with SIGXFSZ halfway through a write.
    std::signal(SIGXFSZ, SIG_IGN);
    const std::map<std::string, std::function<int(Args&)>> commands = {
        {"--version", cmdVersion},   {"version", cmdVersion},     {"models", cmdModels}, {"tokenize", cmdTokenize},
        {"score", cmdScore},         {"generate", cmdGenerate},   {"parse", cmdParse},   {"node-types", cmdNodeTypes},
        {"extract", cmdExtract},     {"analyze", cmdAnalyzeAll},  {"eval", cmdEval},     {"render", cmdRender},
        {"batch", cmdBatch},         {"report", cmdReport},       {"merge", cmdMerge},   {"slurm", cmdSlurm},
        {"study", cmdStudy},         {"relations", cmdRelations}, {"figure", cmdFigure}, {"galeras", cmdGaleras},
        {"attribute", cmdAttribute}, {"ablate", cmdAblate},       {"probe", cmdProbe},   {"export-html", cmdExportHtml},
    };
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        (argc < 2 ? std::cerr : std::cout) << usage();
        return argc < 2 ? 2 : 0;
    }
    const auto it = commands.find(argv[1]);
    if (it == commands.end()) {
        std::cerr << "ascviz-cli: unknown command '" << argv[1] << "'\n" << usage();
        return 2;
    }
    if (wantsHelp(argc, argv)) {
        printCommandHelp(argv[1]);
        return 0;
    }
    try {
        Args args(std::vector<std::string>(argv + 2, argv + argc));
        return it->second(args);
    } catch (const UsageError& e) {
        std::cerr << "ascviz-cli " << argv[1] << ": usage error: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::string msg = e.what();
        if (const auto* err = dynamic_cast<const ascviz::Error*>(&e))
            msg += ascviz::cli::remedyForCli(err->context().remedy, argv[1]);
        for (auto& c : msg)
            if (c == '\n')
                c = ' ';
        std::cerr << "ascviz-cli " << argv[1] << ": error: " << msg << '\n';
        return 1;
    }
}
