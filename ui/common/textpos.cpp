#include "common/textpos.h"

namespace ascviz::ui {

TextPositions::TextPositions(const std::string& utf8) : m_text(toQString(utf8))
{
    m_byteToQt.assign(utf8.size() + 1, 0);
    m_qtToByte.assign(std::size_t(m_text.size()) + 1, 0);
    std::size_t byte = 0;
    int qt = 0;
    const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
    while (byte < utf8.size()) {
        const unsigned char c = p[byte];
        const int len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        const int units = len == 4 ? 2 : 1; // supplementary planes are surrogate pairs in UTF-16
        for (int k = 0; k < len && byte + std::size_t(k) < utf8.size(); ++k)
            m_byteToQt[byte + std::size_t(k)] = qt;
        for (int u = 0; u < units && qt + u <= int(m_text.size()); ++u)
            m_qtToByte[std::size_t(qt + u)] = byte;
        byte += std::size_t(len);
        qt += units;
    }
    m_byteToQt[utf8.size()] = int(m_text.size());
    m_qtToByte[std::size_t(m_text.size())] = utf8.size();
}

int TextPositions::toQt(std::size_t byte) const
{
    if (byte >= m_byteToQt.size())
        return int(m_text.size());
    return m_byteToQt[byte];
}

std::size_t TextPositions::toByte(int pos) const
{
    if (pos < 0)
        return 0;
    if (std::size_t(pos) >= m_qtToByte.size())
        return m_qtToByte.back();
    return m_qtToByte[std::size_t(pos)];
}

QString toQString(std::string_view utf8)
{
    return QString::fromUtf8(utf8.data(), qsizetype(utf8.size()));
}

std::string toUtf8(const QString& s)
{
    const QByteArray b = s.toUtf8();
    return std::string(b.constData(), std::size_t(b.size()));
}

} // namespace ascviz::ui
