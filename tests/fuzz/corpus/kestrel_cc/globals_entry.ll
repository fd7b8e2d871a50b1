; ModuleID = '/tmp/kestrel-cc.XXXXXX/0.entry.cu'
source_filename = "/tmp/kestrel-cc.XXXXXX/0.entry.cu"
target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n64-S128"
target triple = "riscv64-unknown-unknown-elf"

%struct.kestrel_param_desc = type { i32, i32, i32, i32 }
%struct.kestrel_kernel_desc = type { i32, i32, i32, i32, i64, i64, i64 }

$_ZN13kestrel_entry6KernelIFvPKfPfiEE5TableINS_9IndexListIJLj0ELj1ELj2EEEEE6paramsE = comdat any

@coefficients = dso_local externally_initialized global [4 x float] [float 1.000000e+00, float 5.000000e-01, float 2.500000e-01, float 1.250000e-01], align 4
@.str = private unnamed_addr constant [14 x i8] c"kestrel.const\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [41 x i8] c"/home/build/tests/e2e/kernels/globals.cu\00", section "llvm.metadata"
@launches = dso_local externally_initialized global i32 0, align 4
@.str.2 = private unnamed_addr constant [15 x i8] c"kestrel.kernel\00", section "llvm.metadata"
@.str.3 = private unnamed_addr constant [21 x i8] c"_Z10polynomialPKfPfi\00", align 1
@_ZN13kestrel_entry6KernelIFvPKfPfiEE5TableINS_9IndexListIJLj0ELj1ELj2EEEEE6paramsE = linkonce_odr dso_local externally_initialized constant [4 x %struct.kestrel_param_desc] [%struct.kestrel_param_desc { i32 0, i32 8, i32 8, i32 1 }, %struct.kestrel_param_desc { i32 8, i32 8, i32 8, i32 1 }, %struct.kestrel_param_desc { i32 16, i32 4, i32 4, i32 0 }, %struct.kestrel_param_desc zeroinitializer], comdat, align 4
@_ZL16__kestrel_desc_0 = internal constant %struct.kestrel_kernel_desc { i32 1314016075, i32 3, i32 20, i32 8, i64 ptrtoint (void (i8*)* @__kestrel_entry_0 to i64), i64 ptrtoint ([21 x i8]* @.str.3 to i64), i64 ptrtoint ([4 x %struct.kestrel_param_desc]* @_ZN13kestrel_entry6KernelIFvPKfPfiEE5TableINS_9IndexListIJLj0ELj1ELj2EEEEE6paramsE to i64) }, section ".kestrel.kernels", align 8
@llvm.global.annotations = appending global [2 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, i8* } { i8* bitcast ([4 x float]* @coefficients to i8*), i8* getelementptr inbounds ([14 x i8], [14 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([41 x i8], [41 x i8]* @.str.1, i32 0, i32 0), i32 5, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*, float*, i32)* @_Z10polynomialPKfPfi to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str.2, i32 0, i32 0), i8* getelementptr inbounds ([41 x i8], [41 x i8]* @.str.1, i32 0, i32 0), i32 9, i8* null }], section "llvm.metadata"
@llvm.compiler.used = appending global [3 x i8*] [i8* bitcast (%struct.kestrel_kernel_desc* @_ZL16__kestrel_desc_0 to i8*), i8* bitcast ([4 x float]* @coefficients to i8*), i8* bitcast (i32* @launches to i8*)], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z10polynomialPKfPfi(float* nocapture noundef readonly %x, float* nocapture noundef writeonly %y, i32 noundef signext %n) #0 {
entry:
  %0 = tail call i64 asm "csrr $0, 0xCC3", "=r"() #2, !srcloc !7
  %conv.i = trunc i64 %0 to i32
  %1 = tail call i64 asm "csrr $0, 0xCC6", "=r"() #2, !srcloc !8
  %conv.i21 = trunc i64 %1 to i32
  %mul = mul i32 %conv.i21, %conv.i
  %2 = tail call i64 asm "csrr $0, 0xCC0", "=r"() #2, !srcloc !9
  %conv.i22 = trunc i64 %2 to i32
  %add = add i32 %mul, %conv.i22
  %cmp = icmp eq i32 %add, 0
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %3 = load i32, i32* @launches, align 4, !tbaa !10
  %inc = add nsw i32 %3, 1
  store i32 %inc, i32* @launches, align 4, !tbaa !10
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  %cmp3.not = icmp slt i32 %add, %n
  br i1 %cmp3.not, label %if.end5, label %cleanup

if.end5:                                          ; preds = %if.end
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, float* %x, i64 %idxprom
  %4 = load float, float* %arrayidx, align 4, !tbaa !14
  %5 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 0), align 4, !tbaa !14
  %6 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 1), align 4, !tbaa !14
  %7 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 2), align 4, !tbaa !14
  %8 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 3), align 4, !tbaa !14
  %mul6 = fmul contract float %4, %8
  %add7 = fadd contract float %7, %mul6
  %mul8 = fmul contract float %4, %add7
  %add9 = fadd contract float %6, %mul8
  %mul10 = fmul contract float %4, %add9
  %add11 = fadd contract float %5, %mul10
  %arrayidx13 = getelementptr inbounds float, float* %y, i64 %idxprom
  store float %add11, float* %arrayidx13, align 4, !tbaa !14
  br label %cleanup

cleanup:                                          ; preds = %if.end, %if.end5
  ret void
}

; Function Attrs: convergent mustprogress nounwind
define dso_local void @__kestrel_entry_0(i8* nocapture noundef readonly %params) #1 {
entry:
  %raw.sroa.0.0..sroa_cast.i.i.i = bitcast i8* %params to float**
  %raw.sroa.0.0.copyload.i.i.i = load float*, float** %raw.sroa.0.0..sroa_cast.i.i.i, align 8, !tbaa.struct !16
  %add.ptr4.i.i = getelementptr inbounds i8, i8* %params, i64 8
  %raw.sroa.0.0..sroa_cast.i12.i.i = bitcast i8* %add.ptr4.i.i to float**
  %raw.sroa.0.0.copyload.i13.i.i = load float*, float** %raw.sroa.0.0..sroa_cast.i12.i.i, align 8, !tbaa.struct !16
  %add.ptr8.i.i = getelementptr inbounds i8, i8* %params, i64 16
  %raw.sroa.0.0..sroa_cast.i14.i.i = bitcast i8* %add.ptr8.i.i to i32*
  %raw.sroa.0.0.copyload.i15.i.i = load i32, i32* %raw.sroa.0.0..sroa_cast.i14.i.i, align 4, !tbaa.struct !18
  %0 = tail call i64 asm "csrr $0, 0xCC3", "=r"() #2, !srcloc !7
  %conv.i.i = trunc i64 %0 to i32
  %1 = tail call i64 asm "csrr $0, 0xCC6", "=r"() #2, !srcloc !8
  %conv.i21.i = trunc i64 %1 to i32
  %mul.i = mul i32 %conv.i21.i, %conv.i.i
  %2 = tail call i64 asm "csrr $0, 0xCC0", "=r"() #2, !srcloc !9
  %conv.i22.i = trunc i64 %2 to i32
  %add.i = add i32 %mul.i, %conv.i22.i
  %cmp.i = icmp eq i32 %add.i, 0
  br i1 %cmp.i, label %if.then.i, label %if.end.i

if.then.i:                                        ; preds = %entry
  %3 = load i32, i32* @launches, align 4, !tbaa !10
  %inc.i = add nsw i32 %3, 1
  store i32 %inc.i, i32* @launches, align 4, !tbaa !10
  br label %if.end.i

if.end.i:                                         ; preds = %if.then.i, %entry
  %cmp3.not.i = icmp slt i32 %add.i, %raw.sroa.0.0.copyload.i15.i.i
  br i1 %cmp3.not.i, label %if.end5.i, label %_Z10polynomialPKfPfi.exit

if.end5.i:                                        ; preds = %if.end.i
  %idxprom.i = sext i32 %add.i to i64
  %arrayidx.i = getelementptr inbounds float, float* %raw.sroa.0.0.copyload.i.i.i, i64 %idxprom.i
  %4 = load float, float* %arrayidx.i, align 4, !tbaa !14
  %5 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 0), align 4, !tbaa !14
  %6 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 1), align 4, !tbaa !14
  %7 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 2), align 4, !tbaa !14
  %8 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @coefficients, i64 0, i64 3), align 4, !tbaa !14
  %mul6.i = fmul contract float %4, %8
  %add7.i = fadd contract float %7, %mul6.i
  %mul8.i = fmul contract float %4, %add7.i
  %add9.i = fadd contract float %6, %mul8.i
  %mul10.i = fmul contract float %4, %add9.i
  %add11.i = fadd contract float %5, %mul10.i
  %arrayidx13.i = getelementptr inbounds float, float* %raw.sroa.0.0.copyload.i13.i.i, i64 %idxprom.i
  store float %add11.i, float* %arrayidx13.i, align 4, !tbaa !14
  br label %_Z10polynomialPKfPfi.exit

_Z10polynomialPKfPfi.exit:                        ; preds = %if.end.i, %if.end5.i
  ret void
}

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+a,+f,+m" }
attributes #1 = { convergent mustprogress nounwind "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+a,+f,+m" }
attributes #2 = { convergent nounwind readnone }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!llvm.ident = !{!6}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 1, !"target-abi", !"lp64f"}
!2 = !{i32 7, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 1, !"Code Model", i32 3}
!5 = !{i32 1, !"SmallDataLimit", i32 0}
!6 = !{!"Debian clang version 14.0.6"}
!7 = !{i64 2147865184}
!8 = !{i64 2147868253}
!9 = !{i64 2147862124}
!10 = !{!11, !11, i64 0}
!11 = !{!"int", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C++ TBAA"}
!14 = !{!15, !15, i64 0}
!15 = !{!"float", !12, i64 0}
!16 = !{i64 0, i64 8, !17}
!17 = !{!12, !12, i64 0}
!18 = !{i64 0, i64 4, !17}
