package dev.stoker.tools.gpucheck.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import jcuda.nvptxcompiler.JNvPTXCompiler;
import jcuda.nvptxcompiler.nvPTXCompileResult;
import jcuda.nvptxcompiler.nvPTXCompilerHandle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The step's hand-written PTX compiles without a GPU, with the PTX compiler library that JCuda's
 * natives carry (CUDA 12.0's): for the oldest target it names and for the GPUs the check meets.
 */
class SpinPtxTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sm_52", "sm_80", "sm_90"})
  void shouldCompileForTheTargetsACuda12DriverRuns(String arch) {
    byte[] ptx = SpinStep.ptx();
    assertThat(new String(ptx, StandardCharsets.US_ASCII))
        .contains(".version 7.0", ".target sm_52", ".visible .entry spin(");
    nvPTXCompilerHandle compiler = new nvPTXCompilerHandle();
    assertThat(JNvPTXCompiler.nvPTXCompilerCreate(compiler, ptx.length, ptx))
        .isEqualTo(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS);
    try {
      String[] options = {"--gpu-name=" + arch};
      int compiled = JNvPTXCompiler.nvPTXCompilerCompile(compiler, options.length, options);
      assertThat(compiled).as(log(compiler)).isEqualTo(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS);
      long[] size = new long[1];
      JNvPTXCompiler.nvPTXCompilerGetCompiledProgramSize(compiler, size);
      assertThat(size[0]).isPositive();
    } finally {
      JNvPTXCompiler.nvPTXCompilerDestroy(compiler);
    }
  }

  private static String log(nvPTXCompilerHandle compiler) {
    long[] size = new long[1];
    JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(compiler, size);
    byte[] log = new byte[(int) size[0] + 1];
    JNvPTXCompiler.nvPTXCompilerGetErrorLog(compiler, log);
    return new String(log, StandardCharsets.US_ASCII).trim();
  }
}
