// expected: a fusion policy needs the members of inductor_policy
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;

// A policy written from scratch that forgets the backend's rules (backend_can_fuse);
// its twin derives from inductor_policy, which has them all.
#ifdef FUSEDSL_MISUSE
struct my_policy {
  template <class S>
  constexpr fx::fusion_score score(const S& s, int a, int b) const {
    return fx::inductor_policy{}.score(s, a, b);
  }
  constexpr bool less(const fx::fusion_score& x, const fx::fusion_score& y) const {
    return fx::inductor_policy{}.less(x, y);
  }
  template <class S>
  constexpr int priority(const S&, int, int) const {
    return 0;
  }
  template <class S>
  constexpr fx::why_no_fuse can_fuse(const S&, int, int, std::int64_t) const {
    return fx::why_no_fuse::none;
  }
  template <class S>
  constexpr fx::why_no_fuse can_fuse_vertical(const S&, int, int, std::int64_t) const {
    return fx::why_no_fuse::none;
  }
  template <class S>
  constexpr fx::why_no_fuse can_fuse_horizontal(const S&, int, int, std::int64_t) const {
    return fx::why_no_fuse::none;
  }
};
#else
struct my_policy : fx::inductor_policy {};
#endif

int main() {
  fx::graph g;
  g.finalize();
  return fx::fuse_nodes(g, {}, my_policy{}).group_count();
}
