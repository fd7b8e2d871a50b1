// Lab 10: a texture format (README.md).  Your conversions of texels to the
// values a CUDA texture fetch returns, bit for bit as an NVIDIA H100 does.
// formats.cu calls them inside kernels on Kestrel's functional model; make
// check compares what they return with the H100's outputs and with
// Kestrel's own texture fetches.  Only this file is yours to change.
#pragma once

// The bits of a float and back (no arithmetic, no rounding).
__host__ __device__ inline unsigned float_to_bits(float f) { return __builtin_bit_cast(unsigned, f); }
__host__ __device__ inline float bits_to_float(unsigned u) { return __builtin_bit_cast(float, u); }

// Step 1.  A point-sampled texel read with cudaReadModeNormalizedFloat
// (guide 3.2.11.1, "Read mode"): an unsigned `bits`-bit integer `value`
// maps to [0, 1], a signed one to [-1, 1].  `bits` is 8 or 16; `value` is
// the texel's integer (sign-extended when is_signed).
__host__ __device__ inline float normalized_point(bool is_signed, int bits, int value) {
  // TODO (step 1)
  (void)is_signed;
  (void)bits;
  (void)value;
  return 0.0f;
}

// Step 2.  Filtering and tex2Dgather work on 16-bit fixed point: unorm16
// (q / 65535) for unsigned formats, snorm16 (q / 32767) for signed ones.
// The 16-bit texel of a 16-bit format is its own q; an 8-bit texel is
// widened.  The most negative value is NOT clamped here.
__host__ __device__ inline int fixed16(bool is_signed, int bits, int value) {
  // TODO (step 2)
  (void)is_signed;
  (void)bits;
  (void)value;
  return 0;
}

// Step 3.  The result of a linear fetch (appendix F.2) from the weighted sum
// of its taps' fixed16 values, sum(w_i x q_i), the weights w_i in units of
// 1/256 adding up to 256.  tex2Dgather returns each texel as this with one
// weight of 256.
__host__ __device__ inline float filtered(bool is_signed, int weighted_sum) {
  // TODO (step 3)
  (void)is_signed;
  (void)weighted_sum;
  return 0.0f;
}

// Step 4.  A 16-bit IEEE 754 half float (1 sign bit, 5 exponent bits of
// bias 15, 10 mantissa bits) as the binary32 float it equals: the element
// type read of a cudaChannelFormatKindFloat texture of 16 bits.
// Subnormal halves become normal floats; infinities stay infinities; a NaN
// becomes the quiet NaN of its sign, 0x7fc00000 or 0xffc00000 (Kestrel's
// rule: README.md, step 4).
__host__ __device__ inline float half_to_float(unsigned short h) {
  // TODO (step 4)
  (void)h;
  return 0.0f;
}
