// Hostile partial files of `analyze heads` (issue 39): sizes a header or record claims are bounded before
// anything is allocated (no int overflow in the tally), a line without end is refused, a record that does not
// fit names the file and line, a cut last line is dropped with a warning (the JSON Lines files of earlier builds,
// still read); the run database of later builds reads the same way.
#include "ascviz/attention/headpartial.h"
#include "ascviz/base/error.h"
#include "ascviz/results/headsdb.h"

#include "testdata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <streambuf>

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

// The run database (results/headsdb.h) reads as the partial file did: the settings from its meta, the records
// tallied; a record of another text or one that is not JSON is refused naming the file and the text.
TEST(HeadPartial, AHeadsRunDatabaseReadsLikeAPartialFile)
{
    ascviz::testdata::TempDir dir("headpartial");
    const auto file = dir / "run.db";
    const ascviz::HeadRunSettings s{"m", "python", "first", "c", 1, 3, "0/2", "fields"};
    {
        const auto db = ascviz::HeadsDb::create(file, ascviz::headRunMeta(s, 2));
        db.insert("a", nlohmann::json::parse(record("a", "00")).dump());
        db.insert("b", nlohmann::json::parse(record("b", "01")).dump());
    }
    HeadTally tally(1, 3, {});
    const auto got = ascviz::readHeadPartial(file, &tally);
    EXPECT_TRUE(got.database);
    EXPECT_EQ(got.settings, s);
    EXPECT_EQ(got.plannedTexts, 2);
    EXPECT_EQ(got.ids, (std::set<std::string>{"a", "b"}));
    EXPECT_EQ(tally.texts(), 2);

    const auto bad = dir / "bad.db";
    {
        const auto db = ascviz::HeadsDb::create(bad, ascviz::headRunMeta(s));
        db.insert("a", nlohmann::json::parse(record("z", "00")).dump());
    }
    EXPECT_NE(errorOf([&] {
                  ascviz::readHeadPartial(bad, nullptr);
              }).find(bad.string() + ": text 'a': its record is of text 'z'"),
              std::string::npos);
    const auto notJson = dir / "notjson.db";
    {
        const auto db = ascviz::HeadsDb::create(notJson, ascviz::headRunMeta(s));
        db.insert("a", "{cut");
    }
    EXPECT_NE(errorOf([&] {
                  ascviz::readHeadPartial(notJson, nullptr);
              }).find(notJson.string() + ": text 'a': its record is not JSON"),
              std::string::npos);
}

} // namespace
