// A run database's file handling (dbfile.h).
#include "dbfile.h"

#include "ascviz/base/error.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace ascviz::dbfile {

void removeDbFiles(const std::filesystem::path& p)
{
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(p.string() + suffix, ec);
}

std::filesystem::path tempBeside(const std::filesystem::path& path, const std::string& what)
{
    std::filesystem::path tmp = path;
    tmp += "." + what + "-" + std::to_string(::getpid());
    removeDbFiles(tmp);
    return tmp;
}

void publish(const std::filesystem::path& tmp, const std::filesystem::path& path)
{
    if (::link(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        throw InputError("cannot create " + path.string() + ": " + std::strerror(err) +
                             (err == EEXIST ? " (another process made it meanwhile)" : "") + "; nothing written",
                         ErrorContext(path.string()));
    }
    removeDbFiles(tmp);
}

} // namespace ascviz::dbfile
