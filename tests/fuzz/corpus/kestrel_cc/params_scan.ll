; ModuleID = '/home/build/tests/e2e/kernels/params.cu'
source_filename = "/home/build/tests/e2e/kernels/params.cu"
target datalayout = "e-m:e-p:32:32-i64:64-n32-S128"
target triple = "riscv32-unknown-unknown-elf"

%struct.kestrel_builtin_blockIdx_t = type { i8 }
%struct.kestrel_builtin_blockDim_t = type { i8 }
%struct.kestrel_builtin_threadIdx_t = type { i8 }
%struct.Point = type { float, float, i32 }
%struct.Record = type { double, [6 x i32], i8, float }

$_Z11scale_arrayIiEvPT_S0_i = comdat any

$_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv = comdat any

$_ZN26kestrel_builtin_blockDim_t9kestrel_xEv = comdat any

$_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv = comdat any

$_Z11scale_arrayIfEvPT_S0_i = comdat any

$_Z11scale_arrayIdEvPT_S0_i = comdat any

@.str = private unnamed_addr constant [15 x i8] c"kestrel.kernel\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [40 x i8] c"/home/build/tests/e2e/kernels/params.cu\00", section "llvm.metadata"
@_ZL8blockIdx = internal constant %struct.kestrel_builtin_blockIdx_t undef, align 1
@_ZL8blockDim = internal constant %struct.kestrel_builtin_blockDim_t undef, align 1
@_ZL9threadIdx = internal constant %struct.kestrel_builtin_threadIdx_t undef, align 1
@llvm.global.annotations = appending global [9 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (%struct.Point*, float*)* @_Z12struct_param5PointPf to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 20, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (i32, float, double, i8, i32*, %struct.Record*, i16, double*, i8, float, i64, float*)* @_Z11many_paramsifdcPi6RecordsPdhfxPf to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 26, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (i32*, i32, i32)* @_Z11scale_arrayIiEvPT_S0_i to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 46, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (i32*, i32, i32)* @_Z11scale_arrayIiEvPT_S0_i to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 46, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*, float, i32)* @_Z11scale_arrayIfEvPT_S0_i to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 46, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*, float, i32)* @_Z11scale_arrayIfEvPT_S0_i to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 46, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (double*, double, i32)* @_Z11scale_arrayIdEvPT_S0_i to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 46, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (double*, double, i32)* @_Z11scale_arrayIdEvPT_S0_i to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 46, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void ()* @_Z9no_paramsv to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([40 x i8], [40 x i8]* @.str.1, i32 0, i32 0), i32 54, i8* null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z12struct_param5PointPf(%struct.Point* noundef %p, float* noundef %out) #0 {
entry:
  %out.addr = alloca float*, align 4
  store float* %out, float** %out.addr, align 4
  %x = getelementptr inbounds %struct.Point, %struct.Point* %p, i32 0, i32 0
  %0 = load float, float* %x, align 4
  %y = getelementptr inbounds %struct.Point, %struct.Point* %p, i32 0, i32 1
  %1 = load float, float* %y, align 4
  %add = fadd contract float %0, %1
  %2 = load float*, float** %out.addr, align 4
  %arrayidx = getelementptr inbounds float, float* %2, i32 0
  store float %add, float* %arrayidx, align 4
  %tag = getelementptr inbounds %struct.Point, %struct.Point* %p, i32 0, i32 2
  %3 = load i32, i32* %tag, align 4
  %conv = sitofp i32 %3 to float
  %4 = load float*, float** %out.addr, align 4
  %arrayidx1 = getelementptr inbounds float, float* %4, i32 1
  store float %conv, float* %arrayidx1, align 4
  ret void
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z11many_paramsifdcPi6RecordsPdhfxPf(i32 noundef %a, float noundef %b, double noundef %c, i8 noundef signext %d, i32* noundef %out_int, %struct.Record* noundef %record, i16 noundef signext %e, double* noundef %out_double, i8 noundef %f, float noundef %g, i64 noundef %h, float* noundef %out_float) #0 {
entry:
  %a.addr = alloca i32, align 4
  %b.addr = alloca float, align 4
  %c.addr = alloca double, align 8
  %d.addr = alloca i8, align 1
  %out_int.addr = alloca i32*, align 4
  %e.addr = alloca i16, align 2
  %out_double.addr = alloca double*, align 4
  %f.addr = alloca i8, align 1
  %g.addr = alloca float, align 4
  %h.addr = alloca i64, align 8
  %out_float.addr = alloca float*, align 4
  %sum = alloca i32, align 4
  %i = alloca i32, align 4
  store i32 %a, i32* %a.addr, align 4
  store float %b, float* %b.addr, align 4
  store double %c, double* %c.addr, align 8
  store i8 %d, i8* %d.addr, align 1
  store i32* %out_int, i32** %out_int.addr, align 4
  store i16 %e, i16* %e.addr, align 2
  store double* %out_double, double** %out_double.addr, align 4
  store i8 %f, i8* %f.addr, align 1
  store float %g, float* %g.addr, align 4
  store i64 %h, i64* %h.addr, align 8
  store float* %out_float, float** %out_float.addr, align 4
  %0 = load i32, i32* %a.addr, align 4
  %1 = load i32*, i32** %out_int.addr, align 4
  %arrayidx = getelementptr inbounds i32, i32* %1, i32 0
  store i32 %0, i32* %arrayidx, align 4
  %2 = load i8, i8* %d.addr, align 1
  %conv = sext i8 %2 to i32
  %3 = load i32*, i32** %out_int.addr, align 4
  %arrayidx1 = getelementptr inbounds i32, i32* %3, i32 1
  store i32 %conv, i32* %arrayidx1, align 4
  %4 = load i16, i16* %e.addr, align 2
  %conv2 = sext i16 %4 to i32
  %5 = load i32*, i32** %out_int.addr, align 4
  %arrayidx3 = getelementptr inbounds i32, i32* %5, i32 2
  store i32 %conv2, i32* %arrayidx3, align 4
  %6 = load i8, i8* %f.addr, align 1
  %conv4 = zext i8 %6 to i32
  %7 = load i32*, i32** %out_int.addr, align 4
  %arrayidx5 = getelementptr inbounds i32, i32* %7, i32 3
  store i32 %conv4, i32* %arrayidx5, align 4
  %flag = getelementptr inbounds %struct.Record, %struct.Record* %record, i32 0, i32 2
  %8 = load i8, i8* %flag, align 8
  %conv6 = sext i8 %8 to i32
  %9 = load i32*, i32** %out_int.addr, align 4
  %arrayidx7 = getelementptr inbounds i32, i32* %9, i32 4
  store i32 %conv6, i32* %arrayidx7, align 4
  store i32 0, i32* %sum, align 4
  store i32 0, i32* %i, align 4
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %10 = load i32, i32* %i, align 4
  %cmp = icmp slt i32 %10, 6
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %values = getelementptr inbounds %struct.Record, %struct.Record* %record, i32 0, i32 1
  %11 = load i32, i32* %i, align 4
  %arrayidx8 = getelementptr inbounds [6 x i32], [6 x i32]* %values, i32 0, i32 %11
  %12 = load i32, i32* %arrayidx8, align 4
  %13 = load i32, i32* %sum, align 4
  %add = add nsw i32 %13, %12
  store i32 %add, i32* %sum, align 4
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %14 = load i32, i32* %i, align 4
  %inc = add nsw i32 %14, 1
  store i32 %inc, i32* %i, align 4
  br label %for.cond, !llvm.loop !5

for.end:                                          ; preds = %for.cond
  %15 = load i32, i32* %sum, align 4
  %16 = load i32*, i32** %out_int.addr, align 4
  %arrayidx9 = getelementptr inbounds i32, i32* %16, i32 5
  store i32 %15, i32* %arrayidx9, align 4
  %17 = load double, double* %c.addr, align 8
  %18 = load double*, double** %out_double.addr, align 4
  %arrayidx10 = getelementptr inbounds double, double* %18, i32 0
  store double %17, double* %arrayidx10, align 8
  %weight = getelementptr inbounds %struct.Record, %struct.Record* %record, i32 0, i32 0
  %19 = load double, double* %weight, align 8
  %20 = load double*, double** %out_double.addr, align 4
  %arrayidx11 = getelementptr inbounds double, double* %20, i32 1
  store double %19, double* %arrayidx11, align 8
  %21 = load i64, i64* %h.addr, align 8
  %conv12 = sitofp i64 %21 to double
  %22 = load double*, double** %out_double.addr, align 4
  %arrayidx13 = getelementptr inbounds double, double* %22, i32 2
  store double %conv12, double* %arrayidx13, align 8
  %23 = load float, float* %b.addr, align 4
  %24 = load float*, float** %out_float.addr, align 4
  %arrayidx14 = getelementptr inbounds float, float* %24, i32 0
  store float %23, float* %arrayidx14, align 4
  %25 = load float, float* %g.addr, align 4
  %26 = load float*, float** %out_float.addr, align 4
  %arrayidx15 = getelementptr inbounds float, float* %26, i32 1
  store float %25, float* %arrayidx15, align 4
  %scale = getelementptr inbounds %struct.Record, %struct.Record* %record, i32 0, i32 3
  %27 = load float, float* %scale, align 4
  %28 = load float*, float** %out_float.addr, align 4
  %arrayidx16 = getelementptr inbounds float, float* %28, i32 2
  store float %27, float* %arrayidx16, align 4
  ret void
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z11scale_arrayIiEvPT_S0_i(i32* noundef %data, i32 noundef %factor, i32 noundef %n) #0 comdat {
entry:
  %data.addr = alloca i32*, align 4
  %factor.addr = alloca i32, align 4
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  store i32* %data, i32** %data.addr, align 4
  store i32 %factor, i32* %factor.addr, align 4
  store i32 %n, i32* %n.addr, align 4
  %call = call noundef i32 @_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv() #2
  %call1 = call noundef i32 @_ZN26kestrel_builtin_blockDim_t9kestrel_xEv() #2
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv() #2
  %add = add i32 %mul, %call2
  store i32 %add, i32* %i, align 4
  %0 = load i32, i32* %i, align 4
  %1 = load i32, i32* %n.addr, align 4
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %2 = load i32, i32* %factor.addr, align 4
  %3 = load i32*, i32** %data.addr, align 4
  %4 = load i32, i32* %i, align 4
  %arrayidx = getelementptr inbounds i32, i32* %3, i32 %4
  %5 = load i32, i32* %arrayidx, align 4
  %mul3 = mul nsw i32 %5, %2
  store i32 %mul3, i32* %arrayidx, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv() #1 comdat align 2 {
entry:
  %kestrel_csr_value_ = alloca i32, align 4
  %tmp = alloca i32, align 4
  %0 = call i32 asm "csrr $0, 0xCC3", "=r"() #3, !srcloc !7
  store i32 %0, i32* %kestrel_csr_value_, align 4
  %1 = load i32, i32* %kestrel_csr_value_, align 4
  store i32 %1, i32* %tmp, align 4
  %2 = load i32, i32* %tmp, align 4
  ret i32 %2
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26kestrel_builtin_blockDim_t9kestrel_xEv() #1 comdat align 2 {
entry:
  %kestrel_csr_value_ = alloca i32, align 4
  %tmp = alloca i32, align 4
  %0 = call i32 asm "csrr $0, 0xCC6", "=r"() #3, !srcloc !8
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
  %0 = call i32 asm "csrr $0, 0xCC0", "=r"() #3, !srcloc !9
  store i32 %0, i32* %kestrel_csr_value_, align 4
  %1 = load i32, i32* %kestrel_csr_value_, align 4
  store i32 %1, i32* %tmp, align 4
  %2 = load i32, i32* %tmp, align 4
  ret i32 %2
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z11scale_arrayIfEvPT_S0_i(float* noundef %data, float noundef %factor, i32 noundef %n) #0 comdat {
entry:
  %data.addr = alloca float*, align 4
  %factor.addr = alloca float, align 4
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  store float* %data, float** %data.addr, align 4
  store float %factor, float* %factor.addr, align 4
  store i32 %n, i32* %n.addr, align 4
  %call = call noundef i32 @_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv() #2
  %call1 = call noundef i32 @_ZN26kestrel_builtin_blockDim_t9kestrel_xEv() #2
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv() #2
  %add = add i32 %mul, %call2
  store i32 %add, i32* %i, align 4
  %0 = load i32, i32* %i, align 4
  %1 = load i32, i32* %n.addr, align 4
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %2 = load float, float* %factor.addr, align 4
  %3 = load float*, float** %data.addr, align 4
  %4 = load i32, i32* %i, align 4
  %arrayidx = getelementptr inbounds float, float* %3, i32 %4
  %5 = load float, float* %arrayidx, align 4
  %mul3 = fmul contract float %5, %2
  store float %mul3, float* %arrayidx, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z11scale_arrayIdEvPT_S0_i(double* noundef %data, double noundef %factor, i32 noundef %n) #0 comdat {
entry:
  %data.addr = alloca double*, align 4
  %factor.addr = alloca double, align 8
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  store double* %data, double** %data.addr, align 4
  store double %factor, double* %factor.addr, align 8
  store i32 %n, i32* %n.addr, align 4
  %call = call noundef i32 @_ZN26kestrel_builtin_blockIdx_t9kestrel_xEv() #2
  %call1 = call noundef i32 @_ZN26kestrel_builtin_blockDim_t9kestrel_xEv() #2
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN27kestrel_builtin_threadIdx_t9kestrel_xEv() #2
  %add = add i32 %mul, %call2
  store i32 %add, i32* %i, align 4
  %0 = load i32, i32* %i, align 4
  %1 = load i32, i32* %n.addr, align 4
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %2 = load double, double* %factor.addr, align 8
  %3 = load double*, double** %data.addr, align 4
  %4 = load i32, i32* %i, align 4
  %arrayidx = getelementptr inbounds double, double* %3, i32 %4
  %5 = load double, double* %arrayidx, align 8
  %mul3 = fmul contract double %5, %2
  store double %mul3, double* %arrayidx, align 8
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z9no_paramsv() #0 {
entry:
  ret void
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
!5 = distinct !{!5, !6}
!6 = !{!"llvm.loop.mustprogress"}
!7 = !{i64 2147865919}
!8 = !{i64 2147868988}
!9 = !{i64 2147862859}
