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
