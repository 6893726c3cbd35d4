// Hostile partial files of `analyze heads` (issue 39): sizes a header or record claims are bounded before
// anything is allocated (no int overflow in the tally), a line without end is refused, a record that does not
// fit names the file and line, a cut last line is dropped with a warning, and the writer puts each record in
// one write and reports a write that fails.
#include "ascviz/attention/headpartial.h"
#include "ascviz/base/error.h"

#include "testdata.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <streambuf>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using ascviz::EdgeRecord;
using ascviz::HeadTally;
using ascviz::InputError;
using ascviz::TextRecord;

std::string header(int layers, int maxK, const std::string& extra = "")
{
    return "{\"kind\":\"ascviz-heads-partial\",\"version\":1,\"model\":\"m\",\"language\":\"python\","
           "\"metric\":\"first\",\"corpus\":\"c\",\"layers\":" +
           std::to_string(layers) + ",\"max_k\":" + std::to_string(maxK) + ",\"shard\":\"\"" + extra + "}\n";
}

std::string record(const std::string& id, const std::string& ranks, const std::string& outside = "{}")
{
    return "{\"id\":\"" + id + "\",\"edges\":[{\"type\":\"t\",\"offset\":1,\"ranks\":\"" + ranks +
           "\",\"hits\":[1]}],\"outside\":" + outside + "}\n";
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

TextRecord oneEdgePerType(int types, std::size_t ranks)
{
    TextRecord t;
    t.id = "x";
    for (int i = 0; i < types; ++i)
        t.edges.push_back(EdgeRecord{"type" + std::to_string(i), 1, std::vector<uint8_t>(ranks, 0), {}});
    return t;
}

TEST(HeadPartial, LayersTimesHeadsTimesKDoesNotOverflow)
{
    // The crash: 4096 layers, max k 254 and one 34 MB edge of 4096 x 4150 ranks: 4.3e9 histogram cells,
    // past int (a SIGSEGV in HeadTally::add; 4096 x 2065 made it negative: "cannot create std::vector larger
    // than max_size()"). Refused before anything is allocated.
    HeadTally tally(4096, 254, {});
    const std::string e = errorOf([&] { tally.add(oneEdgePerType(1, std::size_t{4096} * 4150)); });
    EXPECT_NE(e.find("16998400 ranks, more than the 16384"), std::string::npos) << e;
    EXPECT_EQ(tally.texts(), 0);
}

TEST(HeadPartial, TheTallysMemoryIsBounded)
{
    // 10 types x 262,144 ranks (a 5 MB file) grew to 2.7 GB: refused (more ranks per edge than any model has).
    HeadTally wide(4096, 254, {});
    EXPECT_NE(errorOf([&] { wide.add(oneEdgePerType(10, 262144)); }).find("more than the 16384"), std::string::npos);
    // Within the ranks per edge, the cells over all types are bounded too: 33 types x 16,384 x 254 pass 2^27.
    HeadTally many(64, 254, {});
    const std::string e = errorOf([&] { many.add(oneEdgePerType(33, 16384)); });
    EXPECT_NE(e.find("33 relation types x 16384 (layers x heads) x 254 ranks pass the limit of 134217728"),
              std::string::npos)
        << e;
    EXPECT_EQ(many.texts(), 0); // the tally is unchanged
    EXPECT_TRUE(many.typeCounts().empty());
    many.add(oneEdgePerType(2, 64 * 4)); // a record that fits still adds
    EXPECT_EQ(many.texts(), 1);
    EXPECT_EQ(many.heads(), 4);
}

TEST(HeadPartial, NegativeAndOverflowingCountsAreRefused)
{
    HeadTally tally(1, 3, {});
    TextRecord t = oneEdgePerType(1, 2);
    t.outside["t"] = -5;
    EXPECT_NE(errorOf([&] { tally.add(t); }).find("is not a count"), std::string::npos);
    t.outside["t"] = INT32_MAX;
    tally.add(t);
    t.id = "y";
    t.outside["t"] = 1;
    EXPECT_NE(errorOf([&] { tally.add(t); }).find("passes 32 bits"), std::string::npos);
    EXPECT_EQ(tally.texts(), 1);

    std::istringstream neg(header(1, 3) + record("a", "0001", "{\"t\":-1}"));
    EXPECT_NE(errorOf([&] { ascviz::readHeadPartial(neg, "neg.jsonl", nullptr); }).find("neg.jsonl:2"),
              std::string::npos);
    std::istringstream off(header(1, 3) +
                           "{\"id\":\"a\",\"edges\":[{\"type\":\"t\",\"offset\":-3,\"ranks\":\"00\",\"hits\":[1]}],"
                           "\"outside\":{}}\n");
    EXPECT_NE(errorOf([&] { ascviz::readHeadPartial(off, "off.jsonl", nullptr); }).find("offset must be 1 or more"),
              std::string::npos);
}

TEST(HeadPartial, ARecordThatDoesNotFitNamesTheFileAndLine)
{
    std::istringstream in(header(8, 3) + record("a", "0001020304050607") + record("b", std::string(94, '0')));
    HeadTally tally(8, 3, {});
    const std::string e = errorOf([&] { ascviz::readHeadPartial(in, "shard0.jsonl", &tally); });
    EXPECT_NE(e.find("shard0.jsonl:3: attention heads: 47 ranks"), std::string::npos) << e;
    EXPECT_NE(e.find("do not fit 8 layers x 1 heads"), std::string::npos) << e;
}

// /dev/zero as a stream: bytes without end and no line break.
class Zeros : public std::streambuf {
public:
    Zeros() { setg(m_buf, m_buf, m_buf + sizeof m_buf); }

private:
    int_type underflow() override
    {
        setg(m_buf, m_buf, m_buf + sizeof m_buf);
        return traits_type::to_int_type(m_buf[0]);
    }
    char m_buf[4096] = {};
};

TEST(HeadPartial, ALineWithoutEndIsRefusedAtTheLimit)
{
    Zeros zeros;
    std::istream in(&zeros);
    const std::string e = errorOf([&] { ascviz::readHeadPartial(in, "/dev/zero", nullptr, 1 << 16); });
    EXPECT_NE(e.find("/dev/zero:1: a line longer than 65536 bytes"), std::string::npos) << e;
    EXPECT_EQ(ascviz::kMaxPartialLineBytes, std::size_t{256} << 20);
}

TEST(HeadPartial, ACutLastLineIsDroppedWithAWarning)
{
    const std::string whole = header(1, 3, ",\"texts\":3") + record("a", "00") + record("b", "01");
    const std::string cut = record("c", "02").substr(0, 20);
    std::istringstream in(whole + cut);
    HeadTally tally(1, 3, {});
    const auto got = ascviz::readHeadPartial(in, "p.jsonl", &tally);
    EXPECT_EQ(got.ids, (std::set<std::string>{"a", "b"}));
    EXPECT_EQ(tally.texts(), 2);
    EXPECT_EQ(got.tornLine, 4u);
    EXPECT_EQ(got.completeBytes, whole.size());
    EXPECT_TRUE(got.endsWithNewline);
    EXPECT_EQ(got.plannedTexts, 3);
    EXPECT_NE(got.warning.find("p.jsonl:4: the last line is cut short"), std::string::npos) << got.warning;
    EXPECT_NE(got.warning.find("that one text's record is dropped"), std::string::npos);
    // A broken line that ends with its line break is not what a killed run leaves: refused.
    std::istringstream broken(whole + cut + "\n" + record("d", "00"));
    EXPECT_NE(errorOf([&] { ascviz::readHeadPartial(broken, "p.jsonl", nullptr); }).find("p.jsonl:4: not JSON"),
              std::string::npos);
    // A whole record without its line break is kept.
    std::string noBreak = whole + record("c", "02");
    noBreak.pop_back();
    std::istringstream kept(noBreak);
    const auto k = ascviz::readHeadPartial(kept, "p.jsonl", nullptr);
    EXPECT_EQ(k.ids.size(), 3u);
    EXPECT_EQ(k.tornLine, 0u);
    EXPECT_FALSE(k.endsWithNewline);
    EXPECT_EQ(k.completeBytes, noBreak.size());
}

TEST(HeadPartial, AResumedWriterCutsTheTornLineAndAppendsWholeLines)
{
    ascviz::testdata::TempDir dir("headpartial");
    const auto file = dir / "p.jsonl";
    {
        ascviz::HeadPartialWriter w(file, nullptr);
        w.append(nlohmann::json::parse(header(1, 3)));
        w.append(nlohmann::json::parse(record("a", "00")));
    }
    {
        std::ofstream(file, std::ios::app | std::ios::binary) << record("b", "01").substr(0, 15); // a killed write
    }
    const auto got = ascviz::readHeadPartial(file, nullptr);
    ASSERT_EQ(got.tornLine, 3u);
    {
        ascviz::HeadPartialWriter w(file, &got);
        w.append(nlohmann::json::parse(record("b", "01")));
    }
    HeadTally tally(1, 3, {});
    const auto again = ascviz::readHeadPartial(file, &tally);
    EXPECT_EQ(again.ids, (std::set<std::string>{"a", "b"}));
    EXPECT_TRUE(again.warning.empty()) << again.warning;
    EXPECT_EQ(tally.texts(), 2);
}

TEST(HeadPartial, AFailedWriteIsAnErrorNamingTheFile)
{
    ascviz::HeadPartialWriter full("/dev/full", nullptr);
    const std::string e = errorOf([&] { full.append(nlohmann::json::parse(header(1, 3))); });
    EXPECT_NE(e.find("cannot write the partial file /dev/full: No space left on device"), std::string::npos) << e;

    // A file size limit (ulimit -f) with SIGXFSZ ignored: write(2) fails with EFBIG part-way through a record.
    ascviz::testdata::TempDir dir("headpartial");
    const auto file = dir / "limited.jsonl";
    const std::string head = header(1, 3);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit lim{static_cast<rlim_t>(head.size() + 10), static_cast<rlim_t>(head.size() + 10)};
        setrlimit(RLIMIT_FSIZE, &lim);
        try {
            ascviz::HeadPartialWriter w(file, nullptr);
            w.append(nlohmann::json::parse(head));
            w.append(nlohmann::json::parse(record("a", "00")));
        } catch (const InputError& err) {
            const std::string m = err.what();
            _exit(m.find("File too large (its last line is cut") != std::string::npos ? 3 : 4);
        }
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 3);
    const auto got = ascviz::readHeadPartial(file, nullptr); // the cut record is dropped, the header kept
    EXPECT_TRUE(got.ids.empty());
    EXPECT_EQ(got.tornLine, 2u);
}

} // namespace
