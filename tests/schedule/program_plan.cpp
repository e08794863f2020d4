// Plans of programs computed while compiling, as the executors use them
// (detail::packed_schedule_of): the static_asserts are the test. Constant
// evaluation also rejects any out-of-bounds read in the lowering, which run
// time would not notice.
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::remove_cvref_t
#include <utility>      // std::integer_sequence
#include <vector>       // std::vector

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

namespace {

constexpr fx::in<"x", float, 3> x;
constexpr fx::out<"r", float, 3> r;

/// A reduction over the outer axes of a rank-3 tensor that keeps them (size 1): its
/// output's space has size-1 axes, whose size hint once was read at index -1.
constexpr fx::program keepdim_sum{r = fx::realize(fx::sum(x, fx::axes<0, 2>))};
using keepdim_program = std::remove_cvref_t<decltype(keepdim_sum)>;
constexpr const auto& keepdim_plan = fx::detail::packed_schedule_of<keepdim_program>;

static_assert(fx::kernel_count(keepdim_sum) == 2);
static_assert(keepdim_plan.group_count == 2 && keepdim_plan.order.size() == 3,
              "the sum with the realized value, then the write into r");
static_assert(keepdim_plan.group_end[0] == 2 && keepdim_plan.group_end[1] == 3);
static_assert(keepdim_plan.order[0] == 0 && keepdim_plan.order[1] == 1 && keepdim_plan.order[2] == 2,
              "in lowering order");
static_assert(keepdim_plan.kernel_local[0] && !keepdim_plan.kernel_local[1] && !keepdim_plan.kernel_local[2],
              "the sum stays in its kernel");

// Successive updates of one placeholder, each reading the value the one before wrote at
// the same elements and nothing else reading it, fuse (docs/programs.md); a write that
// does not read the one before, or a value read elsewhere in between, keeps them apart.
constexpr fx::inout<"pos", float, 1> pos;
constexpr fx::in<"vel", float, 1> vel;
constexpr fx::out<"y", float, 1> y;
constexpr fx::out<"energy", float, 0> energy;
constexpr fx::param<"box", float> box;
static_assert(fx::kernel_count(fx::program{pos += vel, pos = fx::minimum(pos, box)}) == 1);
static_assert(fx::kernel_count(fx::program{y = vel + 1, y = y * 2}) == 1);
static_assert(fx::kernel_count(fx::program{pos += vel, pos = fx::minimum(pos, box), energy = fx::sum(vel * vel)}) == 1);
static_assert(fx::kernel_count(fx::program{pos += vel, pos = vel * 2}) == 2);
static_assert(fx::kernel_count(fx::program{pos += vel, energy = fx::sum(pos), pos = pos * 2}) == 2);

}  // namespace

TEST_CASE("a program's packed plan unpacks into its groups, fused or one node each") {
  const auto fused = fx::detail::make_group_schedule<keepdim_program>(true);
  REQUIRE(fused.groups.size() == 2);
  CHECK(fused.groups[0].nodes == std::vector<int>{0, 1});
  CHECK(fused.groups[0].kernel_local == std::vector<bool>{true, false});
  CHECK(fused.groups[1].nodes == std::vector<int>{2});
  const auto unfused = fx::detail::make_group_schedule<keepdim_program>(false);
  REQUIRE(unfused.groups.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(unfused.groups[static_cast<std::size_t>(i)].nodes == std::vector<int>{i});
    CHECK(unfused.groups[static_cast<std::size_t>(i)].kernel_local == std::vector<bool>{false});
  }
}

namespace {

// Twelve statements over unrelated rank-4 tensors: 48 symbol classes, more than
// the 44 hints a fixed table once gave before it wrapped around, so that the
// last statement's hinted numel equalled the first one's.
constexpr fx::fixed_string<3> name_of(char role, int i) {
  const char text[3] = {role, static_cast<char>('a' + i), 0};
  return fx::fixed_string<3>(text);
}
template <int I>
using in4 = fx::in<name_of('x', I), float, 4>;
template <int I>
using out4 = fx::out<name_of('y', I), float, 4>;

template <int... I>
constexpr auto copies(std::integer_sequence<int, I...>) {
  return fx::program{(out4<I>{} = in4<I>{} * 2.0f)...};
}
constexpr auto many_symbols = copies(std::make_integer_sequence<int, 12>{});

}  // namespace

TEST_CASE("size hints: every symbol class gets its own prime, however many there are") {
  CHECK(fx::lowering_detail::next_prime_after(30) == 31);
  CHECK(fx::lowering_detail::next_prime_after(251) == 257);
  std::int64_t p = fx::lowering_detail::first_size_hint - 1;
  for (int k = 0; k < 200; ++k) {
    const std::int64_t q = fx::lowering_detail::next_prime_after(p);
    REQUIRE(q > p);
    for (std::int64_t d = 2; d * d <= q; ++d) REQUIRE(q % d != 0);
    p = q;
  }
  const fx::graph g = fx::graph_of(many_symbols);
  REQUIRE(g.size() == 12);
  for (int a = 0; a < g.size(); ++a)
    for (int b = a + 1; b < g.size(); ++b)
      CHECK_MESSAGE(g.node(a).numel != g.node(b).numel, "nodes " << a << " and " << b << " share a hinted numel");
}
