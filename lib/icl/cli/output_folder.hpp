// An output folder (`run --out`, `eval --out`, `report --from`, a `--checkpoint` folder) is held by one run at a time,
// and a run's report files appear in it together or not at all.
//
// FolderLock: an exclusive lock (flock(2)) on DIR/.icl-verify.lock, taken after the folder is validated and before
// anything is written there, held for the run. The kernel releases it on every way a process ends (a return, an
// exception, exit status 4 after SIGTERM, a crash, SIGKILL); the file itself is removed on a normal release and
// is harmless when left behind (a lock file nobody holds is simply taken). A second run on a held folder is bad
// input: one line naming the folder and the holder's process ID, exit status 2, nothing written.
//
// StagedFiles: the files of a run are written whole into DIR/.icl-verify-staging.PID/ and renamed into DIR only
// when every one of them is written (commit). A write that fails (a full disk, a file size limit) removes the
// staging folder and throws, and none of the run's files appears in DIR; so does a run stopped before commit.
#pragma once
#include <atomic>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace icl {

inline constexpr const char* kLockFileName = ".icl-verify.lock";

// A report file that could not be written (a full disk, a file size limit); its message is one line naming the file.
// The command exits 3 with it.
struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Set, for the rest of the process, when a StagedFiles::commit() starts moving a run's files in (from then on the
// run's files all appear, whatever happens): the command line's Ctrl-C handler reads it (async-signal-safe).
std::atomic<bool>& commit_started();

class FolderLock {
public:
  // `dir` exists. `option` names it in the message ("--out"). Throws UsageError (engine.hpp) when another
  // process holds the folder, std::runtime_error when the lock file cannot be made.
  FolderLock(const std::string& dir, const std::string& option);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

private:
  std::string path_;
  int fd_ = -1;
};

class StagedFiles {
public:
  // `dir` exists and is held (FolderLock); staging folders a killed run left there are removed.
  explicit StagedFiles(std::string dir);
  ~StagedFiles();                         // without commit(): the staging folder and its files are removed
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;

  // Writes `content` whole as the staged file `name` (a plain file name); throws WriteError, one line naming
  // DIR/name and why ("No space left on device"), when it cannot.
  void add(const std::string& name, const std::string& content);
  // The names added so far, in order, and where a staged file lies until commit().
  const std::vector<std::string>& names() const { return names_; }
  std::string staged_path(const std::string& name) const;
  // Renames every staged file into the folder, then removes the staging folder.
  void commit();

private:
  std::string dir_, staging_;
  std::vector<std::string> names_;
  bool committed_ = false;
};

}  // namespace icl
