// A temporary folder for one test, removed with everything in it when the object goes away.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ascviz::testdata {

class TempDir {
public:
    explicit TempDir(const std::string& name)
    {
        std::string tmpl = (std::filesystem::temp_directory_path() / ("ascviz-" + name + "-XXXXXX")).string();
        if (!mkdtemp(tmpl.data()))
            throw std::runtime_error("cannot make a temporary folder " + tmpl);
        m_path = tmpl;
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
    std::filesystem::path m_path;
};

} // namespace ascviz::testdata
