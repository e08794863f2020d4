// DLPack both ways (interop/dlpack.hpp): fusedsl tensors and views handed out and read
// back without copies, a program run on tensors described the way a framework hands
// them over, and every DLPack tensor fusedsl cannot view refused with the reason.
#include <cstdint>  // std::int64_t, std::uint8_t
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>
#include <fusedsl/interop/dlpack.hpp>

namespace fx = fusedsl;

namespace {

/// A DLTensor over `data`, as a framework describes its memory.
DLTensor describe(void* data, DLDataType type, std::vector<std::int64_t>& sizes, std::int64_t* strides,
                  DLDeviceType where = kDLCPU) {
  DLTensor t{};
  t.data = data;
  t.device = {where, 0};
  t.ndim = static_cast<int>(sizes.size());
  t.dtype = type;
  t.shape = sizes.data();
  t.strides = strides;
  return t;
}

template <class T>
void check_round_trip(std::uint8_t code) {
  fx::tensor<T> t({2, 3});
  DLManagedTensor* m = fx::to_dlpack(t.view().transpose(0, 1));
  CHECK(m->dl_tensor.dtype.code == code);
  CHECK(m->dl_tensor.dtype.bits == 8 * sizeof(T));
  const fx::tensor_view<T> back = fx::from_dlpack<T>(*m);
  CHECK(back.data() == t.data());
  CHECK(back.sizes() == fx::shape{3, 2});
  CHECK(back.strides() == fx::shape{1, 3});
  m->deleter(m);
}

}  // namespace

TEST_CASE("dlpack: a view goes out and comes back as the same memory, sizes and strides") {
  fx::tensor<float> t({4, 5});
  const fx::tensor_view<float> sliced = t.view().slice(1, 1, 5, 2);
  DLManagedTensor* m = fx::to_dlpack(sliced);
  const DLTensor& d = m->dl_tensor;
  CHECK(d.data == sliced.data());
  CHECK(d.device.device_type == kDLCPU);
  CHECK(d.ndim == 2);
  CHECK(d.dtype.code == kDLFloat);
  CHECK(d.dtype.bits == 32);
  CHECK(d.dtype.lanes == 1);
  CHECK(d.shape[0] == 4);
  CHECK(d.shape[1] == 2);
  CHECK(d.strides[0] == 5);
  CHECK(d.strides[1] == 2);
  CHECK(d.byte_offset == 0);
  const fx::tensor_view<const float> back = fx::from_dlpack<const float>(*m);
  CHECK(back.data() == sliced.data());
  CHECK(back.sizes() == sliced.sizes());
  CHECK(back.strides() == sliced.strides());
  m->deleter(m);
  check_round_trip<double>(kDLFloat);
  check_round_trip<fx::half>(kDLFloat);
  check_round_trip<fx::bfloat16>(kDLBfloat);
  check_round_trip<std::int64_t>(kDLInt);
  check_round_trip<std::int8_t>(kDLInt);
  check_round_trip<std::uint8_t>(kDLUInt);
  check_round_trip<bool>(fx::detail::dlpack_has_bool ? fx::detail::dlpack_bool_code : std::uint8_t{kDLUInt});
}

TEST_CASE("dlpack: bool arrives as kDLBool or as DLPack 0.6's 8-bit unsigned, nothing else") {
  bool flags[3] = {true, false, true};
  std::vector<std::int64_t> sizes{3};
  for (const std::uint8_t code : {fx::detail::dlpack_bool_code, std::uint8_t{kDLUInt}}) {
    const DLTensor t = describe(flags, DLDataType{code, 8, 1}, sizes, nullptr);
    CHECK(fx::from_dlpack<const bool>(t).data() == flags);
  }
  const DLTensor wide = describe(flags, DLDataType{fx::detail::dlpack_bool_code, 16, 1}, sizes, nullptr);
  const std::string refusal = "fusedsl::from_dlpack<bool>: the DLPack tensor holds bool16 elements, expected " +
                              fx::detail::dlpack_type_name(fx::detail::dlpack_type_of<bool>());
  CHECK_THROWS_WITH_AS(fx::from_dlpack<bool>(wide), refusal.c_str(), fx::error);
}

TEST_CASE("dlpack: a tensor handed over is freed by the importer's deleter call, not before") {
  fx::tensor<std::int32_t> t = fx::tensor<std::int32_t>::full({1000}, 7);
  const std::int32_t* data = t.data();
  DLManagedTensor* m = fx::to_dlpack(std::move(t));
  CHECK(t.numel() == 0);  // moved out
  CHECK(m->dl_tensor.data == data);
  CHECK(static_cast<const std::int32_t*>(m->dl_tensor.data)[999] == 7);  // still alive
  m->deleter(m);  // frees it (the sanitizer stage would see a leak or a double free)
}

TEST_CASE("dlpack: a program runs on tensors described by a framework, without copies") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program prog{y = x * 2 + 1};
  std::vector<float> in(12), out(12, -1.0f);
  for (int i = 0; i < 12; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i);
  std::vector<std::int64_t> sizes{3, 4}, column_major{1, 3};  // a Fortran-ordered input
  const DLTensor dx = describe(in.data(), {kDLFloat, 32, 1}, sizes, column_major.data());
  const DLTensor dy = describe(out.data(), {kDLFloat, 32, 1}, sizes, nullptr);  // no strides: row-major
  prog.run(fx::cpu, x(fx::from_dlpack<const float>(dx)), y(fx::from_dlpack<float>(dy)));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      CHECK(out[static_cast<std::size_t>(r * 4 + c)] == in[static_cast<std::size_t>(c * 3 + r)] * 2 + 1);
}

TEST_CASE("dlpack: tensors fusedsl cannot view are refused, saying why") {
  std::vector<double> data(8);
  std::vector<std::int64_t> sizes{2, 4};
  std::int64_t negative[] = {4, -1};
  const auto refused = [](const DLTensor& t, const char* why) {
    CHECK_THROWS_WITH_AS(fx::from_dlpack<double>(t), doctest::Contains(why), fx::error);
  };
  DLTensor t = describe(data.data(), {kDLFloat, 32, 1}, sizes, nullptr);
  CHECK_THROWS_WITH_AS(fx::from_dlpack<double>(t),
                       "fusedsl::from_dlpack<f64>: the DLPack tensor holds float32 elements, expected float64",
                       fx::error);
  refused(describe(data.data(), {kDLFloat, 64, 2}, sizes, nullptr), "holds float64x2 elements, expected float64");
  refused(describe(data.data(), {kDLFloat, 64, 1}, sizes, negative), "has stride -1 along axis 1");
  refused(describe(data.data(), {kDLFloat, 64, 1}, sizes, nullptr, kDLOpenCL),
          "is on DLPack device type 4, expected kDLCPU (1), kDLCUDA (2) or kDLCUDAHost (3)");
  t = describe(data.data(), {kDLFloat, 64, 1}, sizes, nullptr);
  t.byte_offset = 4;
  refused(t, "starts 4 bytes into its data, not a whole number of 8-byte elements");
  std::vector<std::int64_t> many(9, 1);
  refused(describe(data.data(), {kDLFloat, 64, 1}, many, nullptr), "has 9 axes, expected 0 to 8");
  t = describe(data.data(), {kDLFloat, 64, 1}, sizes, nullptr);
  t.byte_offset = 8;  // a whole element: the view starts one element in
  CHECK(fx::from_dlpack<double>(t).data() == data.data() + 1);
}
