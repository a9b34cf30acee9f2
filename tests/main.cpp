// The doctest main of every test program. ICL_TEST_EXCLUDE (comma-separated test-case name patterns, as doctest's
// --test-case-exclude) leaves test cases out, and says so on stderr: .ci/sanitize uses it for the cases whose code
// the sanitizer pass already runs through another test (it says which and why); ./test unsets it and runs every case.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  if (const char* exclude = std::getenv("ICL_TEST_EXCLUDE"); exclude != nullptr && *exclude != '\0') {
    context.addFilter("test-case-exclude", exclude);
    std::fprintf(stderr, "ICL_TEST_EXCLUDE: test cases named %s are left out\n", exclude);
  }
  return context.run();
}
