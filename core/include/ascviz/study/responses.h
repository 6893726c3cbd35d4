// The responses file of a user study (SQLite; docs/study.md): which study it belongs to (id and
// fingerprint: another study's file is refused), the participants (ids unique), every answer as it is
// given (one transaction each, so a crash or a closed window loses nothing), each trial's time and
// optional comment when it is completed. A participant resumes at the first trial not completed.
#pragma once
#include "ascviz/study/report.h"
#include "ascviz/study/study.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

constexpr int kResponsesSchemaVersion = 1;

struct ParticipantProgress {
    std::string id;
    int trials = 0;    // in the design
    int completed = 0; // trials completed (Next pressed)
    bool started = false;
    std::string startedAt;
};

class ResponsesDb {
public:
    // Opens `path` for `study`, creating it when absent. Throws InputError when it is not a responses file,
    // has a newer schema, or belongs to another study (naming both).
    static ResponsesDb open(const std::filesystem::path& path, const Study& study);
    // Opens an existing file read-only (reports, exports): the design comes from the file itself.
    static ResponsesDb openExisting(const std::filesystem::path& path);
    ResponsesDb(ResponsesDb&&) noexcept;
    ResponsesDb& operator=(ResponsesDb&&) noexcept;
    ~ResponsesDb();

    const std::filesystem::path& path() const;
    std::string studyId() const;
    std::string fingerprint() const;
    // The design as recorded in the file (conditions, questions with their scales).
    std::vector<std::string> conditions() const;
    std::vector<StudyQuestion> questions() const;

    // Starts a participant of the design. When the id has a record already: resumes (`resume`) or throws
    // InputError "participant P01 already has responses in FILE". An id outside the design: InputError.
    // The participant is locked for this object until it is destroyed (a row of participant_locks: process id,
    // host, time): another process or object starting the same participant gets InputError "participant P01 is
    // already being recorded by another process (pid N, ...)"; the lock of a process of this host that has
    // ended (killed, crashed) is taken over.
    void startParticipant(const std::string& id, bool resume);
    bool hasParticipant(const std::string& id) const;
    std::vector<ParticipantProgress> progress() const; // every participant of the design, in design order

    // One answer (1..points) of a trial, replacing an earlier answer to the same question; own transaction.
    void recordAnswer(const std::string& participant, int trial, const std::string& question, int answer,
                      double seconds);
    // Completes a trial (all its questions answered, else InputError): its time and comment; own transaction.
    void completeTrial(const std::string& participant, int trial, double seconds, const std::string& comment);
    // The answers given so far in a trial (question -> answer).
    std::map<std::string, int> answers(const std::string& participant, int trial) const;
    // The comment of a trial as it is being typed (own transaction), so that an interruption keeps it too.
    void saveCommentDraft(const std::string& participant, int trial, const std::string& comment);
    // The completed trial's comment, else the draft ("" when none).
    std::string comment(const std::string& participant, int trial) const;
    // The first trial not completed; = the number of trials when the participant is done.
    int firstOpenTrial(const std::string& participant) const;

    // The background section's answers of a participant (method.md §9; question id -> answer text), each
    // replacing an earlier one; one transaction. The table is added to older files when first written.
    void recordBackground(const std::string& participant, const std::map<std::string, std::string>& answers);
    // participant -> question id -> answer (empty when none was given).
    std::map<std::string, std::map<std::string, std::string>> backgroundAnswers() const;

    // Every answer of completed and open trials, ordered by participant, trial, question order.
    std::vector<ResponseRow> rows() const;

private:
    struct Impl;
    explicit ResponsesDb(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m;
};

// Reads the answers of a responses file (SQLite) or of its CSV export (by content: an SQLite header).
bool isSqliteFile(const std::filesystem::path& file);

} // namespace ascviz
