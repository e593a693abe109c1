package io.github.verbs4j.examples.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.examples.Main;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How {@code verbs4j run} reads its own options before the program's. */
class RunCommandParseTest {
  @Test
  void aJvmOptionThatLooksLikeRunsOwnDashDIsTakenAsAValue() {
    CommandLine.ParseResult r = Main.commandLine().parseArgs("run", "-n", "2", "-Dverbs.fabric.shm=required",
        "--jvm-opt=-Dio.netty.leakDetection.level=disabled", "--jvm-opt", "-Xmx1g", "send_lat", "-s", "8");
    RunCommand run = (RunCommand) r.subcommand().commandSpec().userObject();
    assertEquals(List.of("-Dio.netty.leakDetection.level=disabled", "-Xmx1g"), run.jvmOptions);
    assertEquals(List.of("send_lat", "-s", "8"), run.command());
    assertEquals("required", run.properties.get("verbs.fabric.shm"));
  }
}
