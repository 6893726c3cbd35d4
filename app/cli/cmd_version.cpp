#include "commands.h"

#include "ascviz/model/model.h"

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

} // namespace ascviz::cli
