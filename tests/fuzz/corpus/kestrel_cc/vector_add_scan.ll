; ModuleID = '/home/build/sw_kernels/examples/vector_add.cu'
source_filename = "/home/build/sw_kernels/examples/vector_add.cu"
target datalayout = "e-m:e-p:32:32-i64:64-n32-S128"
target triple = "riscv32-unknown-unknown-elf"

%struct.kestrel_builtin_blockDim_t = type { i8 }
%struct.kestrel_builtin_blockIdx_t = type { i8 }
%struct.kestrel_builtin_threadIdx_t = type { i8 }

$_ZN26kestrel_builtin_blockDim_t9kestrel_xEv = comdat any

$_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv = comdat any

$_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv = comdat any

@_ZL8blockDim = internal constant %struct.kestrel_builtin_blockDim_t undef, align 1
@_ZL8blockIdx = internal constant %struct.kestrel_builtin_blockIdx_t undef, align 1
@_ZL9threadIdx = internal constant %struct.kestrel_builtin_threadIdx_t undef, align 1
@.str = private unnamed_addr constant [15 x i8] c"kestrel.kernel\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [46 x i8] c"/home/build/sw_kernels/examples/vector_add.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*, float*, float*, i32)* @_Z10vector_addPKfS0_Pfi to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([46 x i8], [46 x i8]* @.str.1, i32 0, i32 0), i32 3, i8* null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z10vector_addPKfS0_Pfi(float* noundef %a, float* noundef %b, float* noundef %c, i32 noundef %n) #0 {
entry:
  %a.addr = alloca float*, align 4
  %b.addr = alloca float*, align 4
  %c.addr = alloca float*, align 4
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  store float* %a, float** %a.addr, align 4
  store float* %b, float** %b.addr, align 4
  store float* %c, float** %c.addr, align 4
  store i32 %n, i32* %n.addr, align 4
  %call = call noundef i32 @_ZN26kestrel_builtin_blockDim_t9kestrel_xEv() #2
  %call1 = call noundef i32 @_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv() #2
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv() #2
  %add = add i32 %mul, %call2
  store i32 %add, i32* %i, align 4
  %0 = load i32, i32* %i, align 4
  %1 = load i32, i32* %n.addr, align 4
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %2 = load float*, float** %a.addr, align 4
  %3 = load i32, i32* %i, align 4
  %arrayidx = getelementptr inbounds float, float* %2, i32 %3
  %4 = load float, float* %arrayidx, align 4
  %5 = load float*, float** %b.addr, align 4
  %6 = load i32, i32* %i, align 4
  %arrayidx3 = getelementptr inbounds float, float* %5, i32 %6
  %7 = load float, float* %arrayidx3, align 4
  %add4 = fadd contract float %4, %7
  %8 = load float*, float** %c.addr, align 4
  %9 = load i32, i32* %i, align 4
  %arrayidx5 = getelementptr inbounds float, float* %8, i32 %9
  store float %add4, float* %arrayidx5, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26kestrel_builtin_blockDim_t9kestrel_xEv() #1 comdat align 2 {
entry:
  %kestrel_csr_value_ = alloca i32, align 4
  %tmp = alloca i32, align 4
  %0 = call i32 asm "csrr $0, 0xCC6", "=r"() #3, !srcloc !5
  store i32 %0, i32* %kestrel_csr_value_, align 4
  %1 = load i32, i32* %kestrel_csr_value_, align 4
  store i32 %1, i32* %tmp, align 4
  %2 = load i32, i32* %tmp, align 4
  ret i32 %2
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv() #1 comdat align 2 {
entry:
  %kestrel_csr_value_ = alloca i32, align 4
  %tmp = alloca i32, align 4
  %0 = call i32 asm "csrr $0, 0xCC3", "=r"() #3, !srcloc !6
  store i32 %0, i32* %kestrel_csr_value_, align 4
  %1 = load i32, i32* %kestrel_csr_value_, align 4
  store i32 %1, i32* %tmp, align 4
  %2 = load i32, i32* %tmp, align 4
  ret i32 %2
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv() #1 comdat align 2 {
entry:
  %kestrel_csr_value_ = alloca i32, align 4
  %tmp = alloca i32, align 4
  %0 = call i32 asm "csrr $0, 0xCC0", "=r"() #3, !srcloc !7
  store i32 %0, i32* %kestrel_csr_value_, align 4
  %1 = load i32, i32* %kestrel_csr_value_, align 4
  store i32 %1, i32* %tmp, align 4
  %2 = load i32, i32* %tmp, align 4
  ret i32 %2
}

attributes #0 = { convergent mustprogress noinline norecurse nounwind optnone "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+a,+f,+m" }
attributes #1 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+a,+f,+m" }
attributes #2 = { convergent nounwind }
attributes #3 = { convergent nounwind readnone }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 1, !"target-abi", !"ilp32f"}
!2 = !{i32 1, !"Code Model", i32 3}
!3 = !{i32 1, !"SmallDataLimit", i32 0}
!4 = !{!"Debian clang version 14.0.6"}
!5 = !{i64 2147867617}
!6 = !{i64 2147864548}
!7 = !{i64 2147861488}
