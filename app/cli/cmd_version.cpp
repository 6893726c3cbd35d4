#include "commands.h"

#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace ascviz::cli {

int cmdVersion(Args& args)
{
    args.finish();
    std::cout << "ascviz-cli " << ASCVIZ_VERSION << "\n"
              << "libtorch " << torchVersion() << " (" << torchBuild() << ")\n"
              << "CUDA " << (cudaAvailable() ? "available" : "not available") << "\n"
              << "CPU threads: " << cpuThreadSetup() << "\n";
    return 0;
}

int cmdModels(Args& args)
{
    const bool asJson = args.flag("--json");
    args.finish();
    const std::vector<ModelFamily> families = modelFamilies();
    if (asJson) {
        nlohmann::json out = nlohmann::json::array();
        for (const ModelFamily& f : families)
            out.push_back({{"model_type", f.modelType}, {"honours", f.honours}});
        std::cout << nlohmann::json{{"families", out}}.dump(1) << "\n";
        return 0;
    }
    std::cout << "The model families AsC-Viz runs (config.json model_type), each with what it honours; any other\n"
                 "model_type, or an option the decoder does not implement, is refused at load naming it.\n";
    for (const ModelFamily& f : families)
        std::cout << "  " << f.modelType << std::string(f.modelType.size() < 12 ? 12 - f.modelType.size() : 1, ' ')
                  << f.honours << "\n";
    return 0;
}

} // namespace ascviz::cli
