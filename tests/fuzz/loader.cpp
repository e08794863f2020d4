// Loader fuzzing: the sample Inductor dumps, mutated at random (truncated, bytes deleted,
// duplicated or replaced, JSON tokens swapped for tokens of another type, names and numbers
// replaced by unknown or malformed ones), are loaded and scheduled. Each mutant must either
// load and schedule or be refused with fusedsl::error; anything else (another exception, a
// crash, a sanitizer report) fails. FUSEDSL_FUZZ_DUMPS=n runs n mutants (default 10000);
// FUSEDSL_FUZZ_SEED=s starts at seed s.
#include <doctest/doctest.h>

#include <cstdint>     // std::uint64_t
#include <cstdlib>     // std::getenv, std::strtoull
#include <filesystem>  // std::filesystem::directory_iterator
#include <fstream>     // std::ifstream
#include <iostream>    // std::cout
#include <iterator>    // std::istreambuf_iterator
#include <random>      // std::mt19937_64
#include <string>      // std::string
#include <vector>      // std::vector

#include <fusedsl/interop/inductor.hpp>     // load_inductor_dump
#include <fusedsl/schedule/fuse_nodes.hpp>  // fuse_nodes

namespace {
std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// One random edit of a JSON text.
std::string mutate(std::string text, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0; };
  static const std::vector<std::string> tokens = {"null",
                                                  "true",
                                                  "false",
                                                  "0",
                                                  "-1",
                                                  "1e999",
                                                  "\"\"",
                                                  "\"x\"",
                                                  "[]",
                                                  "{}",
                                                  "[[]]",
                                                  "\"-3\"",
                                                  "\"6x4\"",
                                                  "\"MemoryDep\"",
                                                  "\"StarDep\"",
                                                  "\"WeakDep\"",
                                                  "\"OUTPUT\"",
                                                  "\"nobody\"",
                                                  "\"d0 +\"",
                                                  "\"tmp0\"",
                                                  "\"99999999999999999999\"",
                                                  "\"d9\"",
                                                  "\"buf0\"",
                                                  "\"op0\"",
                                                  "{\"kind\": 1}",
                                                  "\"\\u0000\"",
                                                  "\"\\ud800\""};
  switch (rng() % 6) {
    case 0: text.resize(pick(text.size())); break;               // truncated
    case 1: text.erase(pick(text.size()), 1 + pick(40)); break;  // bytes deleted
    case 2: {                                                    // a span duplicated
      std::size_t at = pick(text.size()), len = 1 + pick(60);
      text.insert(pick(text.size()), text.substr(at, len));
      break;
    }
    case 3: text[pick(text.size())] = "{}[]\":,0a\\-e"[pick(12)]; break;  // one byte replaced
    default: {                                                            // a value replaced by a token
      // Replace the value after a random ':' or inside a random array with another token.
      std::size_t at = pick(text.size());
      std::size_t colon = text.find_first_of(":[,", at);
      if (colon == std::string::npos) break;
      std::size_t start = colon + 1;
      while (start < text.size() && text[start] == ' ') ++start;
      std::size_t end = text.find_first_of(",]}", start);
      if (end == std::string::npos) break;
      text.replace(start, end - start, tokens[pick(tokens.size())]);
    }
  }
  return text;
}
}  // namespace

TEST_CASE("fuzz: mutated Inductor dumps load and schedule, or are refused with fusedsl::error") {
  std::vector<std::string> samples;
  for (const auto& entry : std::filesystem::directory_iterator(FUSEDSL_DUMP_DIR)) {
    if (!entry.is_regular_file()) continue;  // the small samples; data/torch-2.11 holds large graphs
    std::ifstream f(entry.path());
    samples.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  REQUIRE(samples.size() >= 5);
  const std::uint64_t first = env_or("FUSEDSL_FUZZ_SEED", 1), count = env_or("FUSEDSL_FUZZ_DUMPS", 10000);
  std::uint64_t loaded = 0, refused = 0;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    std::mt19937_64 rng(seed);
    std::string text = samples[seed % samples.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) text = mutate(text, rng);
    try {
      auto d = fusedsl::load_inductor_dump(text, "mutant.json");
      (void)fusedsl::fuse_nodes(d.g, d.config);
      ++loaded;
    } catch (const fusedsl::error& e) {
      CHECK_MESSAGE(std::string(e.what()).size() > 10, "seed " << seed << ": an error without a message");
      ++refused;
    } catch (const std::exception& e) {
      FAIL_CHECK("seed " << seed << " (rerun: FUSEDSL_FUZZ_SEED=" << seed
                         << " FUSEDSL_FUZZ_DUMPS=1): not a fusedsl::error: " << std::string(e.what()));
    }
  }
  std::cout << "loader fuzz: " << count << " mutated dumps, " << loaded << " loaded and scheduled, " << refused
            << " refused with fusedsl::error\n";
  CHECK(loaded + refused == count);
}
