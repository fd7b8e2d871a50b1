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
  // The largest value maps to 1.0: 2^b - 1 unsigned, 2^(b-1) - 1 signed.
  const int largest = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  // The most negative value (-128, -32768) has no positive partner: it
  // reads as -1.0 too.
  if (value < -largest) value = -largest;
  // Both operands are exact floats (below 2^24), so one float division is
  // the correctly rounded quotient: rounded once, as the H100 does.
  return static_cast<float>(value) / static_cast<float>(largest);
}

// Step 2.  Filtering and tex2Dgather work on 16-bit fixed point: unorm16
// (q / 65535) for unsigned formats, snorm16 (q / 32767) for signed ones.
// The 16-bit texel of a 16-bit format is its own q; an 8-bit texel is
// widened.  The most negative value is NOT clamped here.
__host__ __device__ inline int fixed16(bool is_signed, int bits, int value) {
  if (bits == 16) return value;
  // v / 255 == v x 257 / 65535 exactly: 257 = 65535 / 255.
  if (!is_signed) return value * 257;
  // v / 127 == v x 32767 / 127 / 32767, and 32767 / 127 is not an integer:
  // round to the nearest q, halves away from zero (symmetric for +-v).
  const int scaled = value * 32767;
  return scaled >= 0 ? (scaled + 63) / 127 : -((-scaled + 63) / 127);
}

// Step 3.  The result of a linear fetch (appendix F.2) from the weighted sum
// of its taps' fixed16 values, sum(w_i x q_i), the weights w_i in units of
// 1/256 adding up to 256.  tex2Dgather returns each texel as this with one
// weight of 256.
__host__ __device__ inline float filtered(bool is_signed, int weighted_sum) {
  // Back to 16 bits: sum / 256 rounded half up, i.e. floor((sum + 128) / 256)
  // (floor, not C's truncation toward zero, for a negative sum).
  const int shifted = weighted_sum + 128;
  int q = shifted >= 0 ? shifted / 256 : -((-shifted + 255) / 256);
  // Only now is -32768 (snorm16's extra value, or -128 widened) clamped.
  if (is_signed && q < -32767) q = -32767;
  return static_cast<float>(q) / (is_signed ? 32767.0f : 65535.0f);
}

// Step 4.  A 16-bit IEEE 754 half float (1 sign bit, 5 exponent bits of
// bias 15, 10 mantissa bits) as the binary32 float it equals: the element
// type read of a cudaChannelFormatKindFloat texture of 16 bits.
// Subnormal halves become normal floats; infinities stay infinities; a NaN
// becomes the quiet NaN of its sign, 0x7fc00000 or 0xffc00000 (Kestrel's
// rule: README.md, step 4).
__host__ __device__ inline float half_to_float(unsigned short h) {
  const unsigned sign = static_cast<unsigned>(h >> 15) << 31;
  const int exponent = (h >> 10) & 0x1f;
  unsigned mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_to_float(sign | (mantissa ? 0x7fc00000u : 0x7f800000u));
  if (exponent == 0) {
    if (mantissa == 0) return bits_to_float(sign);  // +-0
    // Subnormal: mantissa x 2^-24.  Shift the leading one up to bit 10, the
    // place of the implicit one, lowering the exponent as we go.
    int e = -14;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    return bits_to_float(sign | static_cast<unsigned>(e + 127) << 23 | (mantissa & 0x3ffu) << 13);
  }
  // Normal: rebias the exponent (15 -> 127), widen the mantissa (10 -> 23 bits).
  return bits_to_float(sign | static_cast<unsigned>(exponent - 15 + 127) << 23 | mantissa << 13);
}
