// The one place where core's UTF-8 byte offsets become QString (UTF-16) positions, and where text crosses
// between core (UTF-8 std::string) and Qt (QString): toQString / toUtf8, used wherever a widget shows a
// core value or hands one back.
#pragma once
#include <QString>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz::ui {

// Maps byte offsets of a UTF-8 text to UTF-16 code-unit positions of the same text as a QString.
class TextPositions {
public:
    explicit TextPositions(const std::string& utf8);
    // Position in the QString of byte offset `byte` (a byte inside a multi-byte sequence maps to the
    // start of its character); byte == size maps to the QString's length.
    int toQt(std::size_t byte) const;
    // Inverse: byte offset of QString position `pos`.
    std::size_t toByte(int pos) const;
    const QString& text() const { return m_text; }

private:
    QString m_text;
    std::vector<int> m_byteToQt;         // size = bytes + 1
    std::vector<std::size_t> m_qtToByte; // size = QString length + 1
};

QString toQString(std::string_view utf8); // UTF-8 bytes (a std::string, a slice, what())
std::string toUtf8(const QString& s);

} // namespace ascviz::ui
