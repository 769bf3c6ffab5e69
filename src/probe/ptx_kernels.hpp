#pragma once
// The PTX text the driver checks load (ZLUDA consumes only PTX, never SASS). Bodies carry no
// header: the probe puts `.version 6.0 / .target sm_50` in front (any driver since CUDA 9 takes
// it) and retries with `.version 6.3 / .target sm_75` for drivers that dropped the old targets.
// A unit test assembles every text with NVIDIA's ptxas when it is installed.
#include <string>
#include <string_view>

namespace zcuda::probe::ptx {

struct Header {
  const char* text;
  int sm;  // the .target's architecture, what CU_FUNC_ATTRIBUTE_PTX_VERSION must report
};

inline constexpr Header kHeaders[] = {{".version 6.0\n.target sm_50\n", 50}, {".version 6.3\n.target sm_75\n", 75}};

// c[i] = a[i] + b[i] for i < n.
inline constexpr const char* kVadd = R"(
.address_size 64

.visible .entry vadd(
	.param .u64 a,
	.param .u64 b,
	.param .u64 c,
	.param .u32 n
)
{
	.reg .pred %p<2>;
	.reg .f32 %f<4>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<11>;

	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [c];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	cvta.to.global.u64 %rd5, %rd2;
	cvta.to.global.u64 %rd6, %rd3;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd4, %rd7;
	add.s64 %rd9, %rd5, %rd7;
	add.s64 %rd10, %rd6, %rd7;
	ld.global.f32 %f1, [%rd8];
	ld.global.f32 %f2, [%rd9];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd10], %f3;
DONE:
	ret;
}
)";

// The driver feature checks' module: vadd as above; axpy, y[i] = a·x[i] + y[i] (one rounding);
// reverse_shared, which fills `words` 32-bit words of dynamic shared memory with a pattern and
// writes them out reversed, so every byte of the shared memory it was given is used.
inline constexpr const char* kFeatures = R"(
.address_size 64

.extern .shared .align 16 .b8 dynamic_smem[];

.visible .entry vadd(
	.param .u64 a,
	.param .u64 b,
	.param .u64 c,
	.param .u32 n
)
{
	.reg .pred %p<2>;
	.reg .f32 %f<4>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<11>;

	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [c];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra VADD_DONE;
	cvta.to.global.u64 %rd4, %rd1;
	cvta.to.global.u64 %rd5, %rd2;
	cvta.to.global.u64 %rd6, %rd3;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd4, %rd7;
	add.s64 %rd9, %rd5, %rd7;
	add.s64 %rd10, %rd6, %rd7;
	ld.global.f32 %f1, [%rd8];
	ld.global.f32 %f2, [%rd9];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd10], %f3;
VADD_DONE:
	ret;
}

.visible .entry axpy(
	.param .f32 alpha,
	.param .u64 x,
	.param .u64 y,
	.param .u32 n
)
{
	.reg .pred %p<2>;
	.reg .f32 %f<5>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;

	ld.param.f32 %f1, [alpha];
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra AXPY_DONE;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd7, %rd4, %rd5;
	ld.global.f32 %f2, [%rd6];
	ld.global.f32 %f3, [%rd7];
	fma.rn.f32 %f4, %f1, %f2, %f3;
	st.global.f32 [%rd7], %f4;
AXPY_DONE:
	ret;
}

.visible .entry reverse_shared(
	.param .u64 out,
	.param .u32 words
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [words];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, dynamic_smem;
	mov.u32 %r5, %r2;
FILL:
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra FILLED;
	mad.lo.u32 %r6, %r5, -1640531535, 12345;
	shl.b32 %r7, %r5, 2;
	add.s32 %r8, %r4, %r7;
	st.shared.u32 [%r8], %r6;
	add.s32 %r5, %r5, %r3;
	bra FILL;
FILLED:
	bar.sync 0;
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r5, %r2;
COPY:
	setp.ge.u32 %p2, %r5, %r1;
	@%p2 bra REVERSE_DONE;
	sub.s32 %r9, %r1, 1;
	sub.s32 %r9, %r9, %r5;
	shl.b32 %r10, %r9, 2;
	add.s32 %r10, %r4, %r10;
	ld.shared.u32 %r11, [%r10];
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r11;
	add.s32 %r5, %r5, %r3;
	bra COPY;
REVERSE_DONE:
	ret;
}
)";

// What reverse_shared stores for word i (2654435761 = Knuth's multiplicative hash, mod 2^32).
inline constexpr unsigned shared_pattern(unsigned i) { return i * 2654435761u + 12345u; }

// One image of driver.multi_ptx's fat binary: out[t] = `sm` + 1000·t, so the output names the
// image the driver chose. Unindented, as NVIDIA's fatbinary tool would store it.
struct TargetImage {
  int sm, ptx_major, ptx_minor;
};

// out[i] = the first channel of texel i of a texture object (tex1Dfetch), for i < n: what
// ZLUDA's texture support (upstream #625) must get right for a 1D float texture.
inline constexpr const char* kTexFetch = R"(
.address_size 64

.visible .entry tex_fetch(
	.param .u64 out,
	.param .u64 tex,
	.param .u32 n
)
{
	.reg .pred %p<2>;
	.reg .f32 %f<5>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;

	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [tex];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {%r1}];
	cvta.to.global.u64 %rd3, %rd1;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd3, %rd4;
	st.global.f32 [%rd5], %f1;
DONE:
	ret;
}
)";

// The five targets, in an order where neither the first, the last, the lowest nor the highest
// image is the right choice for a common GPU, so a loader that takes any of those is caught.
inline constexpr TargetImage kTargetImages[] = {{75, 6, 3}, {90, 7, 8}, {50, 6, 0}, {100, 8, 6}, {80, 7, 0}};

inline std::string which_ptx_text(const TargetImage& image) {
  return ".version " + std::to_string(image.ptx_major) + "." + std::to_string(image.ptx_minor) + "\n.target sm_" + std::to_string(image.sm) + R"(
.address_size 64

.visible .entry which_ptx(
.param .u64 out
)
{
.reg .b32 %r<3>;
.reg .b64 %rd<5>;

ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
mad.lo.u32 %r2, %r1, 1000, )" +
         std::to_string(image.sm) + R"(;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], %r2;
ret;
}
)";
}

}  // namespace zcuda::probe::ptx
