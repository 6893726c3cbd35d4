// Running another program (process.h): posix_spawnp with both output streams on pipes, read with poll(2).
#include "ascviz/base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace ascviz {

namespace {

ProcessResult notStarted(const std::string& program, int err)
{
    ProcessResult res;
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        res.outcome = ProcessOutcome::NotFound;
        break;
    case EACCES:
    case EPERM:
        res.outcome = ProcessOutcome::NotPermitted;
        break;
    default:
        res.outcome = ProcessOutcome::StartFailed;
    }
    res.err = program + ": " + std::strerror(err);
    return res;
}

// Reads both pipes until the child has closed them, appending to out and err; closes the descriptors.
void drain(int outFd, int errFd, std::string& out, std::string& err)
{
    std::array<pollfd, 2> fds{pollfd{outFd, POLLIN, 0}, pollfd{errFd, POLLIN, 0}};
    std::array<std::string*, 2> sinks{&out, &err};
    int open = 2;
    char buf[4096];
    while (open > 0) {
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (std::size_t k = 0; k < fds.size(); ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = read(fds[k].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[k]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[k].fd);
                fds[k].fd = -1;
                --open;
            }
        }
    }
    for (auto& p : fds)
        if (p.fd >= 0)
            close(p.fd);
}

} // namespace

ProcessResult runProcess(const std::vector<std::string>& argv)
{
    if (argv.empty()) {
        ProcessResult res;
        res.err = "no program to run";
        return res;
    }
    int outPipe[2], errPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0)
        return notStarted(argv[0], errno);
    if (pipe2(errPipe, O_CLOEXEC) != 0) {
        const int err = errno;
        close(outPipe[0]);
        close(outPipe[1]);
        return notStarted(argv[0], err);
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(outPipe[1]);
    close(errPipe[1]);
    if (rc != 0) {
        close(outPipe[0]);
        close(errPipe[0]);
        return notStarted(argv[0], rc);
    }
    ProcessResult res;
    drain(outPipe[0], errPipe[0], res.out, res.err);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        res.outcome = ProcessOutcome::Signalled;
        res.signal = WTERMSIG(status);
        res.exitCode = 128 + res.signal;
    } else {
        res.outcome = ProcessOutcome::Exited;
        res.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    }
    return res;
}

} // namespace ascviz
