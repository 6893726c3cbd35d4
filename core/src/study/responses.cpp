// The responses file (SQLite): schema, one transaction per answer, resume (docs/study.md).
#include "ascviz/study/responses.h"
#include "ascviz/study/study.h"

#include "ascviz/base/error.h"
#include "ascviz/results/resultsdb.h"

#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <tuple>

namespace ascviz {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* kSchema = R"sql(
CREATE TABLE study (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  format TEXT NOT NULL, schema_version INTEGER NOT NULL,
  study_id TEXT NOT NULL, fingerprint TEXT NOT NULL,
  design TEXT NOT NULL, created TEXT NOT NULL, version TEXT NOT NULL);
CREATE TABLE participants (
  id TEXT PRIMARY KEY, started TEXT NOT NULL);
CREATE TABLE answers (
  participant TEXT NOT NULL REFERENCES participants(id), trial INTEGER NOT NULL,
  sample TEXT NOT NULL, condition TEXT NOT NULL, question TEXT NOT NULL,
  answer INTEGER NOT NULL, seconds REAL NOT NULL, answered TEXT NOT NULL,
  PRIMARY KEY (participant, trial, question)) WITHOUT ROWID;
CREATE TABLE trials (
  participant TEXT NOT NULL REFERENCES participants(id), trial INTEGER NOT NULL,
  sample TEXT NOT NULL, condition TEXT NOT NULL, seconds REAL NOT NULL, comment TEXT NOT NULL DEFAULT '',
  completed TEXT NOT NULL,
  PRIMARY KEY (participant, trial)) WITHOUT ROWID;
CREATE TABLE comment_drafts (
  participant TEXT NOT NULL REFERENCES participants(id), trial INTEGER NOT NULL, comment TEXT NOT NULL,
  PRIMARY KEY (participant, trial)) WITHOUT ROWID;
)sql";

// The part of the study a responses file keeps: enough for reports and exports without the study file.
json designJson(const Study& s)
{
    json questions = json::array();
    for (const auto& q : s.questions)
        questions.push_back({{"id", q.id}, {"text", q.text}, {"labels", q.labels}});
    json samples = json::array();
    for (const auto& sm : s.samples)
        samples.push_back(sm.id);
    json participants = assignmentJson(s).at("participants");
    return {{"id", s.id},
            {"conditions", s.conditions},
            {"questions", questions},
            {"samples", samples},
            {"participants", participants}};
}

class Stmt {
public:
    Stmt(sqlite3* db, const char* sql)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &m_s, nullptr) != SQLITE_OK)
            throw Error(std::string("responses file: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(m_s); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& bind(int i, const std::string& v)
    {
        sqlite3_bind_text(m_s, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, int v)
    {
        sqlite3_bind_int(m_s, i, v);
        return *this;
    }
    Stmt& bind(int i, double v)
    {
        sqlite3_bind_double(m_s, i, v);
        return *this;
    }
    bool step()
    {
        const int rc = sqlite3_step(m_s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            throw Error(std::string("responses file: ") + sqlite3_errmsg(sqlite3_db_handle(m_s)));
        return false;
    }
    std::string text(int c) const
    {
        const auto* t = sqlite3_column_text(m_s, c);
        return t ? reinterpret_cast<const char*>(t) : "";
    }
    int integer(int c) const { return sqlite3_column_int(m_s, c); }
    double real(int c) const { return sqlite3_column_double(m_s, c); }

private:
    sqlite3_stmt* m_s = nullptr;
};

} // namespace

struct ResponsesDb::Impl {
    sqlite3* db = nullptr;
    fs::path path;
    std::string studyId, fingerprint;
    std::vector<std::string> conditions;
    std::vector<StudyQuestion> questions;
    std::vector<std::string> sampleIds;
    std::vector<StudyParticipant> participants;

    ~Impl()
    {
        if (db)
            sqlite3_close(db);
    }
    void exec(const char* sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw Error("responses file " + path.string() + ": " + msg);
        }
    }
    const StudyParticipant& participant(const std::string& id) const
    {
        for (const auto& p : participants)
            if (p.id == id)
                return p;
        throw InputError("participant '" + id + "' is not in study '" + studyId + "'");
    }
    const StudyTrial& trial(const std::string& pid, int t) const
    {
        const auto& p = participant(pid);
        if (t < 0 || t >= int(p.trials.size()))
            throw InputError("participant " + pid + " has no trial " + std::to_string(t));
        return p.trials[std::size_t(t)];
    }
    void readDesign()
    {
        Stmt st(db, "SELECT format, schema_version, study_id, fingerprint, design FROM study WHERE one = 1");
        if (!st.step() || st.text(0) != "ascviz-responses")
            throw InputError(path.string() + " is not an AsC-Viz responses file");
        if (st.integer(1) > kResponsesSchemaVersion)
            throw InputError("responses file " + path.string() + " has schema version " +
                             std::to_string(st.integer(1)) + ", newer than this AsC-Viz reads (version " +
                             std::to_string(kResponsesSchemaVersion) + ")");
        studyId = st.text(2);
        fingerprint = st.text(3);
        const json d = json::parse(st.text(4));
        conditions = d.at("conditions").get<std::vector<std::string>>();
        for (const auto& qj : d.at("questions"))
            questions.push_back({qj.at("id").get<std::string>(), qj.value("text", std::string()),
                                 qj.at("labels").get<std::vector<std::string>>()});
        sampleIds = d.at("samples").get<std::vector<std::string>>();
        for (const auto& pj : d.at("participants")) {
            StudyParticipant p;
            p.id = pj.at("id").get<std::string>();
            for (const auto& tj : pj.at("trials"))
                p.trials.push_back({tj.at("sample").get<int>(), tj.at("condition").get<std::string>()});
            participants.push_back(std::move(p));
        }
    }
};

ResponsesDb::ResponsesDb(std::unique_ptr<Impl> impl) : m(std::move(impl))
{
}
ResponsesDb::ResponsesDb(ResponsesDb&&) noexcept = default;
ResponsesDb& ResponsesDb::operator=(ResponsesDb&&) noexcept = default;
ResponsesDb::~ResponsesDb() = default;

bool isSqliteFile(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    char head[16] = {};
    in.read(head, sizeof head);
    return in.gcount() == 16 && std::string(head, 15) == "SQLite format 3";
}

ResponsesDb ResponsesDb::open(const fs::path& path, const Study& study)
{
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (exists && !isSqliteFile(path))
        throw InputError(path.string() + " is not an AsC-Viz responses file (not SQLite); not overwritten");
    if (sqlite3_open_v2(path.string().c_str(), &impl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK)
        throw InputError("cannot open the responses file " + path.string());
    sqlite3_busy_timeout(impl->db, 5000);
    if (!exists) {
        impl->exec("PRAGMA journal_mode=WAL");
        impl->exec("BEGIN");
        impl->exec(kSchema);
        Stmt st(impl->db, "INSERT INTO study VALUES (1, 'ascviz-responses', ?, ?, ?, ?, ?, ?)");
        st.bind(1, kResponsesSchemaVersion)
            .bind(2, study.id)
            .bind(3, study.fingerprint())
            .bind(4, designJson(study).dump())
            .bind(5, isoTimestampUtc())
            .bind(6, ascvizVersion());
        st.step();
        impl->exec("COMMIT");
    }
    // Checked before anything is written: another file (a results database, another study's responses)
    // is left exactly as it was.
    try {
        impl->readDesign();
    } catch (const json::exception& e) {
        throw InputError("responses file " + path.string() + ": malformed design record: " + e.what());
    } catch (const InputError&) {
        throw;
    } catch (const Error&) {
        throw InputError(path.string() + " is not an AsC-Viz responses file; not overwritten");
    }
    if (impl->studyId != study.id || impl->fingerprint != study.fingerprint())
        throw InputError("the responses file " + path.string() + " belongs to study '" + impl->studyId +
                         "' (fingerprint " + impl->fingerprint + "), not to study '" + study.id + "' (fingerprint " +
                         study.fingerprint() + "); choose another responses file");
    impl->exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
    return ResponsesDb(std::move(impl));
}

ResponsesDb ResponsesDb::openExisting(const fs::path& path)
{
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw InputError("the responses file " + path.string() + " does not exist");
    if (!isSqliteFile(path))
        throw InputError(path.string() + " is not an AsC-Viz responses file (not SQLite)");
    if (sqlite3_open_v2(path.string().c_str(), &impl->db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        throw InputError("cannot open the responses file " + path.string());
    sqlite3_busy_timeout(impl->db, 5000);
    try {
        impl->readDesign();
    } catch (const json::exception& e) {
        throw InputError("responses file " + path.string() + ": malformed design record: " + e.what());
    } catch (const Error&) {
        throw InputError(path.string() + " is not an AsC-Viz responses file");
    }
    return ResponsesDb(std::move(impl));
}

const fs::path& ResponsesDb::path() const
{
    return m->path;
}
std::string ResponsesDb::studyId() const
{
    return m->studyId;
}
std::string ResponsesDb::fingerprint() const
{
    return m->fingerprint;
}
std::vector<std::string> ResponsesDb::conditions() const
{
    return m->conditions;
}
std::vector<StudyQuestion> ResponsesDb::questions() const
{
    return m->questions;
}

bool ResponsesDb::hasParticipant(const std::string& id) const
{
    Stmt st(m->db, "SELECT 1 FROM participants WHERE id = ?");
    st.bind(1, id);
    return st.step();
}

void ResponsesDb::startParticipant(const std::string& id, bool resume)
{
    m->participant(id); // throws for an id outside the design
    if (hasParticipant(id)) {
        if (!resume)
            throw InputError("participant " + id + " already has responses in " + m->path.string() +
                             "; resume that participant or choose another id");
        return;
    }
    Stmt st(m->db, "INSERT INTO participants VALUES (?, ?)");
    st.bind(1, id).bind(2, isoTimestampUtc());
    st.step();
}

std::vector<ParticipantProgress> ResponsesDb::progress() const
{
    std::vector<ParticipantProgress> out;
    for (const auto& p : m->participants) {
        ParticipantProgress pp;
        pp.id = p.id;
        pp.trials = int(p.trials.size());
        Stmt st(m->db, "SELECT started FROM participants WHERE id = ?");
        st.bind(1, p.id);
        if (st.step()) {
            pp.started = true;
            pp.startedAt = st.text(0);
        }
        Stmt c(m->db, "SELECT COUNT(*) FROM trials WHERE participant = ?");
        c.bind(1, p.id);
        c.step();
        pp.completed = c.integer(0);
        out.push_back(std::move(pp));
    }
    return out;
}

void ResponsesDb::recordAnswer(const std::string& participant, int trial, const std::string& question, int answer,
                               double seconds)
{
    const StudyTrial& t = m->trial(participant, trial);
    const auto q =
        std::find_if(m->questions.begin(), m->questions.end(), [&](const auto& x) { return x.id == question; });
    if (q == m->questions.end())
        throw InputError("study '" + m->studyId + "' has no question '" + question + "'");
    if (answer < 1 || answer > q->points())
        throw InputError("answer " + std::to_string(answer) + " is outside the " + std::to_string(q->points()) +
                         "-point scale of '" + question + "'");
    if (!hasParticipant(participant))
        throw InputError("participant " + participant + " has not been started");
    Stmt st(m->db, "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    st.bind(1, participant)
        .bind(2, trial)
        .bind(3, m->sampleIds.at(std::size_t(t.sample)))
        .bind(4, t.condition)
        .bind(5, question)
        .bind(6, answer)
        .bind(7, seconds)
        .bind(8, isoTimestampUtc());
    st.step(); // autocommit: its own transaction
}

void ResponsesDb::completeTrial(const std::string& participant, int trial, double seconds, const std::string& comment)
{
    const StudyTrial& t = m->trial(participant, trial);
    const auto given = answers(participant, trial);
    for (const auto& q : m->questions)
        if (!given.count(q.id))
            throw InputError("trial " + std::to_string(trial) + " of " + participant + " has no answer to '" + q.id +
                             "'");
    m->exec("BEGIN IMMEDIATE");
    try {
        Stmt st(m->db, "INSERT OR REPLACE INTO trials VALUES (?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, participant)
            .bind(2, trial)
            .bind(3, m->sampleIds.at(std::size_t(t.sample)))
            .bind(4, t.condition)
            .bind(5, seconds)
            .bind(6, comment)
            .bind(7, isoTimestampUtc());
        st.step();
        Stmt up(m->db, "UPDATE answers SET seconds = ? WHERE participant = ? AND trial = ?");
        up.bind(1, seconds).bind(2, participant).bind(3, trial);
        up.step();
        m->exec("COMMIT");
    } catch (...) {
        sqlite3_exec(m->db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

std::map<std::string, int> ResponsesDb::answers(const std::string& participant, int trial) const
{
    std::map<std::string, int> out;
    Stmt st(m->db, "SELECT question, answer FROM answers WHERE participant = ? AND trial = ?");
    st.bind(1, participant).bind(2, trial);
    while (st.step())
        out[st.text(0)] = st.integer(1);
    return out;
}

void ResponsesDb::saveCommentDraft(const std::string& participant, int trial, const std::string& comment)
{
    m->trial(participant, trial); // throws for a trial outside the design
    if (!hasParticipant(participant))
        throw InputError("participant " + participant + " has not been started");
    Stmt st(m->db, "INSERT OR REPLACE INTO comment_drafts VALUES (?, ?, ?)");
    st.bind(1, participant).bind(2, trial).bind(3, comment);
    st.step();
}

std::string ResponsesDb::comment(const std::string& participant, int trial) const
{
    Stmt st(m->db, "SELECT comment FROM trials WHERE participant = ? AND trial = ?");
    st.bind(1, participant).bind(2, trial);
    if (st.step())
        return st.text(0);
    Stmt d(m->db, "SELECT comment FROM comment_drafts WHERE participant = ? AND trial = ?");
    d.bind(1, participant).bind(2, trial);
    return d.step() ? d.text(0) : std::string();
}

int ResponsesDb::firstOpenTrial(const std::string& participant) const
{
    const auto& p = m->participant(participant);
    Stmt st(m->db, "SELECT trial FROM trials WHERE participant = ?");
    st.bind(1, participant);
    std::vector<bool> done(p.trials.size(), false);
    while (st.step()) {
        const int t = st.integer(0);
        if (t >= 0 && t < int(done.size()))
            done[std::size_t(t)] = true;
    }
    for (std::size_t i = 0; i < done.size(); ++i)
        if (!done[i])
            return int(i);
    return int(done.size());
}

std::vector<ResponseRow> ResponsesDb::rows() const
{
    std::map<std::string, int> pOrder, qOrder;
    for (std::size_t i = 0; i < m->participants.size(); ++i)
        pOrder[m->participants[i].id] = int(i);
    for (std::size_t i = 0; i < m->questions.size(); ++i)
        qOrder[m->questions[i].id] = int(i);
    std::vector<ResponseRow> out;
    Stmt st(m->db, "SELECT participant, trial, sample, condition, question, answer, seconds FROM answers");
    while (st.step())
        out.push_back({st.text(0), st.integer(1), st.text(2), st.text(3), st.text(4), st.integer(5), st.real(6)});
    std::sort(out.begin(), out.end(), [&](const ResponseRow& a, const ResponseRow& b) {
        const auto key = [&](const ResponseRow& r) {
            return std::tuple(pOrder.count(r.participant) ? pOrder[r.participant] : 1 << 30, r.participant, r.trial,
                              qOrder.count(r.question) ? qOrder[r.question] : 1 << 30);
        };
        return key(a) < key(b);
    });
    return out;
}

} // namespace ascviz
