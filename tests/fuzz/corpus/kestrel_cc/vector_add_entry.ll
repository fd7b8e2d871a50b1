; ModuleID = '/tmp/kestrel-cc.XXXXXX/0.entry.cu'
source_filename = "/tmp/kestrel-cc.XXXXXX/0.entry.cu"
target datalayout = "e-m:e-p:32:32-i64:64-n32-S128"
target triple = "riscv32-unknown-unknown-elf"

%struct.kestrel_param_desc = type { i32, i32, i32, i32 }
%struct.kestrel_kernel_desc = type { i32, i32, i32, i32, i32, i32, i32 }

$_ZN13kestrel_entry6KernelIFvPKfS2_PfiEE5TableINS_9IndexListIJLj0ELj1ELj2ELj3EEEEE6paramsE = comdat any

@.str = private unnamed_addr constant [15 x i8] c"kestrel.kernel\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [46 x i8] c"/home/build/sw_kernels/examples/vector_add.cu\00", section "llvm.metadata"
@.str.2 = private unnamed_addr constant [24 x i8] c"_Z10vector_addPKfS0_Pfi\00", align 1
@_ZN13kestrel_entry6KernelIFvPKfS2_PfiEE5TableINS_9IndexListIJLj0ELj1ELj2ELj3EEEEE6paramsE = linkonce_odr dso_local externally_initialized constant [5 x %struct.kestrel_param_desc] [%struct.kestrel_param_desc { i32 0, i32 4, i32 4, i32 1 }, %struct.kestrel_param_desc { i32 4, i32 4, i32 4, i32 1 }, %struct.kestrel_param_desc { i32 8, i32 4, i32 4, i32 1 }, %struct.kestrel_param_desc { i32 12, i32 4, i32 4, i32 0 }, %struct.kestrel_param_desc zeroinitializer], comdat, align 4
@_ZL16__kestrel_desc_0 = internal constant %struct.kestrel_kernel_desc { i32 1314016075, i32 4, i32 16, i32 4, i32 ptrtoint (void (i8*)* @__kestrel_entry_0 to i32), i32 ptrtoint ([24 x i8]* @.str.2 to i32), i32 ptrtoint ([5 x %struct.kestrel_param_desc]* @_ZN13kestrel_entry6KernelIFvPKfS2_PfiEE5TableINS_9IndexListIJLj0ELj1ELj2ELj3EEEEE6paramsE to i32) }, section ".kestrel.kernels", align 4
@llvm.global.annotations = appending global [1 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*, float*, float*, i32)* @_Z10vector_addPKfS0_Pfi to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([46 x i8], [46 x i8]* @.str.1, i32 0, i32 0), i32 3, i8* null }], section "llvm.metadata"
@llvm.compiler.used = appending global [1 x i8*] [i8* bitcast (%struct.kestrel_kernel_desc* @_ZL16__kestrel_desc_0 to i8*)], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z10vector_addPKfS0_Pfi(float* nocapture noundef readonly %a, float* nocapture noundef readonly %b, float* nocapture noundef writeonly %c, i32 noundef %n) #0 {
entry:
  %0 = tail call i32 asm "csrr $0, 0xCC6", "=r"() #2, !srcloc !5
  %1 = tail call i32 asm "csrr $0, 0xCC3", "=r"() #2, !srcloc !6
  %mul = mul i32 %1, %0
  %2 = tail call i32 asm "csrr $0, 0xCC0", "=r"() #2, !srcloc !7
  %add = add i32 %mul, %2
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %arrayidx = getelementptr inbounds float, float* %a, i32 %add
  %3 = load float, float* %arrayidx, align 4, !tbaa !8
  %arrayidx3 = getelementptr inbounds float, float* %b, i32 %add
  %4 = load float, float* %arrayidx3, align 4, !tbaa !8
  %add4 = fadd contract float %3, %4
  %arrayidx5 = getelementptr inbounds float, float* %c, i32 %add
  store float %add4, float* %arrayidx5, align 4, !tbaa !8
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: convergent mustprogress nounwind
define dso_local void @__kestrel_entry_0(i8* nocapture noundef readonly %params) #1 {
entry:
  %add.ptr9.i.i = getelementptr inbounds i8, i8* %params, i32 12
  %raw.sroa.0.0..sroa_cast.i18.i.i = bitcast i8* %add.ptr9.i.i to i32*
  %raw.sroa.0.0.copyload.i19.i.i = load i32, i32* %raw.sroa.0.0..sroa_cast.i18.i.i, align 4, !tbaa.struct !12
  %0 = tail call i32 asm "csrr $0, 0xCC6", "=r"() #2, !srcloc !5
  %1 = tail call i32 asm "csrr $0, 0xCC3", "=r"() #2, !srcloc !6
  %mul.i = mul i32 %1, %0
  %2 = tail call i32 asm "csrr $0, 0xCC0", "=r"() #2, !srcloc !7
  %add.i = add i32 %mul.i, %2
  %cmp.i = icmp slt i32 %add.i, %raw.sroa.0.0.copyload.i19.i.i
  br i1 %cmp.i, label %if.then.i, label %_Z10vector_addPKfS0_Pfi.exit

if.then.i:                                        ; preds = %entry
  %add.ptr6.i.i = getelementptr inbounds i8, i8* %params, i32 8
  %raw.sroa.0.0..sroa_cast.i16.i.i = bitcast i8* %add.ptr6.i.i to float**
  %raw.sroa.0.0.copyload.i17.i.i = load float*, float** %raw.sroa.0.0..sroa_cast.i16.i.i, align 4, !tbaa.struct !12
  %add.ptr3.i.i = getelementptr inbounds i8, i8* %params, i32 4
  %raw.sroa.0.0..sroa_cast.i14.i.i = bitcast i8* %add.ptr3.i.i to float**
  %raw.sroa.0.0.copyload.i15.i.i = load float*, float** %raw.sroa.0.0..sroa_cast.i14.i.i, align 4, !tbaa.struct !12
  %raw.sroa.0.0..sroa_cast.i.i.i = bitcast i8* %params to float**
  %raw.sroa.0.0.copyload.i.i.i = load float*, float** %raw.sroa.0.0..sroa_cast.i.i.i, align 4, !tbaa.struct !12
  %arrayidx.i = getelementptr inbounds float, float* %raw.sroa.0.0.copyload.i.i.i, i32 %add.i
  %3 = load float, float* %arrayidx.i, align 4, !tbaa !8
  %arrayidx3.i = getelementptr inbounds float, float* %raw.sroa.0.0.copyload.i15.i.i, i32 %add.i
  %4 = load float, float* %arrayidx3.i, align 4, !tbaa !8
  %add4.i = fadd contract float %3, %4
  %arrayidx5.i = getelementptr inbounds float, float* %raw.sroa.0.0.copyload.i17.i.i, i32 %add.i
  store float %add4.i, float* %arrayidx5.i, align 4, !tbaa !8
  br label %_Z10vector_addPKfS0_Pfi.exit

_Z10vector_addPKfS0_Pfi.exit:                     ; preds = %entry, %if.then.i
  ret void
}

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+a,+f,+m" }
attributes #1 = { convergent mustprogress nounwind "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+a,+f,+m" }
attributes #2 = { convergent nounwind readnone }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 1, !"target-abi", !"ilp32f"}
!2 = !{i32 1, !"Code Model", i32 3}
!3 = !{i32 1, !"SmallDataLimit", i32 0}
!4 = !{!"Debian clang version 14.0.6"}
!5 = !{i64 2147868380}
!6 = !{i64 2147865311}
!7 = !{i64 2147862251}
!8 = !{!9, !9, i64 0}
!9 = !{!"float", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = !{i64 0, i64 4, !13}
!13 = !{!10, !10, i64 0}
