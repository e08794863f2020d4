// The small JSON reader used for dump files.
#include <doctest/doctest.h>

#include <fusedsl/interop/detail/json.hpp>

namespace json = fusedsl::detail::json;

TEST_CASE("parses objects, arrays, strings with escapes and numbers as text") {
  auto v = json::parse(R"({"a": [1, -2.5e3, "x\"y\u00e9"], "b": {"c": true, "d": null}})", "t");
  REQUIRE(v.is_object());
  const auto* a = v.find("a");
  REQUIRE(a);
  REQUIRE(a->items.size() == 3);
  CHECK(a->items[0].text == "1");
  CHECK(a->items[1].text == "-2.5e3");
  CHECK(a->items[2].text == "x\"y\xc3\xa9");
  CHECK(v.find("b")->find("c")->b);
  CHECK(v.find("b")->find("d")->kind == json::value::type::null);
}

TEST_CASE("malformed JSON is reported with line and column") {
  CHECK_THROWS_WITH_AS(json::parse("{\"a\": [1, 2", "f.json"),
                       doctest::Contains("f.json: JSON: unexpected end of input"), fusedsl::error);
  CHECK_THROWS_WITH_AS(json::parse("{\n  \"a\": 01x}", "f.json"), doctest::Contains("line 2"), fusedsl::error);
  CHECK_THROWS_AS(json::parse("[1,]", "f"), fusedsl::error);
  CHECK_THROWS_AS(json::parse("{\"a\" 1}", "f"), fusedsl::error);
  CHECK_THROWS_AS(json::parse("\"abc", "f"), fusedsl::error);
  CHECK_THROWS_AS(json::parse("[1] x", "f"), fusedsl::error);
  CHECK_THROWS_AS(json::parse("-", "f"), fusedsl::error);
}
