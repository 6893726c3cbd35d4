// The responses file (SQLite): schema, one transaction per answer, resume (docs/study.md).
#include "ascviz/study/responses.h"
#include "ascviz/study/study.h"

#include "ascviz/base/clock.h"
#include "ascviz/base/error.h"
#include "ascviz/base/version.h"
#include "ascviz/results/sqlite.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <random>
#include <set>
#include <tuple>
#include <unistd.h>

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

// Opens a responses file (labelled so in messages); a file SQLite cannot open is bad input.
sqlite::Db openFile(const fs::path& path, sqlite::OpenMode mode)
{
    sqlite::OpenOptions o;
    o.mode = mode;
    o.label = "responses file";
    o.advice.otherWriter = "another session on the same responses file";
    try {
        return sqlite::Db::open(path, o);
    } catch (const SqliteError& e) {
        throw InputError(e.what(), e.context());
    }
}

// The participant locks (one row per participant being recorded): which process records it, on which host,
// since when; `token` tells the handles (ResponsesDb objects) apart, so two in one process exclude each other.
const char* kLockTable = "CREATE TABLE IF NOT EXISTS participant_locks (participant TEXT PRIMARY KEY, "
                         "pid INTEGER NOT NULL, host TEXT NOT NULL, token TEXT NOT NULL, since TEXT NOT NULL)";

std::string hostName()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0)
        return "unknown";
    return buf;
}

// Whether process `pid` of this host is alive (kill(pid, 0): it exists, ours or another user's).
bool processAlive(int64_t pid)
{
    if (pid <= 0 || pid > INT32_MAX)
        return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

std::string newToken()
{
    static std::atomic<uint64_t> counter{0};
    std::random_device rd;
    return std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + std::to_string(rd());
}

} // namespace

struct ResponsesDb::Impl {
    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl()
    {
        // releases this handle's participant locks; never throws (a read-only or vanished file keeps them: a
        // later session on this host takes a dead process's lock over)
        if (locked.empty() || !db.isOpen())
            return;
        try {
            sqlite::Stmt st(db, "DELETE FROM participant_locks WHERE token = ?", "releasing the participant locks");
            st.bind(1, token);
            st.run();
        } catch (...) {
        }
    }
    std::string token = newToken();
    std::set<std::string> locked; // participants this handle records

    // Takes participant `id`'s lock for this handle; throws InputError naming the process that holds it.
    void lock(const std::string& id)
    {
        if (locked.count(id))
            return;
        const std::string what = "locking participant " + id;
        const std::string host = hostName();
        sqlite::Transaction tx(db); // immediate: two sessions starting at once take turns
        db.exec(kLockTable, what);
        sqlite::Stmt st(db, "SELECT pid, host, token, since FROM participant_locks WHERE participant = ?", what);
        st.bind(1, id);
        if (st.step() && st.text(2) != token) {
            const int64_t pid = st.int64(0);
            const std::string holder = st.text(1);
            // a process of this host that has ended (killed, crashed) left a stale lock: taken over
            if (holder != host || processAlive(pid))
                throw InputError("participant " + id + " is already being recorded by another process (pid " +
                                     std::to_string(pid) + (holder == host ? "" : " on host " + holder) + ", since " +
                                     st.text(3) + ") in " + path.string() + "; end that session first" +
                                     (holder == host ? std::string() : " (a lock of another host is never taken over)"),
                                 ErrorContext(path.string()));
        }
        sqlite::Stmt put(db, "INSERT OR REPLACE INTO participant_locks VALUES (?, ?, ?, ?, ?)", what);
        put.bindAll(id, static_cast<int64_t>(::getpid()), host, token, isoTimestampUtc());
        put.run();
        tx.commit();
        locked.insert(id);
    }
    void unlock(const std::string& id)
    {
        sqlite::Stmt st(db, "DELETE FROM participant_locks WHERE participant = ? AND token = ?",
                        "releasing participant " + id);
        st.bindAll(id, token);
        st.run();
        locked.erase(id);
    }

    sqlite::Db db;
    fs::path path;
    std::string studyId, fingerprint;
    std::vector<std::string> conditions;
    std::vector<StudyQuestion> questions;
    std::vector<std::string> sampleIds;
    std::vector<StudyParticipant> participants;

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
        sqlite::Stmt st(db, "SELECT format, schema_version, study_id, fingerprint, design FROM study WHERE one = 1",
                        "reading the study record");
        if (!st.step() || st.text(0) != "ascviz-responses")
            throw InputError(path.string() + " is not an AsC-Viz responses file");
        if (st.int64(1) > kResponsesSchemaVersion)
            throw InputError("responses file " + path.string() + " has schema version " + std::to_string(st.int64(1)) +
                             ", newer than this AsC-Viz reads (version " + std::to_string(kResponsesSchemaVersion) +
                             ")");
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
    impl->db = openFile(path, sqlite::OpenMode::Create);
    if (!exists) {
        impl->db.exec("PRAGMA journal_mode=WAL", "switching to write-ahead logging");
        sqlite::Transaction tx(impl->db);
        impl->db.exec(kSchema, "creating the schema");
        sqlite::Stmt st(impl->db, "INSERT INTO study VALUES (1, 'ascviz-responses', ?, ?, ?, ?, ?, ?)",
                        "writing the study record");
        st.bindAll(kResponsesSchemaVersion, study.id, study.fingerprint(), designJson(study).dump(), isoTimestampUtc(),
                   ascvizVersion());
        st.run();
        tx.commit();
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
    impl->db.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;", "setting synchronous=FULL and foreign keys");
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
    impl->db = openFile(path, sqlite::OpenMode::ReadOnly);
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
    sqlite::Stmt st(m->db, "SELECT 1 FROM participants WHERE id = ?", "looking up participant " + id);
    st.bind(1, id);
    return st.step();
}

void ResponsesDb::startParticipant(const std::string& id, bool resume)
{
    m->participant(id); // throws for an id outside the design
    const bool held = m->locked.count(id) != 0;
    m->lock(id); // another live process (or handle) recording the same participant: refused
    try {
        if (hasParticipant(id)) {
            if (!resume)
                throw InputError("participant " + id + " already has responses in " + m->path.string() +
                                 "; resume that participant or choose another id");
            return;
        }
        sqlite::Stmt st(m->db, "INSERT INTO participants VALUES (?, ?)", "starting participant " + id);
        st.bindAll(id, isoTimestampUtc());
        st.run();
    } catch (...) {
        if (!held)
            m->unlock(id);
        throw;
    }
}

std::vector<ParticipantProgress> ResponsesDb::progress() const
{
    std::vector<ParticipantProgress> out;
    for (const auto& p : m->participants) {
        ParticipantProgress pp;
        pp.id = p.id;
        pp.trials = int(p.trials.size());
        sqlite::Stmt st(m->db, "SELECT started FROM participants WHERE id = ?", "reading participant " + p.id);
        st.bind(1, p.id);
        if (st.step()) {
            pp.started = true;
            pp.startedAt = st.text(0);
        }
        sqlite::Stmt c(m->db, "SELECT COUNT(*) FROM trials WHERE participant = ?",
                       "counting the trials of participant " + p.id);
        c.bind(1, p.id);
        c.step();
        pp.completed = static_cast<int>(c.int64(0));
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
    sqlite::Stmt st(m->db, "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    "recording an answer of participant " + participant);
    st.bindAll(participant, trial, m->sampleIds.at(std::size_t(t.sample)), t.condition, question, answer, seconds,
               isoTimestampUtc());
    st.run(); // autocommit: its own transaction
}

void ResponsesDb::completeTrial(const std::string& participant, int trial, double seconds, const std::string& comment)
{
    const StudyTrial& t = m->trial(participant, trial);
    const auto given = answers(participant, trial);
    for (const auto& q : m->questions)
        if (!given.count(q.id))
            throw InputError("trial " + std::to_string(trial) + " of " + participant + " has no answer to '" + q.id +
                             "'");
    const std::string what = "completing trial " + std::to_string(trial) + " of participant " + participant;
    sqlite::Transaction tx(m->db);
    sqlite::Stmt st(m->db, "INSERT OR REPLACE INTO trials VALUES (?, ?, ?, ?, ?, ?, ?)", what);
    st.bindAll(participant, trial, m->sampleIds.at(std::size_t(t.sample)), t.condition, seconds, comment,
               isoTimestampUtc());
    st.run();
    sqlite::Stmt up(m->db, "UPDATE answers SET seconds = ? WHERE participant = ? AND trial = ?", what);
    up.bindAll(seconds, participant, trial);
    up.run();
    tx.commit();
}

std::map<std::string, int> ResponsesDb::answers(const std::string& participant, int trial) const
{
    std::map<std::string, int> out;
    sqlite::Stmt st(m->db, "SELECT question, answer FROM answers WHERE participant = ? AND trial = ?",
                    "reading the answers of participant " + participant);
    st.bindAll(participant, trial);
    while (st.step())
        out[st.text(0)] = static_cast<int>(st.int64(1));
    return out;
}

void ResponsesDb::saveCommentDraft(const std::string& participant, int trial, const std::string& comment)
{
    m->trial(participant, trial); // throws for a trial outside the design
    if (!hasParticipant(participant))
        throw InputError("participant " + participant + " has not been started");
    sqlite::Stmt st(m->db, "INSERT OR REPLACE INTO comment_drafts VALUES (?, ?, ?)",
                    "saving a comment draft of participant " + participant);
    st.bindAll(participant, trial, comment);
    st.run();
}

void ResponsesDb::recordBackground(const std::string& participant, const std::map<std::string, std::string>& answers)
{
    if (!hasParticipant(participant))
        throw InputError("participant " + participant + " has not been started");
    const std::string what = "saving the background answers of participant " + participant;
    sqlite::Transaction tx(m->db);
    m->db.exec("CREATE TABLE IF NOT EXISTS background_answers (participant TEXT NOT NULL REFERENCES participants(id), "
               "question TEXT NOT NULL, answer TEXT NOT NULL, answered TEXT NOT NULL, "
               "PRIMARY KEY (participant, question)) WITHOUT ROWID",
               what);
    for (const auto& [q, a] : answers) {
        sqlite::Stmt st(m->db, "INSERT OR REPLACE INTO background_answers VALUES (?, ?, ?, ?)", what);
        st.bindAll(participant, q, a, isoTimestampUtc());
        st.run();
    }
    tx.commit();
}

std::map<std::string, std::map<std::string, std::string>> ResponsesDb::backgroundAnswers() const
{
    std::map<std::string, std::map<std::string, std::string>> out;
    const std::string what = "reading the background answers";
    sqlite::Stmt has(m->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'background_answers'", what);
    if (!has.step())
        return out; // a file from before the background section, or nobody answered yet
    sqlite::Stmt st(m->db, "SELECT participant, question, answer FROM background_answers ORDER BY participant", what);
    while (st.step())
        out[st.text(0)][st.text(1)] = st.text(2);
    return out;
}

std::string ResponsesDb::comment(const std::string& participant, int trial) const
{
    const std::string what = "reading a comment of participant " + participant;
    sqlite::Stmt st(m->db, "SELECT comment FROM trials WHERE participant = ? AND trial = ?", what);
    st.bindAll(participant, trial);
    if (st.step())
        return st.text(0);
    sqlite::Stmt d(m->db, "SELECT comment FROM comment_drafts WHERE participant = ? AND trial = ?", what);
    d.bindAll(participant, trial);
    return d.step() ? d.text(0) : std::string();
}

int ResponsesDb::firstOpenTrial(const std::string& participant) const
{
    const auto& p = m->participant(participant);
    sqlite::Stmt st(m->db, "SELECT trial FROM trials WHERE participant = ?",
                    "reading the trials of participant " + participant);
    st.bind(1, participant);
    std::vector<bool> done(p.trials.size(), false);
    while (st.step()) {
        const int64_t t = st.int64(0);
        if (t >= 0 && t < static_cast<int64_t>(done.size()))
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
    sqlite::Stmt st(m->db, "SELECT participant, trial, sample, condition, question, answer, seconds FROM answers",
                    "reading the answers");
    while (st.step())
        out.push_back({st.text(0), static_cast<int>(st.int64(1)), st.text(2), st.text(3), st.text(4),
                       static_cast<int>(st.int64(5)), st.real(6)});
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
