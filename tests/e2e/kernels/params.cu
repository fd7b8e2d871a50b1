// Kernel parameters in CUDA's layout (guide B.1.4; docs/isa.md section 5):
// structs by value, more parameters than RISC-V has argument registers, every
// scalar size, pointers (8 host bytes, 4 device bytes on RV32), and a
// template kernel instantiated for several types.

struct Point {
  float x, y;
  int tag;
};

// 40 bytes, 8-byte aligned: a double, six ints, a char, padding, a float.
struct Record {
  double weight;
  int values[6];
  char flag;
  float scale;
};
static_assert(sizeof(Record) == 40, "Record must be 40 bytes on every XLEN");

__global__ void struct_param(Point p, float* out) {
  out[0] = p.x + p.y;
  out[1] = static_cast<float>(p.tag);
}

// Twelve parameters; each is written back so the host sees what arrived.
__global__ void many_params(int a, float b, double c, char d, int* out_int, Record record, short e,
                            double* out_double, unsigned char f, float g, long long h, float* out_float) {
  out_int[0] = a;
  out_int[1] = d;
  out_int[2] = e;
  out_int[3] = f;
  out_int[4] = record.flag;
  int sum = 0;
  for (int i = 0; i < 6; ++i) sum += record.values[i];
  out_int[5] = sum;
  out_double[0] = c;
  out_double[1] = record.weight;
  out_double[2] = static_cast<double>(h);
  out_float[0] = b;
  out_float[1] = g;
  out_float[2] = record.scale;
}

// data[i] *= factor for i < n.
template <typename T>
__global__ void scale_array(T* data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
template __global__ void scale_array<int>(int*, int, int);
template __global__ void scale_array<float>(float*, float, int);
template __global__ void scale_array<double>(double*, double, int);

__global__ void no_params() {}

// Long parameter lists (issue 19): CUDA allows 4096 bytes of parameters
// (guide E.2.9.3) and they must work at the default 1 KiB stack.  RISC-V has
// eight argument registers; the trampoline inlines the kernel and reads the
// rest straight from the parameter buffer instead of passing them on the
// stack.  KESTREL_P10(a) declares int a0 ... a9, KESTREL_W10(a, k) writes
// them to out[k] ... out[k + 9].
#define KESTREL_P10(n) \
  int n##0, int n##1, int n##2, int n##3, int n##4, int n##5, int n##6, int n##7, int n##8, int n##9
#define KESTREL_W10(n, k)                                                                                  \
  out[(k) + 0] = n##0, out[(k) + 1] = n##1, out[(k) + 2] = n##2, out[(k) + 3] = n##3, out[(k) + 4] = n##4, \
            out[(k) + 5] = n##5, out[(k) + 6] = n##6, out[(k) + 7] = n##7, out[(k) + 8] = n##8,            \
            out[(k) + 9] = n##9

#define KESTREL_S10(n)                                                                                      \
  (n##0 * 3 + n##1 * 5 + n##2 * 7 + n##3 * 11 + n##4 * 13 + n##5 * 17 + n##6 * 19 + n##7 * 23 + n##8 * 29 + \
   n##9 * 31)

// 121 parameters, 488 bytes (484 on RV32), as in the issue's probe: each
// thread writes all 120 ints plus its index, then a weighted sum of thirty of
// them, to its own row of 121 in out.
__global__ void int_params_120(int* out, KESTREL_P10(a0), KESTREL_P10(a1), KESTREL_P10(a2), KESTREL_P10(a3),
                               KESTREL_P10(a4), KESTREL_P10(a5), KESTREL_P10(a6), KESTREL_P10(a7),
                               KESTREL_P10(a8), KESTREL_P10(a9), KESTREL_P10(b0), KESTREL_P10(b1)) {
  out += threadIdx.x * 121;
  KESTREL_W10(a0, 0), KESTREL_W10(a1, 10), KESTREL_W10(a2, 20), KESTREL_W10(a3, 30), KESTREL_W10(a4, 40);
  KESTREL_W10(a5, 50), KESTREL_W10(a6, 60), KESTREL_W10(a7, 70), KESTREL_W10(a8, 80), KESTREL_W10(a9, 90);
  KESTREL_W10(b0, 100), KESTREL_W10(b1, 110);
  for (int i = 0; i < 120; ++i) out[i] += static_cast<int>(threadIdx.x) << 16;
  out[120] = KESTREL_S10(a0) + KESTREL_S10(a5) + KESTREL_S10(b1);
}

struct Coefficients {
  float w[900];
};

// Exactly 4096 bytes on both XLENs: out (8 or 4), a 3600-byte struct, a
// double at 3608, a char, a short, a Point, a long long at 3632 and 114 ints
// to 4096.  Each thread adds 1 to its own copy of c.w[t] (a by-value
// parameter is the thread's own) and reads its neighbour's, which no thread
// changed in its copy.
__global__ void largest_params(float* out, Coefficients c, double scale, char tag, short s, Point p,
                               long long q, KESTREL_P10(b0), KESTREL_P10(b1), KESTREL_P10(b2),
                               KESTREL_P10(b3), KESTREL_P10(b4), KESTREL_P10(b5), KESTREL_P10(b6),
                               KESTREL_P10(b7), KESTREL_P10(b8), KESTREL_P10(b9), KESTREL_P10(c0), int d0,
                               int d1, int d2, int d3) {
  const unsigned t = threadIdx.x;
  c.w[t] += 1.0f;
  out[t] = c.w[t] + c.w[(t + 1) % 900] * static_cast<float>(scale);
  if (t != 0) return;
  out += blockDim.x;  // the scalars follow one result per thread
  KESTREL_W10(b0, 0), KESTREL_W10(b1, 10), KESTREL_W10(b2, 20), KESTREL_W10(b3, 30), KESTREL_W10(b4, 40);
  KESTREL_W10(b5, 50), KESTREL_W10(b6, 60), KESTREL_W10(b7, 70), KESTREL_W10(b8, 80), KESTREL_W10(b9, 90);
  KESTREL_W10(c0, 100);
  out[110] = d0, out[111] = d1, out[112] = d2, out[113] = d3;
  out[114] = tag, out[115] = s, out[116] = p.x, out[117] = p.y, out[118] = p.tag;
  out[119] = static_cast<float>(q);
}
